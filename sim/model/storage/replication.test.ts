import { describe, expect, it } from 'vitest';
import { OperationError } from '../errors/operation-error.ts';
import { Cluster } from '../cluster/cluster.ts';
import { leaderReplica, replicaOn, type Segment } from './shard-model.ts';
import { defaultShardConfig } from './storage-engine.ts';
import { crashNode, restartNode, runChecked } from './testing/storage-support.ts';

function cluster(nodes = 3, seed: string | number = 'repl'): Cluster {
  const c = new Cluster({ seed, nodes }).start();
  c.engine.advance(1_000);
  return c;
}

function shard(c: Cluster, name: string, replicas: number): Segment {
  c.storage.createShard({ shard_name: name, config: defaultShardConfig(replicas, 'EngineSegment') });
  return c.storage.segment(name, 0)!;
}

/** A shard whose leader is not the controller, so cutting the leader off leaves a controller to act. */
function shardLedAwayFromController(c: Cluster, replicas: number): Segment {
  for (let i = 0; ; i++) {
    const seg = shard(c, `s${i}`, replicas);
    if (seg.leaderNodeId !== c.storage.controller.controllerId()) return seg;
  }
}

const append = (c: Cluster, name: string, n: number, tag = 'm'): number[] =>
  Array.from({ length: n }, (_, i) => c.storage.appendToShard(name, { payload: `${tag}${i}` }));

const followers = (seg: Segment) => seg.replicas.filter((r) => r.nodeId !== seg.leaderNodeId);

