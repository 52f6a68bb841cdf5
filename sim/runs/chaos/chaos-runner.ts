import { applyFault } from '../../model/cluster-ops/raft-fault-schedule.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { InvariantViolation } from '../../model/invariants/invariant-registry.ts';
import { RAFT_BUG_NAMES } from '../../model/raft/raft-bugs.ts';
import { flappingStorm } from '../../model/mqtt/flapping-storm.ts';
import { type ChaosFault, type ChaosFaultKind, type ChaosOptions, type ChaosStep } from './chaos-plan.ts';
import { dumpCluster, type ClusterDump } from './cluster-dump.ts';

/** "Sometimes" properties: how often the interesting things happened during the run. */
export interface ChaosCoverage {
  leader_changes: number;
  node_crashes: number;
  partitions: number;
  connector_failures: number;
  /** Flapping bans applied. */
  bans: number;
  /** Flapping bans that expired again. */
  bans_lifted: number;
  /** API calls answered code 0 / refused. */
  api_ok: number;
  api_refused: number;
  /** Fault steps that took effect, by requested kind (a skipped fault, e.g. crashing a down node, does not count). */
  faults: Record<string, number>;
}

export interface ChaosResult {
  seed: string;
  steps: number;
  events: number;
  trace_hash: string;
  invariants: Record<string, number>;
  violations: InvariantViolation[];
  coverage: ChaosCoverage;
  /** Requested fault kinds that never took effect: the run says nothing about them. */
  unexercised: string[];
  replay: string | null;
}

export interface RunOutcome {
  result: ChaosResult;
  cluster: Cluster;
  /** With `untilEvent`: the cluster state right after that event. */
  dump: ClusterDump | null;
  /** Index in the plan of the step during which the first violation was seen, or null. */
  failingStep: number | null;
}

/** Which requested fault family a fault step belongs to (repairs belong to their fault's family). */
function familyOf(fault: ChaosFault): ChaosFaultKind {
  switch (fault.kind) {
    case 'crash':
    case 'crash-leader':
    case 'restart':
      return 'crash';
    case 'leave':
    case 'rejoin':
      return 'leave';
    case 'heal':
    case 'partition':
      return 'partition';
    default:
      return fault.kind;
  }
}

/** Fault steps that count as the fault happening (repairs do not). */
const DISRUPTIONS = new Set(['crash', 'crash-leader', 'partition', 'loss', 'clock', 'connector-down', 'flapping', 'leave']);

/** What a run may be given besides its options and plan. */
export interface RunExtras {
  /** Stop right after this engine event and dump the cluster there. */
  untilEvent?: number;
  replay?: string | null;
  /**
   * Called on the fresh cluster before the first step: registers invariants besides the ones its
   * parts register (a test's throwaway invariant, CONTRIBUTING.md). It must not change the model.
   */
  prepare?: (cluster: Cluster) => void;
}

/**
 * Runs a chaos plan against a fresh in-process cluster: API calls through the admin app's handlers,
 * faults straight on the model, and every registered invariant checked after every engine event
 * (the engine's `onEvent` hook, which also covers the events run inside an API call that waits for
 * its meta-group commit). Stops at the end of the step in which the first violation was seen.
 */
export async function runPlan(options: ChaosOptions, plan: readonly ChaosStep[], extra: RunExtras = {}): Promise<RunOutcome> {
  const sim = new InProcessSim({ seed: options.seed, nodes: options.nodes, workload: 'none' });
  const cluster = sim.cluster;
  extra.prepare?.(cluster);
  const engine = cluster.engine;
  if (options.bug) switchOnBug(cluster, options.bug);
  const coverage = emptyCoverage(options.faults);
  countTraceRecords(engine, coverage);
  const watch = watchInvariants(cluster, extra.untilEvent);

  const start = cluster.now();
  let failingStep: number | null = null;
  for (let i = 0; i < plan.length; i++) {
    const step = plan[i];
    engine.runUntil(Math.max(cluster.now(), start + step.at));
    if ('api' in step) countApiAnswer(coverage, await sim.call(step.api.method, step.api.path, step.api.body));
    else countFault(coverage, step.fault, applyChaosFault(cluster, step.fault));
    watch.check();
    if (watch.violations.length > 0) {
      failingStep = i;
      break;
    }
    if (extra.untilEvent !== undefined && watch.dump !== null) break;
  }
  engine.onEvent = null;

  const result: ChaosResult = {
    seed: options.seed,
    steps: plan.length,
    events: watch.events,
    trace_hash: engine.trace.hash,
    invariants: cluster.invariants.checkCounts(),
    violations: watch.violations,
    coverage,
    unexercised: options.faults.filter((k) => (coverage.faults[k] ?? 0) === 0),
    replay: extra.replay ?? null,
  };
  return { result, cluster, dump: watch.dump, failingStep };
}

