import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { MAX_RECORDS_PER_SHARD, segmentEnd } from './shard-model.ts';
import { RETENTION_SWEEP_MS } from './retention.ts';
import { contractProblems } from './testing/storage-support.ts';

const SE = '/api/storage-engine';
const shardConfig = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ replica_num: 3, storage_type: 'EngineSegment', retention_sec: 86_400, ...extra });

async function createShard(sim: InProcessSim, name: string, extra: Record<string, unknown> = {}) {
  const res = await sim.post(`${SE}/shard/create`, { shard_name: name, config: shardConfig(extra) });
  expect(res.json).toEqual({ code: 0, message: 'success', data: 'success' });
}

describe('storage engine: shards', () => {
  it('creates a shard with segment 0, lists it, and deletes it with its segments', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    await createShard(sim, 'orders', { max_segment_size: 1_073_741_824 });
    const list = await sim.post(`${SE}/shard/list`, { shard_name: 'orders' });
    expect(list.json.data.total_count).toBe(1);
    const row = list.json.data.data[0];
    expect(contractProblems('storage.shard.list', row)).toBe('');
    expect(row.shard_info).toMatchObject({
      shard_name: 'orders',
      topic_name: '',
      config: {
        replica_num: 3,
        storage_type: 'EngineSegment',
        max_segment_size: 1_073_741_824,
        max_record_num: null,
        retention_sec: 86_400,
        min_in_sync_replicas: 1,
        is_inner_topic: false,
      },
      shard: { shard_name: 'orders', start_segment_seq: 0, active_segment_seq: 0, last_segment_seq: 0, status: 'Run' },
      offset: { start_offset: 0, end_offset: 0, high_watermark: 0 },
    });
    expect(row.shard_info.shard.shard_uid).toMatch(/^[0-9a-v]{20}$/);

    const segs = await sim.post(`${SE}/segment/list`, { shard_name: 'orders' });
    expect(segs.json.data.segment_list).toHaveLength(1);
    const { segment, segment_meta } = segs.json.data.segment_list[0];
    expect(contractProblems('storage.segment.list', segs.json.data)).toBe('');
    expect(segment).toMatchObject({ shard_name: 'orders', segment_seq: 0, status: 'Write', leader_epoch: 0, segment_epoch: 0 });
    expect(segment.replicas.map((r: any) => r.node_id).sort()).toEqual([1, 2, 3]);
    expect(segment.replicas.map((r: any) => r.replica_seq)).toEqual([0, 1, 2]);
    expect(segment.leader).toBe(segment.replicas[0].node_id);
    expect(segment.isr.slice().sort()).toEqual([1, 2, 3]);
    expect(segment_meta).toEqual({
      shard_name: 'orders',
      segment_seq: 0,
      start_offset: 0,
      end_offset: 0,
      start_timestamp: -1,
      end_timestamp: -1,
    });

    expect((await sim.post(`${SE}/shard/delete`, { shard_name: 'orders' })).json.data).toBe('success');
    // Deletion goes through PrepareDelete/PreDelete, then Deleting, then the shard is gone.
    const deleting = (await sim.post(`${SE}/shard/list`, { shard_name: 'orders' })).json.data.data[0].shard_info.shard.status;
    expect(deleting).toBe('PrepareDelete');
    expect((await sim.post(`${SE}/segment/list`, { shard_name: 'orders' })).json.data.segment_list[0].segment.status).toBe('PreDelete');
    expect((await sim.post(`${SE}/shard/delete`, { shard_name: 'orders' })).json).toMatchObject({
      code: 1,
      message: 'Shard orders is already being deleted',
    });
    expect(() => sim.cluster.storage.appendToShard('orders', { payload: 'late' })).toThrow('is being deleted');
    sim.advance(sim.cluster.storage.settings.delete_step_ms);
    expect((await sim.post(`${SE}/segment/list`, { shard_name: 'orders' })).json.data.segment_list[0].segment.status).toBe('Deleting');
    sim.advance(sim.cluster.storage.settings.delete_step_ms);
    expect((await sim.post(`${SE}/shard/list`, { shard_name: 'orders' })).json.data.total_count).toBe(0);
    expect((await sim.post(`${SE}/segment/list`, { shard_name: 'orders' })).json.data).toEqual({ segment_list: [] });
    expect((await sim.post(`${SE}/shard/delete`, { shard_name: 'orders' })).json).toMatchObject({
      code: 1,
      message: 'Shard orders does not exist',
    });
  });

  it('refuses bad configs with a 400 naming the field, duplicates and too many replicas with code 1', async () => {
    const sim = new InProcessSim({ nodes: 2 });
    const cases: [unknown, string][] = [
      ['not json', 'config'],
      ['[1]', 'config'],
      [JSON.stringify({ storage_type: 'EngineSegment', retention_sec: 1 }), 'config.replica_num'],
      [JSON.stringify({ replica_num: 1, storage_type: 'Tape', retention_sec: 1 }), 'config.storage_type'],
      [JSON.stringify({ replica_num: 0, storage_type: 'EngineMemory', retention_sec: 1 }), 'config.replica_num'],
    ];
    for (const [config, param] of cases) {
      const res = await sim.post(`${SE}/shard/create`, { shard_name: 's', config });
      expect(res.status).toBe(400);
      expect(res.json.message).toContain(param);
    }
    expect((await sim.post(`${SE}/shard/create`, { shard_name: '', config: shardConfig() })).status).toBe(400);
    const tooMany = await sim.post(`${SE}/shard/create`, { shard_name: 's', config: shardConfig() });
    expect(tooMany.json.code).toBe(1);
    expect(tooMany.json.message).toContain('only 2 are online');
    await createShard(sim, 's', { replica_num: 2 });
    expect((await sim.post(`${SE}/shard/create`, { shard_name: 's', config: shardConfig({ replica_num: 1 }) })).json.message).toBe(
      'Shard s already exists',
    );
  });

  it('filters, sorts and pages the shard list from the JSON body', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    for (const name of ['b-shard', 'a-shard', 'c-shard']) await createShard(sim, name, { replica_num: 1 });
    await sim.post('/api/cluster/topic/create', { tenant: 'default', topic_name: 'fleet/gps', storage_type: 'EngineMemory' });
    const byTopic = await sim.post(`${SE}/shard/list`, { topic_name: 'fleet' });
    expect(byTopic.json.data.data.map((r: any) => r.shard_info.topic_name)).toEqual(['fleet/gps']);
    const sorted = await sim.post(`${SE}/shard/list`, { sort_field: 'shard_name', sort_by: 'desc', limit: 2 });
    expect(sorted.json.data.total_count).toBe(4);
    expect(sorted.json.data.data.map((r: any) => r.shard_name)).toEqual(['c-shard', 'b-shard']);
    const filtered = await sim.post(`${SE}/shard/list`, { filter_field: 'shard_name', filter_values: ['a-'], exact_match: 'false' });
    expect(filtered.json.data.data.map((r: any) => r.shard_name)).toEqual(['a-shard']);
  });

  it("refuses to delete a topic's shard on its own", async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const topic = (await sim.post('/api/cluster/topic/create', { tenant: 'default', topic_name: 't', storage_type: 'EngineMemory' })).json
      .data;
    const res = await sim.post(`${SE}/shard/delete`, { shard_name: topic.storage_name_list[0] });
    expect(res.json.code).toBe(1);
    expect(res.json.message).toContain('delete the topic instead');
  });
});

