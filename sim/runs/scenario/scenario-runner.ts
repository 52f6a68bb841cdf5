import { OperationError } from '../../model/errors/operation-error.ts';
import type { ChaosBug } from '../chaos/chaos-plan.ts';
import { applyFault } from '../../model/cluster-ops/raft-fault-schedule.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { InvariantViolation } from '../../model/invariants/invariant-registry.ts';
import { RAFT_BUG_NAMES } from '../../model/raft/raft-bugs.ts';
import { flappingStorm } from '../../model/mqtt/flapping-storm.ts';
import { activeSegment } from '../../model/storage/shard-model.ts';
import type { NodeRef, ScenarioCheck, ScenarioFault, ScenarioFile, ScenarioStep } from './scenario-file.ts';

/** Virtual ms before each step unless it says otherwise: above the 20 ms per-path rate-limit spacing. */
const STEP_GAP_MS = 50;
const PHASES = ['setup', 'workload', 'faults', 'heal'] as const;

interface CheckOutcome {
  /** `eventually[i] KIND` for eventually-checks, `PHASE[i]` for a step's expectation, `invariants`. */
  name: string;
  passed: boolean;
  /** Virtual ms after the end of the heal phase when an eventually-check first held (null if never). */
  at_ms: number | null;
  message: string;
}

export interface ScenarioResult {
  scenario: string;
  seed: string;
  bug: ChaosBug | null;
  passed: boolean;
  checks: CheckOutcome[];
  violations: InvariantViolation[];
  events: number;
  trace_hash: string;
}

/** Payloads the API accepted, and those of them the storage acknowledged (high watermark passed), per topic. */
class AckTracker {
  private readonly sent = new Map<string, Set<string>>();
  readonly acked = new Map<string, Set<string>>();

  constructor(private readonly cluster: Cluster) {}

  onSend(tenant: string, topic: string, payload: string): void {
    const key = `${tenant}/${topic}`;
    let set = this.sent.get(key);
    if (!set) this.sent.set(key, (set = new Set()));
    set.add(payload);
  }

  /** Moves sent payloads that now sit below their partition's high watermark to the acknowledged set. */
  observe(): void {
    for (const [key, pending] of this.sent) {
      if (pending.size === 0) continue;
      const slash = key.indexOf('/');
      for (const p of committedPayloads(this.cluster, key.slice(0, slash), key.slice(slash + 1))) {
        if (!pending.delete(p)) continue;
        let set = this.acked.get(key);
        if (!set) this.acked.set(key, (set = new Set()));
        set.add(p);
      }
    }
  }
}

/** Payloads of every partition of a topic below the high watermark, as the storage serves them. */
function committedPayloads(cluster: Cluster, tenant: string, topic: string): Set<string> {
  const out = new Set<string>();
  const rec = cluster.topics.get(tenant, topic);
  if (!rec) return out;
  for (const name of rec.storage_name_list) {
    const shard = cluster.storage.get(name);
    if (!shard) continue;
    try {
      for (const r of cluster.storage.read(name, shard.logStartOffset, 1_000_000)) out.add(r.payload);
    } catch (e) {
      if (!(e instanceof OperationError)) throw e; // an unavailable partition reads as nothing for now
    }
  }
  return out;
}

function topicShard(cluster: Cluster, ref: string) {
  const slash = ref.indexOf('/');
  const rec = cluster.topics.get(ref.slice(0, slash), ref.slice(slash + 1));
  const shard = rec ? cluster.storage.get(rec.storage_name_list[0]) : undefined;
  if (!shard) throw new ScenarioError(`topic ${ref} does not exist (yet)`);
  return shard;
}

/** A step that cannot run (a selector naming nothing): the scenario fails with this message. */
class ScenarioError extends Error {}

/** Resolves a node reference to node ids (one, except `topic-followers:`). */
function resolveNodes(cluster: Cluster, ref: NodeRef): number[] {
  if (typeof ref === 'number') return [ref];
  const [kind, arg] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
  if (kind === 'group-leader') {
    const leader = cluster.raft.get(arg)?.leaderId ?? null;
    if (leader === null) throw new ScenarioError(`${ref}: the group has no leader`);
    return [leader];
  }
  const seg = activeSegment(topicShard(cluster, arg));
  if (kind === 'topic-leader') return [seg.leaderNodeId];
  return seg.replicas.map((r) => r.nodeId).filter((n) => n !== seg.leaderNodeId);
}