/** Switches on a deliberately buggy model variant: a Raft bug by its name, else a storage one. */
function switchOnBug(cluster: Cluster, bug: NonNullable<ChaosOptions['bug']>): void {
  if ((RAFT_BUG_NAMES as readonly string[]).includes(bug)) cluster.raft.bugs = { [bug]: true };
  else cluster.storage.bugs = { [bug]: true };
}

/** Coverage before the first step: every requested fault kind at 0, so one that never happens shows up as unexercised. */
function emptyCoverage(faults: readonly ChaosFaultKind[]): ChaosCoverage {
  const coverage: ChaosCoverage = {
    leader_changes: 0,
    node_crashes: 0,
    partitions: 0,
    connector_failures: 0,
    bans: 0,
    bans_lifted: 0,
    api_ok: 0,
    api_refused: 0,
    faults: {},
  };
  for (const k of faults) coverage.faults[k] = 0;
  return coverage;
}

/** Coverage comes from the trace's own records, observed as they are made. */
function countTraceRecords(engine: Cluster['engine'], coverage: ChaosCoverage): void {
  const record = engine.record.bind(engine);
  engine.record = (kind: string, detail: unknown): void => {
    record(kind, detail);
    if (kind === 'raft.leader') coverage.leader_changes++;
    else if (kind === 'node.crash') coverage.node_crashes++;
    else if (kind === 'net.partition') coverage.partitions++;
    else if (kind === 'connector.send' && (detail as { failed?: number }).failed) coverage.connector_failures++;
    else if (kind === 'mqtt.flapping.ban') coverage.bans++;
    else if (kind === 'mqtt.flapping.unban') coverage.bans_lifted++;
  };
}

/** The invariants as the run watches them: the first violation of each, the events seen, and the cluster dumped at `untilEvent`. */
interface InvariantWatch {
  violations: InvariantViolation[];
  events: number;
  dump: ClusterDump | null;
  /** Checks every registered invariant now, keeping the first violation of each. */
  check(): void;
}

/**
 * Hooks onto the engine's `onEvent`, so every invariant is checked after every engine event (the
 * events run inside an API call that waits for its meta-group commit too); the caller unhooks it.
 */
function watchInvariants(cluster: Cluster, untilEvent: number | undefined): InvariantWatch {
  const engine = cluster.engine;
  const seen = new Set<string>();
  const watch: InvariantWatch = {
    violations: [],
    events: 0,
    dump: null,
    check: () => {
      for (const v of cluster.invariants.checkAll(engine.now(), watch.events)) {
        if (seen.has(v.name)) continue;
        seen.add(v.name);
        watch.violations.push(v);
      }
    },
  };
  engine.onEvent = () => {
    watch.events++;
    watch.check();
    if (untilEvent === watch.events) watch.dump = dumpCluster(cluster, watch.events);
  };
  if (untilEvent === 0) watch.dump = dumpCluster(cluster, 0);
  return watch;
}

/** An API step's answer: accepted (code 0) or refused. */
function countApiAnswer(coverage: ChaosCoverage, res: Awaited<ReturnType<InProcessSim['call']>>): void {
  if (res.status === 200 && res.code === 0) coverage.api_ok++;
  else coverage.api_refused++;
}

