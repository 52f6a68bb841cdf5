import { SeededRandom } from '../../model/engine/seeded-random.ts';

/** Fault families a chaos run can be asked for (`--faults`). */
export const CHAOS_FAULT_KINDS = ['crash', 'partition', 'loss', 'clock', 'connector', 'flapping', 'leave'] as const;
export type ChaosFaultKind = (typeof CHAOS_FAULT_KINDS)[number];

/** Deliberately buggy model variants (`--bug`), to prove the checkers bite. */
export const CHAOS_BUGS = [
  'grantVoteTwice',
  'skipLogUpToDateCheck',
  'skipConsistencyCheck',
  'commitPreviousTermByCount',
  'hwPastIsrMember',
  'uncleanElection',
] as const;
export type ChaosBug = (typeof CHAOS_BUGS)[number];

export interface ChaosOptions {
  seed: string;
  steps: number;
  nodes: number;
  faults: ChaosFaultKind[];
  bug: ChaosBug | null;
}

/**
 * One fault action. Faults and their repairs are separate steps, so shrinking can drop a repair
 * (leaving the fault in force) or a fault (leaving a harmless repair). `leave` names the node tried
 * first (the next ids are tried when node leave refuses it); `restart`/`rejoin` of node 0 repair
 * whichever nodes are down/removed then.
 */
export type ChaosFault =
  | { kind: 'crash' | 'restart' | 'leave' | 'rejoin'; node: number }
  | { kind: 'crash-leader' }
  | { kind: 'partition'; side: number[] }
  | { kind: 'loss'; loss: number; duplicate: number; jitterMs: number }
  | { kind: 'heal' }
  | { kind: 'clock'; jumpMs: number }
  | { kind: 'connector'; target: string; down: boolean }
  | { kind: 'flapping'; clientId: string; attempts: number };

/** One step of a run: at virtual ms `at` after the start, an API call or a fault. */
export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

export type ChaosStep = { at: number; api: ApiCall } | { at: number; fault: ChaosFault };

/** Virtual ms between steps: above the 20 ms per-path rate-limit spacing, so no call is rate limited. */
const STEP_GAP_MS = 50;
/** Flapping settings the plan switches on: a client connecting more than 3 times in 30 s is banned for 5 s. */
const FLAPPING_CONFIG = { enable: true, window_time: 30, max_client_connections: 3, ban_time: 5 };

const TENANTS = ['default', 'chaos-a', 'chaos-b'];
const TOPICS = ['orders', 'telemetry/a', 'telemetry/b', 'logs'];
const CONNECTORS = ['sink-0', 'sink-1'];
const targetOf = (connector: string): string => `/tmp/mqsim-chaos-${connector}.log`;

/**
 * The seeded plan of a chaos run: setup calls, then `steps` steps each of which is a due repair, a
 * fault (about one step in eight when faults are asked for) or an API operation. The first faults
 * take each requested kind in turn, so a run long enough has every kind at least once.
 */
export function generatePlan(options: ChaosOptions): ChaosStep[] {
  const rng = new SeededRandom(`${options.seed}/chaos-plan`);
  const plan: ChaosStep[] = [];
  let at = 0;
  const push = (step: { api: ApiCall } | { fault: ChaosFault }): void => {
    at += STEP_GAP_MS;
    plan.push({ at, ...step } as ChaosStep);
  };
  // Setup: tenants, replicated topics the sends go to, connectors whose targets the faults take down.
  for (const t of TENANTS.slice(1)) push({ api: { method: 'POST', path: '/api/cluster/tenant/create', body: { tenant_name: t } } });
  for (const topic of TOPICS.slice(0, 2))
    push({
      api: {
        method: 'POST',
        path: '/api/cluster/topic/create',
        body: {
          tenant: 'default',
          topic_name: topic,
          storage_type: 'EngineSegment',
          partition: 2,
          replication: Math.min(options.bug === 'uncleanElection' ? 2 : 3, options.nodes),
        },
      },
    });
  if (options.faults.includes('connector')) for (const c of CONNECTORS) push({ api: connectorCreate(c) });
  if (options.faults.includes('flapping'))
    push({
      api: {
        method: 'POST',
        path: '/api/cluster/config/set',
        body: { config_type: 'MqttFlappingDetect', config: JSON.stringify(FLAPPING_CONFIG) },
      },
    });

  const repairs: { dueStep: number; fault: ChaosFault }[] = [];
  let faultCount = 0;
  for (let i = 0; i < options.steps; i++) {
    const due = repairs.findIndex((r) => r.dueStep <= i);
    if (due >= 0) {
      push({ fault: repairs.splice(due, 1)[0].fault });
      continue;
    }
    if (options.faults.length > 0 && rng.chance(0.125)) {
      const kind = faultCount < options.faults.length ? options.faults[faultCount] : rng.pick(options.faults);
      faultCount++;
      const [fault, repair] = faultOf(kind, rng, options.nodes);
      push({ fault });
      if (repair) repairs.push({ dueStep: i + rng.int(10, 120), fault: repair });
      continue;
    }
    push({ api: apiOperation(rng, options) });
  }
  return plan;
}

