import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runStorageChaos, type StorageFault } from './testing/storage-chaos.ts';

const NODES = 5;
const DURATION_MS = 30_000;

/** A random fault schedule: faults at random gaps, on random nodes, with loss changes and heals. */
const faultSchedule = fc
  .array(
    fc.record({
      gapMs: fc.integer({ min: 200, max: 4_000 }),
      kind: fc.constantFrom('crash', 'restart', 'isolate', 'heal', 'loss'),
      node: fc.integer({ min: 1, max: NODES }),
      rate: fc.constantFrom(0, 0.05, 0.3),
    }),
    { maxLength: 16 },
  )
  .map((steps) => {
    let at = 0;
    return steps.map((s): StorageFault => {
      at += s.gapMs;
      if (s.kind === 'heal') return { atMs: at, kind: 'heal' };
      if (s.kind === 'loss') return { atMs: at, kind: 'loss', rate: s.rate };
      return { atMs: at, kind: s.kind, node: s.node };
    });
  });

describe('storage under random fault schedules (fast-check)', () => {
  it('never breaks a storage invariant, and every replica converges once the faults are healed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(2, 3),
        fc.boolean(),
        faultSchedule,
        (seed, replicas, smallSegments, faults) => {
          const run = runStorageChaos({
            seed,
            nodes: NODES,
            shards: 4,
            replicas,
            durationMs: DURATION_MS,
            faults,
            writesPerSecond: 25,
            lagTimeMs: 2_000,
            maxSegmentSize: smallSegments ? 300 : 1_000_000,
          });
          expect(run.violations).toEqual([]);
          expect(run.convergence).toEqual([]);
          // Healed and settled: every segment has a leader and all its replicas in sync again.
          for (const shard of run.cluster.storage.all()) {
            for (const seg of shard.segments) {
              expect(seg.available).toBe(true);
              expect(seg.isr).toHaveLength(seg.replicas.length);
              expect(seg.phase).not.toBe('PreSealUp');
            }
          }
        },
      ),
      { numRuns: 25, seed: 4242 },
    );
  });
});
