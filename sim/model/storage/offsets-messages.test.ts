import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { contractProblems } from './testing/storage-support.ts';

describe('messages', () => {
  it('sends to a new topic (created on the fly) and reads back from a clamped offset', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const offsets: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: 'chat/room1', payload: `hello ${i}` });
      expect(contractProblems('mqtt.message.send', res.json.data)).toBe('');
      offsets.push(...res.json.data.offsets);
      sim.advance(1_000);
    }
    expect(offsets).toEqual([0, 1, 2]);
    expect(sim.cluster.topics.get('default', 'chat/room1')?.partition).toBe(1);

    const read = await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'chat/room1', offset: 1 });
    expect(contractProblems('mqtt.message.read', read.json.data)).toBe('');
    const t0 = Math.floor(sim.cluster.options.epochMs / 1000);
    expect(read.json.data.messages).toEqual([
      { offset: 1, content: 'hello 1', timestamp: t0 + 1 },
      { offset: 2, content: 'hello 2', timestamp: t0 + 2 },
    ]);
    expect((await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'chat/room1', offset: 99 })).json.data.messages).toEqual(
      [],
    );
  });

  it('reads at most 100 messages and starts at the log start when the offset was trimmed', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    for (let i = 0; i < 6_000; i++) sim.cluster.storage.appendToTopic('default', 'bulk', { payload: `m${i}` });
    const read = await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'bulk', offset: 0 });
    expect(read.json.data.messages).toHaveLength(100);
    expect(read.json.data.messages[0]).toMatchObject({ offset: 1_000, content: 'm1000' });
  });

  it('fails cleanly for an unknown topic and bad bodies', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    expect((await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'nope', offset: 0 })).json).toEqual({
      code: 1,
      message: 'Topic nope does not exist',
      data: null,
    });
    expect((await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'nope', offset: -1 })).status).toBe(400);
    expect((await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: '', payload: 'x' })).status).toBe(400);
    const big = await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: 't', payload: 'x'.repeat(1_048_577) });
    expect(big.status).toBe(400);
    expect(big.json.message).toContain('payload');
  });

  it('spreads keyless records round-robin and keeps a key on one partition', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const topic = sim.cluster.topics.create({ tenant: 'default', topic_name: 'p3', partition: 3 });
    for (let i = 0; i < 6; i++) sim.cluster.storage.appendToTopic('default', 'p3', { payload: 'n' });
    expect(topic.storage_name_list.map((s) => sim.cluster.storage.logEndOffset(s))).toEqual([2, 2, 2]);
    for (let i = 0; i < 5; i++) sim.cluster.storage.appendToTopic('default', 'p3', { key: 'device-7', payload: 'k' });
    const ends = topic.storage_name_list.map((s) => sim.cluster.storage.logEndOffset(s));
    expect(ends.filter((e) => e === 7)).toHaveLength(1);
  });
});