function applyScenarioFault(cluster: Cluster, fault: ScenarioFault): string {
  switch (fault.kind) {
    case 'crash':
    case 'stop':
    case 'restart':
    case 'leave':
    case 'rejoin':
    case 'isolate':
      return resolveNodes(cluster, fault.node)
        .map((node) => applyFault(cluster, { kind: fault.kind, node }))
        .join('; ');
    case 'restart-all':
    case 'heal':
      return applyFault(cluster, { kind: fault.kind });
    case 'partition': {
      const side = [...new Set(fault.side.flatMap((r) => resolveNodes(cluster, r)))].sort((a, b) => a - b);
      return applyFault(cluster, { kind: 'partition', side });
    }
    case 'loss':
      return applyFault(cluster, { kind: 'lossy', loss: fault.loss, duplicate: fault.duplicate ?? 0, jitterMs: fault.jitterMs ?? 0 });
    case 'clock':
      cluster.engine.record('chaos.clock-jump', { ms: fault.jumpMs });
      cluster.engine.advance(fault.jumpMs);
      return `clock +${fault.jumpMs} ms`;
    case 'skew':
      for (const id of resolveNodes(cluster, fault.node)) cluster.nodes.setClockSkew(id, fault.offsetMs);
      return `skew ${fault.offsetMs} ms`;
    case 'connector':
      cluster.connectors.setTargetDown(fault.target, fault.down);
      return `connector target ${fault.down ? 'down' : 'up'}`;
    case 'flapping':
      return `flapping ${fault.clientId}: ${flappingStorm(cluster, fault.clientId, fault.attempts, fault.tenant ?? 'default').refused} refused`;
  }
}

/** The node an admin client talks to: the lowest-numbered running one (a client fails over along its address list). */
function liveNode(cluster: Cluster): number {
  return cluster.nodes.online()[0]?.id ?? 1;
}

/** Replaces `{i}` in every string of a JSON value. */
function withIndex(value: unknown, i: number): unknown {
  if (typeof value === 'string') return value.replaceAll('{i}', String(i));
  if (Array.isArray(value)) return value.map((v) => withIndex(v, i));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIndex(v, i)]));
  return value;
}

interface CheckState {
  /** For client-banned-then-admitted: whether the ban was seen. */
  banned?: boolean;
}

/**
 * Runs a scenario on a fresh in-process cluster: API calls through the admin app's handlers (the
 * same as `serve`), faults on the model, every registered invariant checked after every engine
 * event. After the heal phase the eventually-checks are polled every `poll_ms` of virtual time until
 * all have held or `within_ms` passed. One seed, one run: the trace hash says so.
 */
export async function runScenario(file: ScenarioFile, overrides: { seed?: string; bug?: ChaosBug | null } = {}): Promise<ScenarioResult> {
  const seed = overrides.seed ?? file.seed;
  const bug = overrides.bug !== undefined ? overrides.bug : (file.bug ?? null);
  const sim = new InProcessSim({ seed, nodes: file.nodes, workload: 'none' });
  const cluster = sim.cluster;
  const engine = cluster.engine;
  if (bug) seedBug(cluster, bug);
  const checks: CheckOutcome[] = [];
  const violations: InvariantViolation[] = [];
  const seen = new Set<string>();
  let events = 0;
  const check = (): void => {
    for (const v of cluster.invariants.checkAll(engine.now(), events)) {
      if (seen.has(v.name)) continue;
      seen.add(v.name);
      violations.push(v);
    }
  };
  const bans = watchBans(engine);
  engine.onEvent = () => {
    events++;
    check();
  };
  const acks = new AckTracker(cluster);
  const wait = (ms: number): void => {
    engine.runUntil(cluster.now() + ms);
    acks.observe();
    check();
  };

  const runStep = async (phase: string, index: number, step: ScenarioStep): Promise<void> => {
    const name = `${phase}[${index}]`;
    if ('wait_ms' in step) return wait(step.wait_ms);
    if ('fault' in step) {
      wait(STEP_GAP_MS);
      const refused = faultStep(cluster, name, step.fault);
      if (refused) checks.push(refused);
      acks.observe();
      check();
      return;
    }
    const repeat = step.repeat ?? 1;
    for (let i = 0; i < repeat; i++) {
      wait(step.gap_ms ?? STEP_GAP_MS);
      const body = step.api.body === undefined ? undefined : (withIndex(step.api.body, i) as Record<string, unknown>);
      const res = await sim.call(step.api.method, step.api.path, body, { nodeId: liveNode(cluster) });
      const ok = res.status === 200 && res.json?.code === 0;
      if (ok && step.api.path === '/api/mqtt/message/send' && body)
        acks.onSend(String(body.tenant), String(body.topic), String(body.payload));
      const verdict = apiStepVerdict(step, `${name}#${i}`, res, ok);
      if (verdict) checks.push(verdict);
      acks.observe();
      check();
    }
  };

  for (const phase of PHASES) {
    const steps = file[phase] ?? [];
    for (let i = 0; i < steps.length; i++) await runStep(phase, i, steps[i]);
  }

  const { heldAt, last } = await pollEventually(file, { sim, cluster, acks, bans }, wait);
  engine.onEvent = null;
  checks.push(...file.eventually.checks.map((_, i) => eventuallyOutcome(file, i, heldAt[i], last[i])));
  checks.push(invariantsOutcome(cluster, violations, events));
  return {
    scenario: file.name,
    seed,
    bug,
    passed: checks.every((c) => c.passed),
    checks,
    violations,
    events,
    trace_hash: engine.trace.hash,
  };
}

