import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { applyFault, runFaultSchedule, type RaftFault, type ScheduledFault } from '../cluster-ops/raft-fault-schedule.ts';
import { fullLogAudit } from './raft-log-audit.ts';

/**
 * Property: whatever the fault schedule — crashes and restarts, graceful stops, partitions (one node
 * or several) and heals, loss, duplication and reordering, node leaves and wiped rejoins — no Raft
 * invariant breaks over a few virtual minutes, the logs agree at the end, and once every fault is
 * repaired every group elects a leader and commits again. fast-check prints the seed and the
 * shrunk schedule of a failure; `seed` is also the cluster's.
 */

const faultArb = (nodes: number, groups: number): fc.Arbitrary<RaftFault> => {
  const node = fc.integer({ min: 1, max: nodes });
  const group = fc.integer({ min: 0, max: groups - 1 });
  return fc.oneof(
    fc.record({
      kind: fc.constantFrom('crash' as const, 'restart' as const, 'stop' as const, 'isolate' as const, 'leave' as const, 'rejoin' as const),
      node,
    }),
    fc.record({ kind: fc.constantFrom('crash-leader' as const, 'isolate-leader' as const, 'tail-isolate' as const), group }),
    fc.record({ kind: fc.constant('partition' as const), side: fc.uniqueArray(node, { minLength: 1, maxLength: Math.floor(nodes / 2) }) }),
    fc.record({ kind: fc.constantFrom('heal' as const, 'restart-all' as const) }),
    fc.record({
      kind: fc.constant('lossy' as const),
      loss: fc.integer({ min: 0, max: 30 }).map((p) => p / 100),
      duplicate: fc.integer({ min: 0, max: 30 }).map((p) => p / 100),
      jitterMs: fc.integer({ min: 0, max: 80 }),
    }),
  );
};

const GROUPS = 4; // meta, mqtt, offset, data
const DURATION_MS = 180_000;

const scenarioArb = fc.constantFrom(3, 5).chain((nodes) =>
  fc.record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    nodes: fc.constant(nodes),
    writeEveryMs: fc.integer({ min: 20, max: 1_000 }),
    steps: fc.array(fc.record({ gapMs: fc.integer({ min: 50, max: 8_000 }), fault: faultArb(nodes, GROUPS) }), {
      minLength: 1,
      maxLength: 50,
    }),
  }),
);

function scheduleOf(steps: { gapMs: number; fault: RaftFault }[]): ScheduledFault[] {
  let at = 0;
  return steps.map((s) => ({ atMs: (at += s.gapMs), fault: s.fault }));
}

describe('Raft under random fault schedules (property)', () => {
  it('never breaks an invariant, keeps the logs consistent, and recovers once the faults are repaired', () => {
    fc.assert(
      fc.property(scenarioArb, ({ seed, nodes, writeEveryMs, steps }) => {
        const cluster = new Cluster({ seed, nodes, workload: 'none' }).start();
        const result = runFaultSchedule(cluster, scheduleOf(steps), { durationMs: DURATION_MS, writeEveryMs });
        expect(result.violations, result.applied.join('\n')).toEqual([]);

        // Repair everything: heal the network, restart every stopped member, let the groups settle.
        applyFault(cluster, { kind: 'heal' });
        applyFault(cluster, { kind: 'restart-all' });
        cluster.engine.advance(10_000);
        for (const g of cluster.raft.groups()) {
          expect(g.leaderId, `group ${g.name} has no leader after repair`).not.toBeNull();
          cluster.raft.commitWrite(g.name, 'after-repair'); // commits, or throws
          expect(fullLogAudit(g.core)).toEqual([]);
        }
        expect(cluster.invariants.checkAll(cluster.now(), 0)).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });
});