describe('offsets', () => {
  it('finds offsets by timestamp with the earliest/latest fallbacks, case-insensitively', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const topic = sim.cluster.topics.ensure('default', 'ts');
    const shard = topic.storage_name_list[0];
    const tA = Math.floor(sim.cluster.now() / 1000);
    sim.cluster.storage.appendToTopic('default', 'ts', { payload: 'a' });
    sim.advance(1_000);
    sim.cluster.storage.appendToTopic('default', 'ts', { payload: 'b' });
    const at = async (timestamp: number, strategy: string) =>
      (await sim.post('/api/cluster/offset/timestamp', { shard_name: shard, timestamp, strategy })).json;
    expect(await at(tA, 'earliest')).toEqual({ code: 0, message: 'success', data: { offset: 0 } });
    expect((await at(tA + 1, 'earliest')).data.offset).toBe(1);
    expect((await at(tA + 1000, 'EARLIEST')).data.offset).toBe(0);
    expect((await at(tA + 1000, 'Latest')).data.offset).toBe(2);
    const bad = await sim.post('/api/cluster/offset/timestamp', { shard_name: shard, timestamp: tA, strategy: 'middle' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe("Invalid strategy 'middle', must be 'earliest' or 'latest'");
    expect((await at(tA, 'earliest')).code).toBe(0);
    expect((await sim.post('/api/cluster/offset/timestamp', { shard_name: 'ghost', timestamp: tA, strategy: 'latest' })).json.message).toBe(
      'Shard ghost does not exist',
    );
  });

  it("commits (overwriting) and reads a group's offsets; an unknown group has none", async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const group = (name: string) => sim.post('/api/cluster/offset/group', { tenant: 'default', group_name: name });
    expect((await group('g1')).json.data).toEqual({ offsets: [] });
    const commit = (offset: number) =>
      sim.post('/api/cluster/offset/commit', {
        tenant: 'default',
        group_name: 'g1',
        offsets: [{ shard_name: 'shard-x', topic_name: 'topic1', partition: 0, offset }],
      });
    expect((await commit(10)).json).toEqual({ code: 0, message: 'success', data: 'success' });
    expect((await group('g1')).json.data.offsets).toEqual([
      { group: 'g1', shard_name: 'shard-x', segment_no: 0, topic_name: 'topic1', partition: 0, offset: 10 },
    ]);
    await commit(20);
    const after = (await group('g1')).json.data;
    expect(after.offsets.map((o: any) => o.offset)).toEqual([20]);
    expect(contractProblems('cluster.offset.group', after)).toBe('');
    expect((await sim.post('/api/cluster/offset/group', { tenant: 'other', group_name: 'g1' })).json.data.offsets).toEqual([]);
    const empty = await sim.post('/api/cluster/offset/commit', { tenant: 'default', group_name: 'g1', offsets: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe('offsets cannot be empty');
    expect((await sim.post('/api/cluster/offset/commit', { tenant: 'default', group_name: '', offsets: [] })).status).toBe(400);
    expect(
      (await sim.post('/api/cluster/offset/commit', { tenant: 'default', group_name: 'g', offsets: [{ shard_name: 's' }] })).json.message,
    ).toContain('offsets[0].topic_name');
  });

  it('names the live segment holding a committed offset', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    sim.cluster.storage.createShard({
      shard_name: 's',
      config: {
        replica_num: 1,
        storage_type: 'EngineSegment',
        max_segment_size: 10,
        max_record_num: null,
        retention_sec: 3600,
        min_in_sync_replicas: 1,
        is_inner_topic: false,
      },
    });
    for (let i = 0; i < 5; i++) sim.cluster.storage.appendToShard('s', { payload: 'x'.repeat(10) }); // one record per segment
    sim.cluster.offsets.commit('default', 'g', [{ shard_name: 's', topic_name: '', partition: 0, offset: 3 }]);
    expect(sim.cluster.offsets.groupOffsets('default', 'g')[0].segment_no).toBe(3);
  });
});

describe('determinism', () => {
  async function run(seed: number): Promise<string> {
    const sim = new InProcessSim({ nodes: 3, seed, workload: 'demo' });
    await sim.post('/api/cluster/topic/create', {
      tenant: 'default',
      topic_name: 'det',
      storage_type: 'EngineSegment',
      partition: 2,
      replication: 2,
    });
    await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: 'det', payload: 'p', key: 'k' });
    await sim.post('/api/storage-engine/shard/create', {
      shard_name: 'd',
      config: JSON.stringify({ replica_num: 3, storage_type: 'EngineSegment', retention_sec: 60, max_segment_size: 20 }),
    });
    for (let i = 0; i < 5; i++) sim.cluster.storage.appendToShard('d', { payload: 'x'.repeat(8) });
    sim.cluster.nodes.stop(2);
    await sim.post('/api/storage-engine/segment/detail', { shard_name: 'd', segment_seq: 1 });
    await sim.post('/api/cluster/node/leave', { node_id: 2 });
    sim.advance(120_000);
    return sim.cluster.engine.trace.hash;
  }

  it('gives the same trace hash for the same seed and a different one for another seed', async () => {
    const a = await run(5);
    expect(await run(5)).toBe(a);
    expect(await run(6)).not.toBe(a);
  });
});