/** A fault step that took effect and disrupts (repairs do not count) counts for its requested family. */
function countFault(coverage: ChaosCoverage, fault: ChaosFault, took: boolean): void {
  const label = fault.kind === 'connector' ? (fault.down ? 'connector-down' : 'connector-up') : fault.kind;
  if (took && DISRUPTIONS.has(label)) {
    const family = familyOf(fault);
    coverage.faults[family] = (coverage.faults[family] ?? 0) + 1;
  }
}

/** Applies one fault step now; returns whether it took effect. */
function applyChaosFault(cluster: Cluster, fault: ChaosFault): boolean {
  switch (fault.kind) {
    case 'crash':
      return !applyFault(cluster, { kind: fault.kind, node: fault.node }).startsWith('skipped');
    case 'leave':
      return leaveSomeNode(cluster, fault.node);
    case 'rejoin': {
      // node 0: every removed node rejoins wiped (the repair of a leave, whose node the plan cannot know).
      if (fault.node !== 0) return !applyFault(cluster, { kind: 'rejoin', node: fault.node }).startsWith('skipped');
      let any = false;
      for (const n of cluster.nodes.all().filter((x) => x.removed))
        any = !applyFault(cluster, { kind: 'rejoin', node: n.id }).startsWith('skipped') || any;
      return any;
    }
    case 'restart':
      // node 0: restart every crashed node (the repair of a leader crash, whose victim the plan cannot know).
      if (fault.node === 0) return !applyFault(cluster, { kind: 'restart-all' }).startsWith('skipped');
      return !applyFault(cluster, { kind: 'restart', node: fault.node }).startsWith('skipped');
    case 'crash-leader':
      return !applyFault(cluster, { kind: 'crash-leader', group: 0 }).startsWith('skipped');
    case 'partition':
      return !applyFault(cluster, { kind: 'partition', side: fault.side }).startsWith('skipped');
    case 'heal':
      cluster.network.heal();
      return true;
    case 'loss':
      cluster.network.configureAll({ loss: fault.loss, duplicate: fault.duplicate, jitterMs: fault.jitterMs });
      return true;
    case 'clock':
      // All nodes share one virtual clock: a jump moves every timer at once (timeouts, expiries, bans).
      cluster.engine.record('chaos.clock-jump', { ms: fault.jumpMs });
      cluster.engine.advance(fault.jumpMs);
      return true;
    case 'connector':
      cluster.connectors.setTargetDown(fault.target, fault.down);
      return true;
    case 'flapping':
      return flappingStorm(cluster, fault.clientId, fault.attempts).refused > 0;
  }
}

/** Longest the leave fault waits, after stopping the node, for its groups to have leaders again. */
const LEAVE_SETTLE_MS = 3_000;

/**
 * The leave fault as a careful operator does it: pick the node named, else the next id, that holds
 * no segment's only in-sync copy (node leave would lose those records) and whose groups have more
 * than 2 voters (node leave refuses those); stop it; wait (virtual time, bounded) until every group it
 * votes in has a leader again, since stopping a leader starts elections and a membership change
 * needs a leader; then leave. A refused leave restarts the node (`applyFault`). Returns whether a node left.
 */
function leaveSomeNode(cluster: Cluster, preferred: number): boolean {
  const ids = cluster.nodes.all().map((n) => n.id);
  const from = Math.max(0, ids.indexOf(preferred));
  for (let k = 0; k < ids.length; k++) {
    const id = ids[(from + k) % ids.length];
    const node = cluster.nodes.get(id)!;
    if (node.removed) continue;
    const groups = cluster.raft.groups().filter((g) => g.isVoter(id));
    if (groups.length === 0 || groups.some((g) => g.voters.length <= 2)) continue;
    // A careful operator: never the only holder of some records (node leave would lose them).
    if (cluster.storage.soleCopiesOn(id).length > 0) continue;
    if (node.online) cluster.nodes.stop(id);
    const deadline = cluster.now() + LEAVE_SETTLE_MS;
    while (cluster.now() < deadline && groups.some((g) => g.leaderId === null)) cluster.engine.advance(50);
    return !applyFault(cluster, { kind: 'leave', node: id }).startsWith('skipped');
  }
  return false;
}