describe('storage engine: records, segments and replicas', () => {
  it('reports LEO, high watermark and log start offset on every replica after appends', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    await createShard(sim, 'events');
    const written = Math.floor(sim.cluster.now() / 1000);
    for (let i = 0; i < 5; i++) sim.cluster.storage.appendToShard('events', { key: `key-${i}`, payload: `v${i}` });
    // Followers fetch every replica_fetch_interval_ms; a second is enough for them to catch up and report.
    sim.advance(1_000);
    const detail = await sim.post(`${SE}/segment/detail`, { shard_name: 'events', segment_seq: 0 }, { nodeId: 2 });
    expect(detail.json.code).toBe(0);
    expect(contractProblems('storage.segment.detail', detail.json.data)).toBe('');
    const { segment, segment_meta, replicas } = detail.json.data;
    expect(segment_meta).toMatchObject({ start_offset: 0, end_offset: 4 });
    expect(segment_meta.start_timestamp).toBe(written);
    expect(replicas.map((r: any) => r.node_id)).toEqual(segment.replicas.map((r: any) => r.node_id));
    for (const r of replicas) {
      expect(r).toMatchObject({ available: true, error: null, leo: 5, high_watermark: 5, log_start_offset: 0, in_isr: true });
      if (r.node_id === segment.leader) {
        expect(r).toMatchObject({ role: 'Leader', is_leader: true, fetch: null });
        expect(r.follower_progress.map((p: any) => [p.node_id, p.leo, p.lag])).toEqual(
          segment.replicas.filter((x: any) => x.node_id !== segment.leader).map((x: any) => [x.node_id, 5, 0]),
        );
      } else {
        expect(r).toMatchObject({ role: 'Follower', is_leader: false, follower_progress: [] });
        expect(r.fetch).toMatchObject({
          leader_node_id: segment.leader,
          current_leader_epoch: 0,
          max_bytes: 1_048_576,
          thread_running: true,
        });
      }
    }
  });

  it("returns an offline node's replica with available false and the error, and the rest as usual", async () => {
    const sim = new InProcessSim({ nodes: 3 });
    await createShard(sim, 'events');
    sim.cluster.storage.appendToShard('events', { payload: 'x' });
    const seg = sim.cluster.storage.segment('events', 0)!;
    const follower = seg.replicas.find((r) => r.nodeId !== seg.leaderNodeId)!;
    const asker = seg.replicas.find((r) => r.nodeId !== follower.nodeId)!.nodeId;
    sim.cluster.nodes.stop(follower.nodeId);
    const detail = await sim.post(`${SE}/segment/detail`, { shard_name: 'events', segment_seq: 0 }, { nodeId: asker });
    expect(detail.json.code).toBe(0);
    const down = detail.json.data.replicas.find((r: any) => r.node_id === follower.nodeId);
    expect(down).toMatchObject({ available: false, role: 'Unknown', replica_seq: follower.replicaSeq, fold: follower.fold, leo: 0 });
    expect(down.error).toContain('ECONNREFUSED');
    expect(detail.json.data.replicas.filter((r: any) => r.available)).toHaveLength(2);
  });

  it('returns a replica cut off by a network partition with available false, and shows the ISR and lag that follow', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    sim.advance(1_000);
    await createShard(sim, 'cut');
    const seg = sim.cluster.storage.segment('cut', 0)!;
    const ctrl = sim.cluster.storage.controller.controllerId();
    const follower =
      seg.replicas.find((r) => r.nodeId !== seg.leaderNodeId && r.nodeId !== ctrl) ??
      seg.replicas.find((r) => r.nodeId !== seg.leaderNodeId)!;
    sim.cluster.network.partition([follower.nodeId], [seg.leaderNodeId], true); // its fetches no longer arrive
    for (let i = 0; i < 4; i++) sim.cluster.storage.appendToShard('cut', { payload: `p${i}` });
    sim.advance(sim.cluster.storage.settings.replica_lag_time_max_ms + 2_000);
    const detail = (await sim.post(`${SE}/segment/detail`, { shard_name: 'cut', segment_seq: 0 }, { nodeId: seg.leaderNodeId })).json.data;
    expect(detail.segment.isr).not.toContain(follower.nodeId);
    const leader = detail.replicas.find((r: any) => r.is_leader);
    const progress = leader.follower_progress.find((p: any) => p.node_id === follower.nodeId);
    expect(progress).toMatchObject({ leo: 0, lag: 4 });
    expect(leader.high_watermark).toBe(4);
    const lagging = detail.replicas.find((r: any) => r.node_id === follower.nodeId);
    expect(lagging).toMatchObject({ available: true, in_isr: false, leo: 0, role: 'Follower' });

    // Cut both ways: the answering node cannot ask the follower at all.
    sim.cluster.network.partition([follower.nodeId], [seg.leaderNodeId]);
    const cut = (await sim.post(`${SE}/segment/detail`, { shard_name: 'cut', segment_seq: 0 }, { nodeId: seg.leaderNodeId })).json.data;
    expect(cut.replicas.find((r: any) => r.node_id === follower.nodeId)).toMatchObject({
      available: false,
      error: `node ${follower.nodeId} is unreachable from node ${seg.leaderNodeId}: the network between them is partitioned`,
    });
    expect(contractProblems('storage.segment.detail', cut)).toBe('');
  });

  it('answers replica-state for the local replica, and available false from a node without one', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    await createShard(sim, 'solo', { replica_num: 1 });
    const holder = sim.cluster.storage.segment('solo', 0)!.leaderNodeId;
    const other = [1, 2, 3].find((n) => n !== holder)!;
    const local = await sim.post(`${SE}/segment/replica-state`, { shard_name: 'solo', segment_seq: 0 }, { nodeId: holder });
    expect(contractProblems('storage.segment.replica-state', local.json.data)).toBe('');
    expect(local.json.data).toMatchObject({ node_id: holder, role: 'Leader', available: true });
    const none = await sim.post(`${SE}/segment/replica-state`, { shard_name: 'solo', segment_seq: 0 }, { nodeId: other });
    expect(none.json.data).toMatchObject({ node_id: other, available: false, error: `node ${other} holds no replica of segment solo/0` });
    const missing = await sim.post(`${SE}/segment/detail`, { shard_name: 'solo', segment_seq: 7 });
    expect(missing.json).toMatchObject({ code: 1, message: 'segment solo/7 does not exist' });
  });

  it('seals the active segment when it reaches max_segment_size and continues in the next', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    await createShard(sim, 'small', { max_segment_size: 100, replica_num: 2 });
    for (let i = 0; i < 25; i++) sim.cluster.storage.appendToShard('small', { payload: 'x'.repeat(10) }); // 10 records per segment
    // A full segment is PreSealUp until its followers hold all of it.
    expect(sim.cluster.storage.segment('small', 0)!.phase).toBe('PreSealUp');
    sim.advance(1_000);
    const list = (await sim.post(`${SE}/segment/list`, { shard_name: 'small' })).json.data.segment_list;
    expect(list.map((s: any) => [s.segment.segment_seq, s.segment.status])).toEqual([
      [0, 'SealUp'],
      [1, 'SealUp'],
      [2, 'Write'],
    ]);
    expect(list.map((s: any) => [s.segment_meta.start_offset, s.segment_meta.end_offset])).toEqual([
      [0, 9],
      [10, 19],
      [20, 24],
    ]);
    for (const s of list) expect(s.segment.replicas).toHaveLength(2);
    const shard = (await sim.post(`${SE}/shard/list`, { shard_name: 'small' })).json.data.data[0].shard_info;
    expect(shard.shard).toMatchObject({ start_segment_seq: 0, active_segment_seq: 2, last_segment_seq: 2 });
    const sealed = (await sim.post(`${SE}/segment/detail`, { shard_name: 'small', segment_seq: 0 })).json.data;
    expect(sealed.replicas.filter((r: any) => r.available).every((r: any) => r.leo === 10 && r.high_watermark === 25)).toBe(true);
  });

  it('keeps bounded memory: old records are trimmed, log_start_offset moves and emptied segments go', () => {
    const sim = new InProcessSim({ nodes: 1 });
    const storage = sim.cluster.storage;
    storage.createShard({
      shard_name: 'firehose',
      config: {
        replica_num: 1,
        storage_type: 'EngineMemory',
        max_segment_size: 10_000,
        max_record_num: null,
        retention_sec: 3600,
        min_in_sync_replicas: 1,
        is_inner_topic: false,
      },
    });
    const total = MAX_RECORDS_PER_SHARD * 3;
    for (let i = 0; i < total; i++) storage.appendToShard('firehose', { payload: 'y'.repeat(10) });
    const shard = storage.get('firehose')!;
    expect(storage.heldRecords('firehose')).toBe(MAX_RECORDS_PER_SHARD);
    expect(storage.logStartOffset('firehose')).toBe(total - MAX_RECORDS_PER_SHARD);
    // 1000 records per segment: only the segments still holding records remain.
    expect(shard.segments.map((s) => s.seq)).toEqual([10, 11, 12, 13, 14, 15]);
    expect(shard.segments[0].startOffset).toBeLessThanOrEqual(shard.logStartOffset);
    expect(segmentEnd(shard.segments[0])).toBeGreaterThan(shard.logStartOffset);
    expect(storage.read('firehose', 0, 3).map((r) => r.offset)).toEqual([
      total - MAX_RECORDS_PER_SHARD,
      total - MAX_RECORDS_PER_SHARD + 1,
      total - MAX_RECORDS_PER_SHARD + 2,
    ]);
    expect(storage.replicaState('firehose', shard.segments[0].seq, 1).log_start_offset).toBe(total - MAX_RECORDS_PER_SHARD);
  });

  it('removes records older than retention_sec in the periodic sweep', () => {
    const sim = new InProcessSim({ nodes: 1 });
    const storage = sim.cluster.storage;
    storage.createShard({
      shard_name: 'short',
      config: {
        replica_num: 1,
        storage_type: 'EngineMemory',
        max_segment_size: null,
        max_record_num: null,
        retention_sec: 60,
        min_in_sync_replicas: 1,
        is_inner_topic: false,
      },
    });
    storage.appendToShard('short', { payload: 'old' });
    sim.advance(90_000);
    storage.appendToShard('short', { payload: 'new' });
    sim.advance(RETENTION_SWEEP_MS);
    expect(storage.read('short', 0, 10).map((r) => r.payload)).toEqual(['new']);
    expect(storage.logStartOffset('short')).toBe(1);
  });
});