/** The clients the flapping detection bans during the run (`tenant/clientId`), seen as the engine records them. */
function watchBans(engine: Cluster['engine']): Set<string> {
  const bans = new Set<string>();
  const record = engine.record.bind(engine);
  engine.record = (kind: string, detail: unknown): void => {
    record(kind, detail);
    if (kind === 'mqtt.flapping.ban') {
      const d = detail as { tenant: string; clientId: string };
      bans.add(`${d.tenant}/${d.clientId}`);
    }
  };
  return bans;
}

/** Turns the seeded bug on in the layer it belongs to (raft or storage). */
function seedBug(cluster: Cluster, bug: ChaosBug): void {
  if ((RAFT_BUG_NAMES as readonly string[]).includes(bug)) cluster.raft.bugs = { [bug]: true };
  else cluster.storage.bugs = { [bug]: true };
}

/** The outcome of an API step's call against what the step expects; undefined when nothing is to be said. */
function apiStepVerdict(
  step: Extract<ScenarioStep, { api: unknown }>,
  name: string,
  res: { status: number; text: string; json?: { code?: unknown; message?: unknown } | null },
  ok: boolean,
): CheckOutcome | undefined {
  const message = String(res.json?.message ?? res.text).slice(0, 300);
  if (step.expect === 'ok' && !ok)
    return {
      name,
      passed: false,
      at_ms: null,
      message: `${step.api.method} ${step.api.path} expected code 0, got HTTP ${res.status} code ${res.json?.code}: ${message}`,
    };
  if (step.expect !== 'refused') return undefined;
  const good = !ok && (step.message_contains === undefined || message.includes(step.message_contains));
  return {
    name,
    passed: good,
    at_ms: null,
    message: good
      ? `refused as expected: ${message}`
      : ok
        ? `${step.api.path} expected a refusal, got code 0`
        : `refusal text lacks ${JSON.stringify(step.message_contains)}: ${message}`,
  };
}

/**
 * Polls the eventually-checks every `poll_ms` of virtual time until every one held once, or the
 * deadline: when each held (ms after the heal, null if never) and its last problem.
 */
async function pollEventually(
  file: ScenarioFile,
  ctx: EvalContext,
  wait: (ms: number) => void,
): Promise<{ heldAt: (number | null)[]; last: (string | null)[] }> {
  const { cluster, acks } = ctx;
  const healedAt = cluster.now();
  const deadline = healedAt + file.eventually.within_ms;
  const poll = file.eventually.poll_ms ?? 200;
  const state: CheckState[] = file.eventually.checks.map(() => ({}));
  const last: (string | null)[] = file.eventually.checks.map(() => 'not evaluated');
  const heldAt: (number | null)[] = file.eventually.checks.map(() => null);
  for (;;) {
    acks.observe();
    for (let i = 0; i < file.eventually.checks.length; i++) {
      if (heldAt[i] !== null) continue;
      const problem = await evaluate(file.eventually.checks[i], state[i], ctx);
      last[i] = problem;
      if (problem === null) heldAt[i] = cluster.now() - healedAt;
    }
    if (heldAt.every((t) => t !== null) || cluster.now() >= deadline) break;
    wait(Math.min(poll, deadline - cluster.now()));
  }
  return { heldAt, last };
}

