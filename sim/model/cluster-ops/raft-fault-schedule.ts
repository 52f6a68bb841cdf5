import { OperationError } from '../errors/operation-error.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { InvariantViolation } from '../invariants/invariant-registry.ts';
import type { Cluster } from '../cluster/cluster.ts';

/**
 * Fault schedules for the consensus groups: what the property tests, the buggy-variant tests and
 * the benchmark throw at a cluster. A fault names nodes by id and groups by their index in
 * `cluster.raft.names()`; one that does not apply at its time (restarting a running node, leaving
 * below the safe voter count) is skipped, which is itself part of the schedule's behaviour.
 */
export type RaftFault =
  | { kind: 'crash' | 'restart' | 'stop' | 'isolate' | 'leave' | 'rejoin'; node: number }
  | { kind: 'crash-leader' | 'isolate-leader' | 'tail-isolate'; group: number }
  | { kind: 'partition'; side: number[] }
  | { kind: 'heal' | 'restart-all' }
  | { kind: 'lossy'; loss: number; duplicate: number; jitterMs: number };

export interface ScheduledFault {
  /** Virtual ms after the start of the run. */
  atMs: number;
  fault: RaftFault;
}

/** The disruptive faults; each is undone by its repair (`repairOf`). */
export const DISRUPTIVE_FAULT_KINDS = [
  'crash',
  'stop',
  'isolate',
  'leave',
  'crash-leader',
  'isolate-leader',
  'tail-isolate',
  'partition',
  'lossy',
] as const satisfies readonly RaftFault['kind'][];

/** Applies one fault now; returns what happened (for reports), or why it was skipped. */
export function applyFault(cluster: Cluster, fault: RaftFault): string {
  const { nodes, network, raft } = cluster;
  const ids = nodes.all().map((n) => n.id);
  const leaderOf = (group: number): number | null => raft.get(raft.names()[group % raft.names().length])?.leaderId ?? null;
  try {
    switch (fault.kind) {
      case 'crash':
      case 'stop': {
        if (!nodes.get(fault.node)?.online) return `skipped: node ${fault.node} is down`;
        if (fault.kind === 'crash') nodes.crash(fault.node);
        else nodes.stop(fault.node);
        return `${fault.kind} ${fault.node}`;
      }
      case 'restart': {
        const node = nodes.get(fault.node);
        if (!node || node.online || node.removed) return `skipped: node ${fault.node} cannot restart`;
        nodes.restart(fault.node);
        return `restart ${fault.node}`;
      }
      case 'isolate':
        network.isolate(fault.node, ids);
        return `isolate ${fault.node}`;
      case 'leave': {
        const node = nodes.get(fault.node);
        if (!node || node.removed) return `skipped: node ${fault.node} already left`;
        const wasOnline = node.online;
        if (wasOnline) nodes.stop(fault.node);
        try {
          nodes.leave(fault.node);
        } catch (e) {
          // A refused leave leaves the node a member: bring back the process the fault stopped.
          if (wasOnline && e instanceof OperationError) nodes.restart(fault.node);
          throw e;
        }
        return `leave ${fault.node}`;
      }
      case 'rejoin': {
        const node = nodes.get(fault.node);
        if (!node?.removed || node.online) return `skipped: node ${fault.node} did not leave`;
        nodes.start(fault.node, { wiped: true });
        return `rejoin ${fault.node}`;
      }
      case 'crash-leader':
      case 'isolate-leader':
      case 'tail-isolate': {
        const leader = leaderOf(fault.group);
        if (leader === null) return 'skipped: no leader';
        if (fault.kind === 'crash-leader') nodes.crash(leader);
        else {
          // A leader cut off right after accepting a write: an uncommitted tail that a later leader must discard.
          if (fault.kind === 'tail-isolate') raft.tryWrite(raft.names()[fault.group % raft.names().length], 'tail');
          network.isolate(leader, ids);
        }
        return `${fault.kind} ${leader}`;
      }
      case 'partition':
        network.partition(
          fault.side,
          ids.filter((id) => !fault.side.includes(id)),
        );
        return `partition ${fault.side.join(',')}`;
      case 'heal':
        network.heal();
        return 'heal';
      case 'restart-all': {
        const down = nodes.all().filter((n) => !n.online && !n.removed);
        for (const n of down) nodes.restart(n.id);
        return `restart ${down.map((n) => n.id).join(',') || 'none'}`;
      }
      case 'lossy':
        network.configureAll({ loss: fault.loss, duplicate: fault.duplicate, jitterMs: fault.jitterMs });
        return `lossy ${fault.loss}/${fault.duplicate}/${fault.jitterMs}`;
    }
  } catch (e) {
    // Refusals of the model (quorum rules, no leader) are outcomes, not errors of the schedule.
    if (e instanceof OperationError) return `skipped: ${e.message}`;
    throw e;
  }
}

