import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { defaultShardConfig } from '../../model/storage/storage-engine.ts';
import { AdminApp, type ModelWrite } from '../../admin-api/admin-app.ts';
import { journaled } from '../../io/state/state-file.ts';
import { replayWrites } from '../../io/state/state-replay.ts';
import { DEVIATION_IDS } from '../../switches/catalogue.ts';
import { resolveDeviations } from '../../switches/resolve-switches.ts';
import { REAL_SERVER_GAPS } from './real-server-gaps.ts';
import { REMOTE, TwinApps } from './testing/real-server-test-kit.ts';

/** The routes the real server has beyond the spec, served by their switches on the simulator's model. */

type Row = Record<string, any>;

const TEXT_PLAIN = 'text/plain; charset=utf-8';

describe('the switches close the gaps they replace', () => {
  it('share groups and record delete are switches, no longer gaps', () => {
    for (const id of ['share-group-routes', 'record-delete-routes']) expect(DEVIATION_IDS).toContain(id);
    expect(REAL_SERVER_GAPS.map((g) => g.id)).not.toContain('extra-routes-share-group-and-record-delete');
  });
});

describe('share-group-routes', () => {
  function sharedCluster(): TwinApps {
    const apps = new TwinApps({ workload: 'none', seed: 7, nodes: 3 });
    const mqtt = apps.cluster.mqtt;
    for (const [clientId, nodeId] of [
      ['w1', 1],
      ['w2', 2],
      ['w3', 3],
    ] as const) {
      expect(mqtt.connect({ tenant: 'default', clientId, nodeId }).ok).toBe(true);
      apps.advance(1_000);
      expect(mqtt.subscribe({ tenant: 'default', clientId, path: '$share/workers/jobs/#', qos: 1 }).ok).toBe(true);
    }
    expect(mqtt.connect({ tenant: 'acme', clientId: 'c1', nodeId: 1 }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'acme', clientId: 'c1', path: '$share/collectors/sensors/+', qos: 0 }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'acme', clientId: 'c1', path: '$share/workers/jobs/#', qos: 0 }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'acme', clientId: 'c1', path: 'plain/topic', qos: 0 }).ok).toBe(true);
    return apps;
  }

  it('lists the MQTT share groups as ShareGroup rows, filtered, sorted and paged as the real list', async () => {
    const apps = sharedCluster();
    const sw = apps.with('share-group-routes');
    expect((await apps.plain.get('/api/cluster/share-group/list')).status).toBe(404);
    const all = await sw.get('/api/cluster/share-group/list');
    expect([all.status, all.headers['content-type'], all.json.code, all.json.error]).toEqual([200, TEXT_PLAIN, 0, null]);
    expect(all.json.data.total_count).toBe(3);
    const rows = all.json.data.data as Row[];
    expect(rows.map((r) => `${r.tenant}:${r.group_name}`)).toEqual([
      'default:workers/jobs/#',
      'acme:collectors/sensors/+',
      'acme:workers/jobs/#',
    ]);
    const first = rows[0];
    expect(Object.keys(first)).toEqual(['uuid', 'tenant', 'group_name', 'leader_broker', 'sub_params', 'create_time']);
    expect(first.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(rows.map((r) => r.uuid)).size).toBe(3);
    expect(first.sub_params).toEqual({ MQTT: {} });
    expect(first.create_time).toBe(Math.floor(apps.cluster.options.epochMs / 1000) + 1);
    expect(first.leader_broker).toBe(apps.cluster.mqtt.shareLeaderId('default', 'workers'));

    const names = async (q: string) =>
      ((await sw.get(`/api/cluster/share-group/list?${q}`)).json.data.data as Row[]).map((r) => `${r.tenant}:${r.group_name}`);
    expect(await names('tenant=acme')).toEqual(['acme:collectors/sensors/+', 'acme:workers/jobs/#']);
    expect(await names('tenant=acm')).toEqual([]);
    expect(await names('group_name=workers')).toEqual(['default:workers/jobs/#', 'acme:workers/jobs/#']);
    expect(await names('group_name=WORKERS')).toEqual([]);
    // Descending unless sort_by is exactly asc; an unknown sort field keeps the base order.
    expect(await names('sort_field=group_name')).toEqual(['default:workers/jobs/#', 'acme:workers/jobs/#', 'acme:collectors/sensors/+']);
    expect(await names('sort_field=tenant&sort_by=asc')).toEqual([
      'acme:collectors/sensors/+',
      'acme:workers/jobs/#',
      'default:workers/jobs/#',
    ]);
    expect(await names('sort_field=uuid')).toEqual(rows.map((r) => `${r.tenant}:${r.group_name}`));
    const page = (await sw.get('/api/cluster/share-group/list?limit=2&page=2')).json.data;
    expect([page.total_count, page.data.map((r: Row) => r.group_name)]).toEqual([3, ['workers/jobs/#']]);
    expect((await sw.get('/api/cluster/share-group/list?limit=0')).json.data.data).toHaveLength(3);
  });

  it('shows a group with its members and push counters; an unknown group is a code-100 failure', async () => {
    const apps = sharedCluster();
    const sw = apps.with('share-group-routes');
    const detail = async (tenant: string, group: string) =>
      sw.get(`/api/cluster/share-group/detail?tenant=${tenant}&group_name=${encodeURIComponent(group)}`);
    const d = (await detail('default', 'workers/jobs/#')).json.data;
    expect(d.group.group_name).toBe('workers/jobs/#');
    expect(d.members.map((m: Row) => [m.sid, m.broker_id, m.sub_path])).toEqual([
      ['w1', 1, '$share/workers/jobs/#'],
      ['w2', 2, '$share/workers/jobs/#'],
      ['w3', 3, '$share/workers/jobs/#'],
    ]);
    const w2 = d.members[1];
    expect(w2).toEqual({
      tenant: 'default',
      group_name: 'workers/jobs/#',
      broker_id: 2,
      sub_path: '$share/workers/jobs/#',
      sid: 'w2',
      params: { MQTT: {} },
      connect_id: apps.cluster.mqtt.client('default', 'w2')!.connection!.connectionId,
      create_time: Math.floor(apps.cluster.options.epochMs / 1000) + 2,
    });
    expect([d.push_subscribers, d.push_thread_info]).toEqual([[], null]);

    // Three messages go round-robin, one to each member: the group pushed three.
    for (let i = 0; i < 3; i++) apps.cluster.mqtt.publish({ tenant: 'default', topic: 'jobs/a', payload: `j${i}`, qos: 1, retain: false });
    apps.advance(5_000);
    const after = (await detail('default', 'workers/jobs/#')).json.data;
    expect(after.push_thread_info.total_pushed).toBe(3);
    expect(after.push_thread_info.last_pull_time).toBeGreaterThanOrEqual(Math.floor(apps.cluster.options.epochMs / 1000) + 3);

    const unknown = await detail('default', 'nope/x');
    expect([unknown.status, unknown.headers['content-type'], unknown.json]).toEqual([
      200,
      TEXT_PLAIN,
      { code: 100, data: '', error: "Share group 'default/nope/x' not found" },
    ]);
    expect((await detail('acme', 'workers')).json.error).toBe("Share group 'acme/workers' not found");

    // The last member leaving ends the group.
    apps.cluster.mqtt.unsubscribe({ tenant: 'acme', clientId: 'c1', path: '$share/collectors/sensors/+' });
    expect((await detail('acme', 'collectors/sensors/+')).json.code).toBe(100);
  });

  it('answers bad queries, wrong methods and remote peers as the real server', async () => {
    const apps = sharedCluster();
    const sw = apps.with('share-group-routes');
    const missing = await sw.get('/api/cluster/share-group/detail?tenant=default');
    expect([missing.status, missing.headers['content-type'], missing.text]).toEqual([
      400,
      TEXT_PLAIN,
      'Failed to deserialize query string: missing field `group_name`',
    ]);
    expect((await sw.get('/api/cluster/share-group/list?limit=abc')).text).toBe(
      'Failed to deserialize query string: limit: invalid digit found in string',
    );
    expect((await sw.get('/api/cluster/share-group/list?page=-1')).status).toBe(400);
    expect((await sw.get('/api/cluster/share-group/list?tenant=a&tenant=b')).text).toBe(
      'Failed to deserialize query string: duplicate field `tenant`',
    );
    const post = await sw.post('/api/cluster/share-group/list', {});
    expect([post.status, post.text, post.headers.allow]).toEqual([405, '', 'GET,HEAD']);
    expect((await sw.get('/api/cluster/share-group/list', { peer: REMOTE })).json).toMatchObject({ code: 401, data: null });
    expect((await sw.post('/api/cluster/share-group/detail', {}, { peer: REMOTE })).status).toBe(401);
  });
});