describe('replication by fetch', () => {
  it('followers fetch after the leader appends; the high watermark and the acknowledgement follow', () => {
    const c = cluster();
    const seg = shard(c, 'orders', 3);
    const offsets = append(c, 'orders', 5);
    expect(offsets).toEqual([0, 1, 2, 3, 4]);
    expect(leaderReplica(seg).log.nextOffset).toBe(5);
    expect(followers(seg).map((r) => r.log.nextOffset)).toEqual([0, 0]);
    expect(c.storage.highWatermark('orders')).toBe(0);
    expect(c.storage.isAcknowledged('orders', 4)).toBe(false);
    expect(c.storage.read('orders', 0, 10)).toEqual([]);

    expect(runChecked(c, 1_000)).toEqual([]);
    expect(followers(seg).map((r) => r.log.nextOffset)).toEqual([5, 5]);
    expect(c.storage.highWatermark('orders')).toBe(5);
    expect(c.storage.isAcknowledged('orders', 4)).toBe(true);
    expect(c.storage.read('orders', 0, 10).map((r) => r.payload)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    // Followers hold the leader's very records.
    for (const r of followers(seg)) expect(r.log.get(3)).toBe(leaderReplica(seg).log.get(3));
  });

  it('a single-replica shard acknowledges at once', () => {
    const c = cluster();
    shard(c, 'solo', 1);
    append(c, 'solo', 3);
    expect(c.storage.highWatermark('solo')).toBe(3);
  });

  it('sends one request per fetcher and interval, whatever the number of shards', () => {
    const c = cluster(3);
    for (let i = 0; i < 60; i++) shard(c, `bulk-${i}`, 3);
    const requests = () => c.storage.replication.all().reduce((n, f) => n + f.requests, 0);
    const before = requests();
    for (let i = 0; i < 60; i++) append(c, `bulk-${i}`, 2);
    c.engine.advance(10_000);
    const interval = c.storage.settings.replica_fetch_interval_ms;
    // 3 nodes: 6 (follower, leader) pairs.
    expect(c.storage.replication.all()).toHaveLength(6);
    expect(requests() - before).toBeLessThanOrEqual(6 * (10_000 / interval + 1));
    for (let i = 0; i < 60; i++) expect(c.storage.highWatermark(`bulk-${i}`)).toBe(2);
  });

  it('respects max_bytes per fetch: a large backlog takes several fetches', () => {
    const c = cluster();
    c.storage.settings.replica_fetch_max_bytes = 100;
    const seg = shard(c, 'big', 2);
    for (let i = 0; i < 50; i++) c.storage.appendToShard('big', { payload: 'x'.repeat(10) });
    c.engine.advance(c.storage.settings.replica_fetch_interval_ms + 10);
    const got = followers(seg)[0].log.nextOffset;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThanOrEqual(10);
    c.engine.advance(10_000);
    expect(followers(seg)[0].log.nextOffset).toBe(50);
  });
});

describe('ISR', () => {
  it('drops a follower that does not catch up within replica_lag_time_max_ms and takes it back when it does', () => {
    const c = cluster();
    c.storage.settings.replica_lag_time_max_ms = 2_000;
    const seg = shard(c, 'lagging', 3);
    // The slow follower is not the controller, which must keep hearing every node.
    const ctrl = c.storage.controller.controllerId();
    const [slow, other] = followers(seg).sort((x, y) => (x.nodeId === ctrl ? 1 : 0) - (y.nodeId === ctrl ? 1 : 0));
    // The slow follower's requests no longer reach the leader (one way: the controller still hears it).
    c.network.partition([slow.nodeId], [seg.leaderNodeId], true);
    append(c, 'lagging', 4);
    expect(runChecked(c, 1_500)).toEqual([]);
    expect(seg.isr).toContain(slow.nodeId);
    expect(c.storage.highWatermark('lagging')).toBe(0); // held by the slow ISR member
    expect(runChecked(c, 2_000)).toEqual([]);
    expect(seg.isr).not.toContain(slow.nodeId);
    expect(seg.isr).toContain(other.nodeId);
    expect(c.storage.highWatermark('lagging')).toBe(4);
    expect(seg.lastKnownIsr).toContain(slow.nodeId);
    const epochAfterShrink = seg.segmentEpoch;

    c.network.heal();
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(seg.isr).toContain(slow.nodeId);
    expect(slow.log.nextOffset).toBe(4);
    expect(seg.segmentEpoch).toBeGreaterThan(epochAfterShrink);
    expect(
      c.engine.trace
        .tail(200)
        .filter((e) => e.kind.startsWith('storage.isr.'))
        .map((e) => e.kind),
    ).toEqual(['storage.isr.shrink', 'storage.isr.expand']);
  });

  it('an idle caught-up follower stays in the ISR', () => {
    const c = cluster();
    c.storage.settings.replica_lag_time_max_ms = 2_000;
    const seg = shard(c, 'idle', 3);
    append(c, 'idle', 1);
    expect(runChecked(c, 30_000)).toEqual([]);
    expect(seg.isr).toHaveLength(3);
  });
});

describe('failover', () => {
  it('elects an ISR member with a new leader_epoch; the old leader truncates its unacknowledged tail', () => {
    const c = cluster(3, 'failover');
    const seg = shardLedAwayFromController(c, 3);
    const name = seg.shard.name;
    const oldLeader = seg.leaderNodeId;
    append(c, name, 3, 'committed');
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(c.storage.highWatermark(name)).toBe(3);
    // Followers stop fetching; the leader takes two more writes nobody copies.
    const [a, b] = followers(seg);
    c.network.partition([a.nodeId, b.nodeId], [oldLeader], true);
    const tail = append(c, name, 2, 'lost');
    expect(runChecked(c, 500)).toEqual([]);
    expect(tail.map((o) => c.storage.isAcknowledged(name, o))).toEqual([false, false]);

    crashNode(c, oldLeader);
    expect(runChecked(c, 500)).toEqual([]);
    expect(seg.leaderNodeId).not.toBe(oldLeader);
    expect([a.nodeId, b.nodeId]).toContain(seg.leaderNodeId);
    expect(seg.leaderEpoch).toBe(1);
    expect(seg.isr).not.toContain(oldLeader);
    expect(leaderReplica(seg).log.nextOffset).toBe(3);
    expect(append(c, name, 2, 'new')).toEqual([3, 4]);
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(c.storage.highWatermark(name)).toBe(5);

    c.network.heal();
    restartNode(c, oldLeader);
    expect(runChecked(c, 2_000)).toEqual([]);
    const old = replicaOn(seg, oldLeader)!;
    expect(old.log.nextOffset).toBe(5);
    expect(old.log.get(3)?.payload).toBe('new0');
    expect(old.log.truncations).toBe(1);
    expect(seg.isr).toContain(oldLeader);
    expect(c.storage.read(name, 0, 10).map((r) => r.payload)).toEqual(['committed0', 'committed1', 'committed2', 'new0', 'new1']);
    expect(c.storage.convergenceProblems()).toEqual([]);
    const kinds = c.engine.trace.tail(300).map((e) => e.kind);
    expect(kinds).toContain('storage.leader.change');
    expect(kinds).toContain('storage.node.fenced');
  });

  it('moves leadership away from a leader the controller cannot reach', () => {
    const c = cluster(3, 'partition');
    const seg = shardLedAwayFromController(c, 3);
    const old = seg.leaderNodeId;
    c.network.isolate(old, [1, 2, 3]);
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(seg.leaderNodeId).not.toBe(old);
    expect(seg.isr).not.toContain(old);
    c.network.heal();
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(seg.isr).toContain(old);
  });

  it('is Unavailable with no live ISR member, refuses writes, and never elects an out-of-sync replica', () => {
    // Five nodes: with two of them down the controller still hears a majority and can act.
    const c = cluster(5, 'unavailable');
    const seg = shardLedAwayFromController(c, 2);
    const name = seg.shard.name;
    const leader = seg.leaderNodeId;
    const follower = followers(seg)[0].nodeId;
    crashNode(c, follower);
    expect(runChecked(c, 500)).toEqual([]);
    expect(seg.isr).toEqual([leader]);
    append(c, name, 3);
    expect(c.storage.highWatermark(name)).toBe(3);

    crashNode(c, leader);
    expect(runChecked(c, 500)).toEqual([]);
    expect(c.storage.segmentDetail(name, 0)!.segment.status).toBe('Unavailable');
    let refused: unknown;
    try {
      c.storage.appendToShard(name, { payload: 'x' });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(OperationError);
    expect((refused as OperationError).kind).toBe('unavailable');
    expect((refused as OperationError).message).toContain('no in-sync replica');

    restartNode(c, follower);
    expect(runChecked(c, 2_000)).toEqual([]);
    expect(c.storage.segmentDetail(name, 0)!.segment.status).toBe('Unavailable');
    expect(seg.leaderNodeId).toBe(leader);

    restartNode(c, leader);
    expect(runChecked(c, 2_000)).toEqual([]);
    expect(c.storage.segmentDetail(name, 0)!.segment.status).toBe('Write');
    expect(seg.leaderNodeId).toBe(leader);
    expect(seg.leaderEpoch).toBe(1);
    expect(seg.isr.slice().sort()).toEqual([leader, follower].sort());
    expect(c.storage.convergenceProblems()).toEqual([]);
  });
});

describe('trimming', () => {
  it('trims every replica, and never past the high watermark', () => {
    const c = cluster();
    c.storage.createShard({ shard_name: 'bounded', config: { ...defaultShardConfig(3, 'EngineSegment'), max_record_num: 10 } });
    const seg = c.storage.segment('bounded', 0)!;
    append(c, 'bounded', 25);
    // Nothing committed yet: nothing may go, whatever the bound.
    expect(c.storage.logStartOffset('bounded')).toBe(0);
    expect(runChecked(c, 1_000)).toEqual([]);
    append(c, 'bounded', 1);
    expect(c.storage.logStartOffset('bounded')).toBe(16);
    for (const r of seg.replicas) expect(r.log.startOffset).toBe(16);
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(c.storage.read('bounded', 0, 100).map((r) => r.offset)).toEqual(Array.from({ length: 10 }, (_, i) => 16 + i));
  });
});

describe('segments', () => {
  it('a failover that cuts the uncommitted tail of a sealing segment leaves those offsets unused', () => {
    const c = cluster(5, 'hole');
    const config = { ...defaultShardConfig(3, 'EngineSegment'), max_segment_size: 50 };
    // A shard whose segment 0 is led away from the controller, and whose segment 1 goes to another leader.
    let seg0: Segment | undefined;
    for (let i = 0; !seg0; i++) {
      const name = `h${i}`;
      c.storage.createShard({ shard_name: name, config });
      const first = c.storage.segment(name, 0)!;
      if (first.leaderNodeId === c.storage.controller.controllerId()) continue;
      const cut = followers(first).map((r) => r.nodeId);
      c.network.partition(cut, [first.leaderNodeId], true);
      for (let k = 0; k < 5; k++) c.storage.appendToShard(name, { payload: 'x'.repeat(10) });
      const second = c.storage.segment(name, 1)!;
      if (second.leaderNodeId !== first.leaderNodeId && !cut.includes(second.leaderNodeId)) seg0 = first;
      c.network.heal();
    }
    const name = seg0.shard.name;
    expect(seg0.phase).toBe('PreSealUp');
    expect(c.storage.highWatermark(name)).toBe(0);
    crashNode(c, seg0.leaderNodeId);
    expect(runChecked(c, 2_000)).toEqual([]);
    // The new leader of segment 0 never had the 5 records: segment 0 ends at 0, sealed; segment 1 starts at 5.
    expect(c.storage.segmentList(name).map((s) => [s.segment.status, s.segment_meta.start_offset])).toEqual([
      ['SealUp', 0],
      ['Write', 5],
    ]);
    expect(c.storage.appendToShard(name, { payload: 'after' })).toBe(5);
    expect(runChecked(c, 2_000)).toEqual([]);
    expect(c.storage.highWatermark(name)).toBe(6);
    expect(c.storage.read(name, 0, 10).map((r) => [r.offset, r.payload])).toEqual([[5, 'after']]);
  });

  it('a full segment is PreSealUp until its followers hold all of it, then SealUp', () => {
    const c = cluster();
    c.storage.createShard({ shard_name: 'roll', config: { ...defaultShardConfig(3, 'EngineSegment'), max_segment_size: 50 } });
    for (let i = 0; i < 7; i++) c.storage.appendToShard('roll', { payload: 'x'.repeat(10) });
    expect(c.storage.segmentList('roll').map((s) => [s.segment.segment_seq, s.segment.status])).toEqual([
      [0, 'PreSealUp'],
      [1, 'Write'],
    ]);
    expect(c.storage.highWatermark('roll')).toBe(0);
    expect(runChecked(c, 1_000)).toEqual([]);
    expect(c.storage.segmentList('roll').map((s) => [s.segment.segment_seq, s.segment.status])).toEqual([
      [0, 'SealUp'],
      [1, 'Write'],
    ]);
    expect(c.storage.highWatermark('roll')).toBe(7);
    expect(c.storage.segmentList('roll').map((s) => [s.segment_meta.start_offset, s.segment_meta.end_offset])).toEqual([
      [0, 4],
      [5, 6],
    ]);
  });
});