/** Applies a fault step (recorded in the trace); a failed check when the fault cannot run. */
function faultStep(cluster: Cluster, name: string, fault: Extract<ScenarioStep, { fault: unknown }>['fault']): CheckOutcome | undefined {
  try {
    const what = applyScenarioFault(cluster, fault);
    cluster.engine.record('scenario.fault', { step: name, what });
    return undefined;
  } catch (e) {
    if (!(e instanceof ScenarioError || e instanceof OperationError)) throw e;
    return { name, passed: false, at_ms: null, message: `fault ${fault.kind} could not run: ${e.message}` };
  }
}

/** The outcome of the i-th eventually-check: held (when, after the heal) or its last problem. */
function eventuallyOutcome(file: ScenarioFile, i: number, heldAt: number | null, last: string | null): CheckOutcome {
  return {
    name: `eventually[${i}] ${file.eventually.checks[i].check}`,
    passed: heldAt !== null,
    at_ms: heldAt,
    message: heldAt !== null ? `held ${heldAt} ms after heal` : `not within ${file.eventually.within_ms} ms: ${last}`,
  };
}

/** The outcome of the invariants checked after every engine event. */
function invariantsOutcome(cluster: Cluster, violations: readonly InvariantViolation[], events: number): CheckOutcome {
  return {
    name: 'invariants',
    passed: violations.length === 0,
    at_ms: null,
    message:
      violations.length === 0
        ? `${Object.keys(cluster.invariants.checkCounts()).length} invariants held after each of ${events} events`
        : violations.map((v) => `${v.name} at event ${v.event}: ${v.message}`).join('; '),
  };
}

interface EvalContext {
  sim: InProcessSim;
  cluster: Cluster;
  acks: AckTracker;
  bans: Set<string>;
}

/** null when the check holds now, else what is wrong. */
async function evaluate(c: ScenarioCheck, state: CheckState, ctx: EvalContext): Promise<string | null> {
  const { sim, cluster } = ctx;
  switch (c.check) {
    case 'leader-per-group': {
      const res = await sim.get('/api/status', { nodeId: liveNode(cluster) });
      const meta = res.json?.data?.meta as Record<string, { current_leader?: number | null }> | undefined;
      if (!meta) return `GET /api/status gave no meta section (HTTP ${res.status})`;
      const leaderless = Object.entries(meta)
        .filter(([, g]) => g.current_leader === null || g.current_leader === undefined || g.current_leader === 0)
        .map(([n]) => n);
      return leaderless.length === 0 ? null : `no leader in ${leaderless.join(', ')}`;
    }
    case 'node-count': {
      const res = await sim.get('/api/status', { nodeId: liveNode(cluster) });
      const list = res.json?.data?.broker_node_list as unknown[] | undefined;
      if (!Array.isArray(list)) return `GET /api/status gave no broker_node_list (HTTP ${res.status})`;
      return list.length === c.equals ? null : `broker_node_list has ${list.length} nodes, expected ${c.equals}`;
    }
    case 'topic-acked': {
      const acked = ctx.acks.acked.get(`${c.tenant}/${c.topic}`) ?? new Set<string>();
      if (acked.size < (c.min_acked ?? 1))
        return `only ${acked.size} acknowledged records, expected at least ${c.min_acked ?? 1} (the check would prove nothing)`;
      const now = committedPayloads(cluster, c.tenant, c.topic);
      const missing = [...acked].filter((p) => !now.has(p));
      return missing.length === 0
        ? null
        : `${missing.length} of ${acked.size} acknowledged records are not readable, e.g. ${missing.slice(0, 3).join(', ')}`;
    }
    case 'isr-size': {
      const rec = cluster.topics.get(c.tenant, c.topic);
      if (!rec) return `topic ${c.tenant}/${c.topic} does not exist`;
      for (const name of rec.storage_name_list) {
        const seg = activeSegment(cluster.storage.get(name)!);
        if (!seg.available) return `${name}: segment ${seg.seq} is Unavailable`;
        if (seg.isr.length < c.min) return `${name}: ISR ${JSON.stringify(seg.isr)} has fewer than ${c.min} members`;
      }
      return null;
    }
    case 'connector':
      return connectorProblem(c, ctx);
    case 'client-banned-then-admitted': {
      const tenant = c.tenant ?? 'default';
      if (!state.banned) {
        if (!ctx.bans.has(`${tenant}/${c.client}`)) return `client ${c.client} was never banned`;
        state.banned = true;
      }
      if (cluster.mqtt.flapping.isBanned(tenant, c.client)) return `client ${c.client} is still banned`;
      const r = cluster.mqtt.connect({ tenant, clientId: c.client });
      if (!r.ok) return `client ${c.client} was banned, but its connect is refused: ${r.reason}`;
      cluster.mqtt.disconnect(c.client, tenant);
      return null;
    }
    case 'record-timestamps-skewed': {
      // A record stamped by the skewed leader reads as written in the future (offset > 0) by about the offset.
      const ahead = [...timestamps(cluster, c.tenant, c.topic)].filter((t) => t - cluster.now() >= c.offsetMs / 2);
      return ahead.length > 0 ? null : `no record of ${c.tenant}/${c.topic} is stamped ${c.offsetMs / 2}+ ms ahead of the true time`;
    }
    case 'api': {
      const res = await sim.call(c.method, c.path, c.body, { nodeId: liveNode(cluster) });
      if (c.code !== undefined && res.json?.code !== c.code)
        return `${c.path}: code ${res.json?.code}, expected ${c.code}: ${res.json?.message ?? res.text.slice(0, 200)}`;
      if (c.data_length_min !== undefined) {
        const data = res.json?.data;
        const n = Array.isArray(data) ? data.length : Array.isArray(data?.data) ? data.data.length : -1;
        if (n < c.data_length_min) return `${c.path}: ${n} items, expected at least ${c.data_length_min}`;
      }
      return null;
    }
  }
}