describe('record-delete-routes', () => {
  const KEYS = '/api/storage-engine/record/delete-by-keys';
  const OFFSETS = '/api/storage-engine/record/delete-by-offsets';

  function withShard(storageType: 'EngineMemory' | 'EngineSegment' = 'EngineMemory'): TwinApps {
    const apps = new TwinApps({ workload: 'none', seed: 7, nodes: 1 });
    apps.cluster.storage.createShard({ shard_name: 'orders', config: defaultShardConfig(1, storageType) });
    for (let i = 0; i < 5; i++) apps.cluster.storage.appendToShard('orders', { key: `key-${i}`, payload: `data-${i}` });
    apps.advance(1_000);
    return apps;
  }
  const held = (apps: TwinApps) => apps.cluster.storage.read('orders', 0, 100).map((r) => r.payload);

  it('deletes by offsets and by keys; the records are gone from the reads', async () => {
    const apps = withShard();
    const sw = apps.with('record-delete-routes');
    expect((await apps.plain.post(OFFSETS, { shard_name: 'orders', offsets: [1] })).status).toBe(404);
    const res = await sw.post(OFFSETS, { shard_name: 'orders', offsets: [1, 3] });
    expect([res.status, res.headers['content-type'], res.text]).toEqual([200, TEXT_PLAIN, '{"code":0,"data":"success","error":null}']);
    expect(held(apps)).toEqual(['data-0', 'data-2', 'data-4']);
    expect((await sw.post(KEYS, { shard_name: 'orders', keys: ['key-4', 'key-9'] })).json).toEqual({
      code: 0,
      data: 'success',
      error: null,
    });
    expect(held(apps)).toEqual(['data-0', 'data-2']);
  });

  it('reads of a topic skip the deleted records (/api/mqtt/message/read)', async () => {
    const apps = new TwinApps({ workload: 'none', seed: 7, nodes: 1 });
    const sw = apps.with('record-delete-routes');
    for (let i = 0; i < 4; i++)
      expect((await sw.post('/api/mqtt/message/send', { tenant: 'default', topic: 'del/t', payload: `m${i}` })).json.code).toBe(0);
    apps.advance(1_000);
    const shard = apps.cluster.topics.get('default', 'del/t')!.storage_name_list[0];
    expect((await sw.post(OFFSETS, { shard_name: shard, offsets: [0, 2] })).json.code).toBe(0);
    const read = await sw.post('/api/mqtt/message/read', { tenant: 'default', topic: 'del/t', offset: 0 });
    expect(read.json.data.messages.map((m: Row) => [m.offset, m.content])).toEqual([
      [1, 'm1'],
      [3, 'm3'],
    ]);
  });

  it('checks the body as the real handler: empty texts, plain Json rejections, unknown shard, EngineSegment', async () => {
    const apps = withShard();
    const sw = apps.with('record-delete-routes');
    expect((await sw.post(KEYS, { shard_name: '', keys: ['a'] })).json).toEqual({
      code: 100,
      data: '',
      error: 'shard_name cannot be empty',
    });
    expect((await sw.post(KEYS, { shard_name: 'orders', keys: [] })).json).toEqual({ code: 100, data: '', error: 'keys cannot be empty' });
    expect((await sw.post(OFFSETS, { shard_name: '', offsets: [1] })).json.error).toBe('shard_name cannot be empty');
    expect((await sw.post(OFFSETS, { shard_name: 'orders', offsets: [] })).json.error).toBe('offsets cannot be empty');
    expect((await sw.post(OFFSETS, { shard_name: 'nope', offsets: [1] })).json).toEqual({
      code: 100,
      data: '',
      error: 'Shard nope does not exist',
    });

    const missing = await sw.post(KEYS, { shard_name: 'orders' });
    expect([missing.status, missing.headers['content-type'], missing.text]).toEqual([
      422,
      TEXT_PLAIN,
      'Failed to deserialize the JSON body into the target type: missing field `keys` at line 1 column 23',
    ]);
    expect((await sw.post(OFFSETS, { shard_name: 'orders', offsets: [1, -2] })).text).toBe(
      'Failed to deserialize the JSON body into the target type: offsets[1]: invalid value: integer `-2`, expected u64 at line 1 column 38',
    );
    expect((await sw.post(KEYS, { shard_name: 'orders', keys: 'key-1' })).text).toMatch(
      /^Failed to deserialize the JSON body into the target type: keys: invalid type: string "key-1", expected a sequence/,
    );
    expect(
      (await sw.call('POST', KEYS, undefined, { rawBody: '{"shard_name":', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(400);
    const noType = await sw.call('POST', KEYS, undefined, { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
    expect([noType.status, noType.text]).toEqual([415, 'Expected request with `Content-Type: application/json`']);
    expect((await sw.call('POST', KEYS, undefined, { rawBody: '[1]', headers: { 'content-type': 'application/json' } })).status).toBe(422);
    expect((await sw.get(KEYS)).status).toBe(405);
    expect((await sw.post(KEYS, { shard_name: 'orders', keys: ['key-1'] }, { peer: REMOTE })).status).toBe(401);
    expect(held(apps)).toEqual(['data-0', 'data-1', 'data-2', 'data-3', 'data-4']);

    const segment = withShard('EngineSegment').with('record-delete-routes');
    expect((await segment.post(OFFSETS, { shard_name: 'orders', offsets: [1] })).json.error).toBe(
      'delete_by_offset operation is not supported',
    );
    expect((await segment.post(KEYS, { shard_name: 'orders', keys: ['key-1'] })).json.error).toBe(
      'delete_by_key operation is not supported',
    );
  });

  it('deletions are model writes: journaled, and a fresh cluster replaying the journal reads the same', async () => {
    const build = () => {
      const cluster = new Cluster({ seed: 9, nodes: 1, workload: 'none' });
      cluster.start();
      return cluster;
    };
    const writes: ModelWrite[] = [];
    const a = build();
    const appA = new AdminApp(a, { deviations: resolveDeviations(['record-delete-routes']), onModelWrite: (w) => void writes.push(w) });
    const call = (body: unknown, url: string) =>
      appA.handle({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        peer: '127.0.0.1',
        nodeId: 1,
      });
    for (let i = 0; i < 5; i++)
      await call({ tenant: 'default', topic: 'replay/t', payload: `m${i}`, key: `k${i}` }, '/api/mqtt/message/send');
    a.engine.advance(2_000);
    const shard = a.topics.get('default', 'replay/t')!.storage_name_list[0];
    await call({ shard_name: shard, offsets: [1] }, OFFSETS);
    a.engine.advance(500);
    await call({ shard_name: shard, keys: ['k3'] }, KEYS);
    // A delete that removes nothing changes nothing and is not journaled.
    await call({ shard_name: shard, offsets: [99] }, OFFSETS);
    expect(writes.map((w) => w.url.split('/').pop())).toEqual([
      'send',
      'send',
      'send',
      'send',
      'send',
      'delete-by-offsets',
      'delete-by-keys',
    ]);
    const readA = a.storage.read(shard, 0, 100).map((r) => r.payload);
    expect(readA).toEqual(['m0', 'm2', 'm4']);

    const b = build();
    const appB = new AdminApp(b, { deviations: resolveDeviations(['record-delete-routes']) });
    await replayWrites(
      b,
      appB,
      'A',
      writes.map((w) => journaled('api', w)),
      a.now(),
      'test',
    );
    expect(b.storage.read(shard, 0, 100).map((r) => r.payload)).toEqual(readA);
    expect(b.engine.trace.hash).toBe(a.engine.trace.hash);
  });
});

describe('bad input never gets a 5xx from the extra routes', () => {
  it('fuzzed bodies and queries are answered 2xx or 4xx', async () => {
    const apps = new TwinApps({ workload: 'demo', seed: 3 });
    const sw = apps.with('share-group-routes', 'record-delete-routes');
    const json = fc.jsonValue({ maxDepth: 3 });
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom('', '[]', '{"shard_name":', '{"shard_name":"x","keys":[1]}', '[["a"],["b"]]'),
    );
    const body = fc.oneof(
      text,
      json.map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            shard_name: fc.oneof(fc.constantFrom('', 'audit-log', 'nope'), json),
            keys: fc.oneof(fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }), json),
            offsets: fc.oneof(fc.array(fc.integer({ min: -2, max: 60 }), { maxLength: 4 }), json),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    const query = fc.array(
      fc.tuple(
        fc.constantFrom('tenant', 'group_name', 'limit', 'page', 'sort_field', 'sort_by', 'x'),
        fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('0', '-1', '4294967296', 'asc', 'acme')),
      ),
      { maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/storage-engine/record/delete-by-keys', '/api/storage-engine/record/delete-by-offsets'),
        body,
        async (path, raw) => {
          const res = await sw.call('POST', path, undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/cluster/share-group/list', '/api/cluster/share-group/detail'), query, async (path, pairs) => {
        const res = await sw.get(`${path}?${new URLSearchParams(pairs).toString()}`);
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) expect([0, 100]).toContain(res.json.code);
      }),
      { numRuns: 300, seed: 6 },
    );
  });
});
