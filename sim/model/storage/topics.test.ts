import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { isSystemTopic } from './topics.ts';
import { contractProblems } from './testing/storage-support.ts';

const T = '/api/cluster/topic';

describe('topics', () => {
  it('creates a topic with its shards, lists, reads the detail and deletes it with its data', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const created = await sim.post(`${T}/create`, {
      tenant: 'default',
      topic_name: 'plant/a/temp',
      storage_type: 'EngineSegment',
      partition: 2,
      replication: 3,
    });
    expect(created.json.code).toBe(0);
    const topic = created.json.data;
    expect(contractProblems('cluster.topic.create', topic)).toBe('');
    expect(topic).toMatchObject({
      topic_name: 'plant/a/temp',
      tenant: 'default',
      storage_type: 'EngineSegment',
      source: 'MQTT',
      partition: 2,
      replication: 3,
      storage_name_list: [`${topic.topic_id}-0`, `${topic.topic_id}-1`],
      config: { max_segment_size: 1_073_741_824, max_record_num: null, retention_sec: 604_800 },
      mark_delete: false,
      create_time: Math.floor(sim.cluster.now() / 1000),
    });

    const list = await sim.get(`${T}/list?tenant=default&topic_name=plant`);
    expect(list.json.data.total_count).toBe(1);
    expect(list.json.data.data[0]).toEqual(topic);
    expect(contractProblems('cluster.topic.list', list.json.data.data[0])).toBe('');

    const detail = await sim.get(`${T}/detail?tenant=default&topic_name=plant/a/temp`);
    expect(contractProblems('cluster.topic.detail', detail.json.data)).toBe('');
    expect(detail.json.data).toMatchObject({ topic_info: topic, retain_message: null, retain_message_at: null, sub_list: [] });
    expect(Object.keys(detail.json.data.storage_list)).toEqual(['0', '1']);
    expect(detail.json.data.storage_list['1']).toMatchObject({
      shard_name: `${topic.topic_id}-1`,
      topic_name: 'plant/a/temp',
      config: { replica_num: 3, storage_type: 'EngineSegment' },
    });

    sim.cluster.storage.appendToTopic('default', 'plant/a/temp', { payload: 'x' });
    sim.cluster.offsets.commit('default', 'g', [
      { shard_name: topic.storage_name_list[0], topic_name: 'plant/a/temp', partition: 0, offset: 1 },
    ]);
    expect((await sim.post(`${T}/delete`, { tenant: 'default', topic_name: 'plant/a/temp' })).json.data).toBe('success');
    expect((await sim.get(`${T}/list?tenant=default&topic_name=plant`)).json.data.total_count).toBe(0);
    expect(sim.cluster.storage.get(topic.storage_name_list[0])?.status).toBe('PrepareDelete');
    sim.advance(2 * sim.cluster.storage.settings.delete_step_ms);
    expect(sim.cluster.storage.get(topic.storage_name_list[0])).toBeUndefined();
    expect(sim.cluster.offsets.groupOffsets('default', 'g')).toEqual([]);
    const gone = await sim.get(`${T}/detail?tenant=default&topic_name=plant/a/temp`);
    expect(gone.json).toEqual({ code: 1, message: 'Topic plant/a/temp does not exist', data: null });
    expect((await sim.post(`${T}/delete`, { tenant: 'default', topic_name: 'plant/a/temp' })).json.code).toBe(1);
  });

  it('filters by topic_type: system topics are those whose name contains $', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    for (const name of ['$SYS/uptime', 'a/b', 'c/$share-like']) sim.cluster.topics.ensure('default', name);
    const names = async (q: string) => (await sim.get(`${T}/list?${q}`)).json.data.data.map((t: any) => t.topic_name);
    expect(await names('topic_type=system')).toEqual(['$SYS/uptime', 'c/$share-like']);
    expect(await names('topic_type=normal')).toEqual(['a/b']);
    expect(await names('topic_type=all&sort_field=topic_name&sort_by=desc')).toEqual(['c/$share-like', 'a/b', '$SYS/uptime']);
    expect((await sim.get(`${T}/list?topic_type=odd`)).status).toBe(400);
  });

  it('pages topic_type lists from the per-type indexes exactly as filtering every topic would, through creates and deletes', async () => {
    const name = fc.constantFrom('a', 'b/c', '$SYS/x', 'z$', 'm', '$q', 'b');
    const op = fc.record({ del: fc.boolean(), tenant: fc.constantFrom('default', 't2'), name });
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 25 }),
        fc.constantFrom('system', 'normal'),
        fc.constantFrom('', '&sort_field=topic_name&sort_by=desc', '&tenant=t2'),
        fc.integer({ min: 1, max: 3 }),
        async (ops, type, extra, page) => {
          const sim = new InProcessSim({ nodes: 1, workload: 'none' });
          await sim.post('/api/cluster/tenant/create', { tenant_name: 't2' });
          for (const o of ops) {
            if (o.del) await sim.post(`${T}/delete`, { tenant: o.tenant, topic_name: o.name });
            else
              await sim.post(`${T}/create`, {
                tenant: o.tenant,
                topic_name: o.name,
                storage_type: 'EngineMemory',
                partition: 1,
                replication: 1,
              });
          }
          const all = (await sim.get(`${T}/list?topic_type=all&limit=1000${extra}`)).json.data;
          const want = all.data.filter((t: { topic_name: string }) => (type === 'system') === isSystemTopic(t.topic_name));
          const got = (await sim.get(`${T}/list?topic_type=${type}&limit=2&page=${page}${extra}`)).json.data;
          expect(got.total_count).toBe(want.length);
          expect(got.data).toEqual(want.slice((page - 1) * 2, page * 2));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('shows the retained message, its time and the subscribers in the detail', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    sim.cluster.topics.setRetained('default', 'lamp/state', { payload: 'on', qos: 1, retainedAt: sim.cluster.now() });
    const mqtt = sim.cluster.mqtt as any;
    const original = mqtt.subscribersOf;
    mqtt.subscribersOf = (tenant: string, topic: string) =>
      tenant === 'default' && topic === 'lamp/state' ? [{ client_id: 'c1', path: 'lamp/+' }] : [];
    try {
      const detail = (await sim.get(`${T}/detail?tenant=default&topic_name=lamp/state`)).json.data;
      expect(detail.retain_message).toEqual({
        tenant: 'default',
        topic_name: 'lamp/state',
        payload: [111, 110],
        qos: 1,
        expired_at: 0,
        create_time: Math.floor(sim.cluster.now() / 1000),
      });
      expect(detail.retain_message_at).toBe(Math.floor(sim.cluster.now() / 1000));
      expect(detail.sub_list).toEqual([{ client_id: 'c1', path: 'lamp/+' }]);
    } finally {
      mqtt.subscribersOf = original;
    }
    sim.cluster.topics.setRetained('default', 'lamp/state', null);
    expect((await sim.get(`${T}/detail?tenant=default&topic_name=lamp/state`)).json.data.retain_message).toBeNull();
  });

  it("refuses duplicates, enforces the tenant's max_topics, and checks replication against online nodes", async () => {
    const sim = new InProcessSim({ nodes: 2 });
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'tiny', config: { max_topics: 2 } });
    const create = (topic_name: string, extra: Record<string, unknown> = {}) =>
      sim.post(`${T}/create`, { tenant: 'tiny', topic_name, storage_type: 'EngineMemory', ...extra });
    expect((await create('one')).json.code).toBe(0);
    expect((await create('one')).json.message).toBe('Topic one already exists in tenant tiny');
    expect(sim.cluster.topics.ensure('tiny', 'two').topic_name).toBe('two');
    const full = await create('three');
    expect(full.json.code).toBe(1);
    expect(full.json.message).toContain('max_topics 2');
    expect(() => sim.cluster.topics.ensure('tiny', 'three')).toThrow(/max_topics/);
    const tooMany = await sim.post(`${T}/create`, { tenant: 'default', topic_name: 'r', storage_type: 'EngineMemory', replication: 3 });
    expect(tooMany.json.message).toContain('only 2 are online');
    expect(sim.cluster.topics.get('default', 'r')).toBeUndefined();
  });

  it('validates create and delete parameters', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const bad: [Record<string, unknown>, string][] = [
      [{ tenant: 'default', topic_name: 't' }, 'storage_type'],
      [{ tenant: 'default', topic_name: 't', storage_type: 'Tape' }, 'storage_type'],
      [{ tenant: 'default', topic_name: 'x'.repeat(257), storage_type: 'EngineMemory' }, 'topic_name'],
      [{ tenant: 'x'.repeat(129), topic_name: 't', storage_type: 'EngineMemory' }, 'tenant'],
      [{ tenant: 'default', topic_name: 't', storage_type: 'EngineMemory', partition: 0 }, 'partition'],
      [{ tenant: 'default', topic_name: 't', storage_type: 'EngineMemory', source: 'SMTP' }, 'source'],
    ];
    for (const [body, param] of bad) {
      const res = await sim.post(`${T}/create`, body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain(param);
    }
    expect((await sim.post(`${T}/delete`, { tenant: 'default', topic_name: 'y'.repeat(257) })).status).toBe(400);
    expect((await sim.get(`${T}/detail?tenant=default`)).status).toBe(400);
  });
});