/** null when the connector is listed with the status, dead letters and send totals the check asks for, else what is wrong. */
async function connectorProblem(c: Extract<ScenarioCheck, { check: 'connector' }>, ctx: EvalContext): Promise<string | null> {
  const { sim, cluster } = ctx;
  const list = await sim.get(`/api/cluster/connector/list?tenant=${encodeURIComponent(c.tenant)}`, { nodeId: liveNode(cluster) });
  const rows = (list.json?.data?.data ?? list.json?.data ?? []) as { connector_name: string; status: string }[];
  const row = Array.isArray(rows) ? rows.find((r) => r.connector_name === c.connector) : undefined;
  if (!row) return `connector ${c.connector} is not listed`;
  if (c.status && row.status !== c.status) return `status ${row.status}, expected ${c.status}`;
  const dead = committedPayloads(cluster, c.tenant, 'dead_letter_queue').size;
  if (c.dead_letters_min !== undefined && dead < c.dead_letters_min) return `${dead} dead letters, expected at least ${c.dead_letters_min}`;
  if (c.dead_letters_max !== undefined && dead > c.dead_letters_max) return `${dead} dead letters, expected at most ${c.dead_letters_max}`;
  if (c.fail_min !== undefined || c.sent_min !== undefined) {
    const d = await sim.get(
      `/api/cluster/connector/detail?tenant=${encodeURIComponent(c.tenant)}&connector_name=${encodeURIComponent(c.connector)}`,
      { nodeId: liveNode(cluster) },
    );
    if (d.json?.code !== 0) return `connector detail refused: ${d.json?.message}`;
    if (c.fail_min !== undefined && d.json.data.send_fail_total < c.fail_min)
      return `send_fail_total ${d.json.data.send_fail_total}, expected at least ${c.fail_min}`;
    if (c.sent_min !== undefined && d.json.data.send_success_total < c.sent_min)
      return `send_success_total ${d.json.data.send_success_total}, expected at least ${c.sent_min}`;
  }
  return null;
}

function* timestamps(cluster: Cluster, tenant: string, topic: string): Generator<number> {
  const rec = cluster.topics.get(tenant, topic);
  if (!rec) return;
  for (const name of rec.storage_name_list) {
    const shard = cluster.storage.get(name);
    if (!shard) continue;
    try {
      for (const r of cluster.storage.read(name, shard.logStartOffset, 1_000_000)) yield r.timestampMs;
    } catch (e) {
      if (!(e instanceof OperationError)) throw e;
    }
  }
}
