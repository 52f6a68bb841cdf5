import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { replicaOn } from './shard-model.ts';
import { runStorageChaos, seededFaults } from './testing/storage-chaos.ts';
import { defaultShardConfig } from './storage-engine.ts';
import { STORAGE_INVARIANTS } from './storage-invariants.ts';
import { crashNode, restartNode, runChecked } from './testing/storage-support.ts';

const names = (vs: { name: string }[]) => vs.map((v) => v.name).sort();

describe('storage invariants', () => {
  it('are registered under their names', () => {
    const c = new Cluster({ seed: 1, nodes: 3 }).start();
    expect(STORAGE_INVARIANTS).toEqual([
      'storage.monotonic-high-watermark',
      'storage.hw-at-most-isr-leo',
      'storage.leader-in-isr',
      'storage.monotonic-leader-epoch',
      'storage.no-acknowledged-write-lost',
      'storage.committed-data-identical',
    ]);
    for (const name of STORAGE_INVARIANTS) expect(c.invariants.names()).toContain(name);
  });

  const schedule = { seed: 'inv', nodes: 5, shards: 8, replicas: 3, durationMs: 60_000, writesPerSecond: 40, lagTimeMs: 3_000 };

  it('hold under a seeded fault schedule, and every replica converges afterwards', () => {
    const run = runStorageChaos({ ...schedule, faults: seededFaults('inv', 5, 60_000, 3_000) });
    expect(run.violations).toEqual([]);
    expect(run.convergence).toEqual([]);
    expect(run.written).toBeGreaterThan(1_000);
    for (const shard of run.cluster.storage.all()) {
      for (const seg of shard.segments) expect(seg.isr).toHaveLength(seg.replicas.length);
    }
  });

  it('catch a high watermark advanced past an ISR member (bug hwPastIsrMember)', () => {
    const run = runStorageChaos({ ...schedule, faults: seededFaults('inv', 5, 60_000, 3_000), bugs: { hwPastIsrMember: true } });
    expect(names(run.violations)).toContain('storage.hw-at-most-isr-leo');
  });

  it('catch an unclean leader election (bug uncleanElection) under a seeded fault schedule', () => {
    const faults = seededFaults('u1', 5, 60_000, 2_000);
    const run = runStorageChaos({ ...schedule, seed: 'u1', replicas: 2, faults, bugs: { uncleanElection: true } });
    expect(names(run.violations)).toEqual(expect.arrayContaining(['storage.no-acknowledged-write-lost', 'storage.hw-at-most-isr-leo']));
    // The same schedule without the bug breaks nothing.
    const clean = runStorageChaos({ ...schedule, seed: 'u1', replicas: 2, faults });
    expect(clean.violations).toEqual([]);
    expect(clean.convergence).toEqual([]);
  });

  it('catch an unclean election in the textbook case: the last ISR member dies, a stale replica comes back', () => {
    const c = new Cluster({ seed: 'textbook', nodes: 5 }).start();
    c.storage.bugs = { uncleanElection: true };
    runChecked(c, 1_000);
    let seg;
    for (let i = 0; ; i++) {
      c.storage.createShard({ shard_name: `t${i}`, config: defaultShardConfig(2, 'EngineSegment') });
      seg = c.storage.segment(`t${i}`, 0)!;
      if (seg.leaderNodeId !== c.storage.controller.controllerId()) break;
    }
    const leader = seg.leaderNodeId;
    const stale = seg.replicas.find((r) => r.nodeId !== leader)!.nodeId;
    crashNode(c, stale);
    expect(runChecked(c, 500)).toEqual([]);
    for (let i = 0; i < 3; i++) c.storage.appendToShard(seg.shard.name, { payload: `acked${i}` });
    expect(c.storage.highWatermark(seg.shard.name)).toBe(3);
    crashNode(c, leader);
    expect(runChecked(c, 500)).toEqual([]);
    restartNode(c, stale);
    const seen = runChecked(c, 1_000);
    expect(seg.leaderNodeId).toBe(stale);
    expect(replicaOn(seg, stale)!.log.nextOffset).toBe(0);
    expect(names(seen)).toEqual(['storage.hw-at-most-isr-leo', 'storage.no-acknowledged-write-lost']);
    expect(seen.find((v) => v.name === 'storage.no-acknowledged-write-lost')!.message).toContain('offset 0 was acknowledged');
  });

  it('catch committed records that differ between ISR members, and a leader epoch that does not move', () => {
    const c = new Cluster({ seed: 'tamper', nodes: 3 }).start();
    runChecked(c, 1_000);
    c.storage.createShard({ shard_name: 'x', config: defaultShardConfig(3, 'EngineSegment') });
    const seg = c.storage.segment('x', 0)!;
    for (let i = 0; i < 3; i++) c.storage.appendToShard('x', { payload: `v${i}` });
    expect(runChecked(c, 1_000)).toEqual([]);
    // Rewrite a follower's committed record behind the model's back.
    const follower = seg.replicas.find((r) => r.nodeId !== seg.leaderNodeId)!;
    const original = follower.log.get(2)!;
    follower.log.truncateTo(2);
    follower.log.appendStored({ ...original, payload: 'forged' });
    // And move the leader without a new epoch.
    seg.leaderNodeId = follower.nodeId;
    c.engine.advance(0);
    (c.storage as unknown as { journal: { touch(s: typeof seg): void } }).journal.touch(seg);
    const seen = c.invariants
      .checkAll(c.now(), 1)
      .map((v) => v.name)
      .filter((n) => n.startsWith('storage.'));
    expect(seen).toEqual(expect.arrayContaining(['storage.committed-data-identical', 'storage.monotonic-leader-epoch']));
  });
});