/**
 * A seeded schedule of `count` disruptive faults spread over `durationMs` (gaps of 1/4 to 7/4 of the
 * mean), each followed by its repair after 1/2 to 3 mean gaps, so faults overlap but the cluster
 * keeps coming back: crash and stop by a restart, a leader crash by restarting every stopped node,
 * partitions and lossy links by a heal, a leave by a wiped rejoin.
 */
export function randomFaultSchedule(
  rng: SeededRandom,
  options: { durationMs: number; count: number; nodes: number; groups: number; kinds?: readonly RaftFault['kind'][] },
): ScheduledFault[] {
  const kinds = options.kinds ?? DISRUPTIVE_FAULT_KINDS;
  const mean = options.durationMs / Math.max(1, options.count);
  const out: ScheduledFault[] = [];
  let at = 0;
  for (let i = 0; i < options.count; i++) {
    at += rng.int(Math.ceil(mean / 4), Math.ceil((mean * 7) / 4));
    if (at >= options.durationMs) break;
    const fault = faultOf(rng.pick(kinds), rng, options.nodes, options.groups);
    out.push({ atMs: at, fault });
    const repair = repairOf(fault);
    if (repair) out.push({ atMs: at + rng.int(Math.ceil(mean / 2), Math.ceil(mean * 3)), fault: repair });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** The fault that undoes `fault`, if any. */
function repairOf(fault: RaftFault): RaftFault | null {
  switch (fault.kind) {
    case 'crash':
    case 'stop':
      return { kind: 'restart', node: fault.node };
    case 'crash-leader':
      return { kind: 'restart-all' };
    case 'leave':
      return { kind: 'rejoin', node: fault.node };
    case 'isolate':
    case 'isolate-leader':
    case 'tail-isolate':
    case 'partition':
    case 'lossy':
      return { kind: 'heal' };
    default:
      return null;
  }
}

function faultOf(kind: RaftFault['kind'], rng: SeededRandom, nodes: number, groups: number): RaftFault {
  switch (kind) {
    case 'crash-leader':
    case 'isolate-leader':
    case 'tail-isolate':
      return { kind, group: rng.int(0, groups - 1) };
    case 'partition':
      return { kind, side: rng.shuffle(Array.from({ length: nodes }, (_, i) => i + 1)).slice(0, rng.int(1, Math.floor(nodes / 2))) };
    case 'heal':
    case 'restart-all':
      return { kind };
    case 'lossy':
      return { kind, loss: rng.int(0, 20) / 100, duplicate: rng.int(0, 20) / 100, jitterMs: rng.int(0, 50) };
    default:
      return { kind, node: rng.int(1, nodes) };
  }
}

export interface FaultRunResult {
  violations: readonly InvariantViolation[];
  /** Virtual ms after the start when the first violation was seen, or null. */
  violationAtMs: number | null;
  applied: string[];
  events: number;
  writes: number;
}

/**
 * Runs `schedule` over `durationMs` of virtual time with a write every `writeEveryMs` (to a seeded
 * group's leader, not awaited), checking every registered invariant after every instant of the
 * engine. Stops at the first violation.
 */
export function runFaultSchedule(
  cluster: Cluster,
  schedule: readonly ScheduledFault[],
  options: { durationMs: number; writeEveryMs?: number; rng?: SeededRandom },
): FaultRunResult {
  const { engine, raft } = cluster;
  const rng = options.rng ?? engine.random.fork('fault-schedule');
  const start = cluster.now();
  const end = start + options.durationMs;
  const writeEvery = options.writeEveryMs ?? 100;
  const events0 = engine.eventsProcessed;
  const applied: string[] = [];
  let nextWrite = start + writeEvery;
  let writes = 0;
  let k = 0;
  for (;;) {
    const violations = cluster.invariants.checkAll(cluster.now(), engine.eventsProcessed);
    if (violations.length > 0)
      return { violations, violationAtMs: cluster.now() - start, applied, events: engine.eventsProcessed - events0, writes };
    if (cluster.now() >= end) break;
    while (k < schedule.length && start + schedule[k].atMs <= cluster.now())
      applied.push(`${schedule[k].atMs}: ${applyFault(cluster, schedule[k++].fault)}`);
    if (cluster.now() >= nextWrite) {
      nextWrite += writeEvery;
      if (raft.tryWrite(rng.pick(raft.names()), 'write')) writes++;
    }
    const nextEvent = engine.queue.peek()?.at ?? end;
    const nextFault = k < schedule.length ? start + schedule[k].atMs : end;
    engine.runUntil(Math.max(cluster.now(), Math.min(nextEvent, nextFault, nextWrite, end)));
  }
  return { violations: [], violationAtMs: null, applied, events: engine.eventsProcessed - events0, writes };
}