function faultOf(kind: ChaosFaultKind, rng: SeededRandom, nodes: number): [ChaosFault, ChaosFault | null] {
  const node = rng.int(1, nodes);
  switch (kind) {
    case 'crash':
      return rng.chance(0.5)
        ? [{ kind: 'crash-leader' }, { kind: 'restart', node: 0 }]
        : [
            { kind: 'crash', node },
            { kind: 'restart', node },
          ];
    case 'partition': {
      const ids = Array.from({ length: nodes }, (_, i) => i + 1);
      return [
        {
          kind: 'partition',
          side: rng
            .shuffle(ids)
            .slice(0, rng.int(1, Math.max(1, Math.floor(nodes / 2))))
            .sort(),
        },
        { kind: 'heal' },
      ];
    }
    case 'loss':
      return [{ kind: 'loss', loss: rng.int(5, 30) / 100, duplicate: rng.int(0, 10) / 100, jitterMs: rng.int(0, 40) }, { kind: 'heal' }];
    case 'clock':
      return [{ kind: 'clock', jumpMs: rng.int(500, 5_000) }, null];
    case 'connector': {
      const target = targetOf(rng.pick(CONNECTORS));
      return [
        { kind: 'connector', target, down: true },
        { kind: 'connector', target, down: false },
      ];
    }
    case 'flapping':
      return [
        { kind: 'flapping', clientId: `flappy-${rng.int(0, 2)}`, attempts: FLAPPING_CONFIG.max_client_connections + rng.int(1, 3) },
        null,
      ];
    case 'leave':
      return [
        { kind: 'leave', node },
        { kind: 'rejoin', node: 0 },
      ];
  }
}

function connectorCreate(name: string): ApiCall {
  return {
    method: 'POST',
    path: '/api/cluster/connector/create',
    body: {
      tenant: 'default',
      connector_name: name,
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: targetOf(name) }),
      topic_name: '#',
      failure_strategy: { strategy: 'discard' },
    },
  };
}

/** A seeded API operation over small name pools, so creates, duplicates and deletes collide. */
function apiOperation(rng: SeededRandom, options: ChaosOptions): ApiCall {
  // With leave faults the small topics keep two copies: node leave refuses a node holding the only
  // in-sync copy of a segment, so single-copy topics everywhere would leave no node free to leave.
  const copies = options.faults.includes('leave') ? { replication: Math.min(2, options.nodes) } : {};
  const tenant = rng.pick(TENANTS);
  const roll = rng.int(0, 99);
  if (roll < 40)
    return {
      method: 'POST',
      path: '/api/mqtt/message/send',
      body: { tenant: 'default', topic: rng.pick(TOPICS.slice(0, 2)), payload: `m${rng.int(0, 1e6)}` },
    };
  if (roll < 48) return { method: 'POST', path: '/api/cluster/tenant/create', body: { tenant_name: `t-${rng.int(0, 5)}` } };
  if (roll < 52) return { method: 'POST', path: '/api/cluster/tenant/delete', body: { tenant_name: `t-${rng.int(0, 5)}` } };
  // Few user creates: each hashes its password with scrypt, the costliest call of the API.
  if (roll < 55)
    return {
      method: 'POST',
      path: '/api/cluster/user/create',
      body: { tenant, username: `u-${rng.int(0, 5)}`, password: 'p', is_superuser: rng.chance(0.2) },
    };
  if (roll < 57) return { method: 'POST', path: '/api/cluster/user/delete', body: { tenant, username: `u-${rng.int(0, 5)}` } };
  if (roll < 70) {
    return {
      method: 'POST',
      path: '/api/cluster/acl/create',
      body: {
        tenant,
        name: `acl-${rng.int(0, 5)}`,
        desc: '',
        resource_type: 'ClientId',
        resource_name: `c-${rng.int(0, 9)}`,
        topic: rng.pick(TOPICS),
        ip: '',
        action: rng.pick(['Publish', 'Subscribe', 'All']),
        permission: rng.pick(['Allow', 'Deny']),
      },
    };
  }
  if (roll < 73) return { method: 'POST', path: '/api/cluster/acl/delete', body: { tenant, name: `acl-${rng.int(0, 5)}` } };
  if (roll < 80)
    return {
      method: 'POST',
      path: '/api/cluster/topic/create',
      body: { tenant, topic_name: rng.pick(TOPICS.slice(2)), storage_type: 'EngineMemory', ...copies },
    };
  if (roll < 83) return { method: 'POST', path: '/api/cluster/topic/delete', body: { tenant, topic_name: rng.pick(TOPICS.slice(2)) } };
  if (roll < 86) return connectorCreate(`extra-${rng.int(0, 2)}`);
  if (roll < 88)
    return { method: 'POST', path: '/api/cluster/connector/delete', body: { tenant: 'default', connector_name: `extra-${rng.int(0, 2)}` } };
  return {
    method: 'GET',
    path: rng.pick(['/api/cluster/tenant/list', '/api/cluster/topic/list', '/api/cluster/connector/list', '/api/cluster/healthy']),
  };
}
