import { beforeAll, describe, expect, it } from 'vitest';
import { grpcWrapped } from './real-server-variants.ts';
import { REMOTE, TwinApps } from './testing/real-server-test-kit.ts';

/** What each real-server behaviour the spec allows changes on the wire, against the unbroken simulator. */

type Row = Record<string, any>;
let apps: TwinApps;

beforeAll(() => {
  apps = new TwinApps({ workload: 'demo', seed: 3 });
});

const MISSING_TENANT_NAME =
  'JSON parsing failed: Failed to deserialize the JSON body into the target type: missing field `tenant_name` at line 1 column 2';

describe('failure-code-100', () => {
  it('answers in form B; failures with code 100, data "" and the real validation texts', async () => {
    const sw = apps.with('failure-code-100');
    expect((await apps.plain.post('/api/cluster/tenant/create', {})).json).toMatchObject({ code: 400, data: null });
    const missing = await sw.post('/api/cluster/tenant/create', {});
    expect([missing.status, missing.text]).toEqual([400, JSON.stringify({ code: 100, data: '', error: MISSING_TENANT_NAME })]);
    const empty = await sw.post('/api/cluster/tenant/create', { tenant_name: '' });
    expect(empty.json).toEqual({ code: 100, data: '', error: 'Parameter validation failed: Tenant name length must be between 1-128' });
    const unknown = await sw.post('/api/cluster/tenant/update', { tenant_name: 'nope', desc: 'x' });
    expect([unknown.status, unknown.json]).toEqual([200, { code: 100, data: '', error: 'Tenant nope not found' }]);
    const list = await sw.get('/api/cluster/tenant/list');
    expect(list.json).toEqual({ code: 0, data: (await apps.plain.get('/api/cluster/tenant/list')).json.data, error: null });
    expect((await sw.post('/api/v1/login', { username: 'admin', password: 'admin' })).json).toMatchObject({ code: 0, message: 'success' });
    expect((await sw.get('/api/cluster/tenant/list', { peer: REMOTE })).json).toMatchObject({ code: 401, data: null });
  });
});

describe('validation-texts-in-words', () => {
  const sw = () => apps.with('validation-texts-in-words');

  it('words ValidatedJson refusals as the real extractor, keeping the envelope and code', async () => {
    const cases: [string, Row, string][] = [
      ['/api/cluster/tenant/create', {}, MISSING_TENANT_NAME],
      [
        '/api/cluster/tenant/create',
        { tenant_name: 'x'.repeat(129), desc: 'd'.repeat(501) },
        'Parameter validation failed: Tenant name length must be between 1-128; Description length cannot exceed 500',
      ],
      [
        '/api/cluster/acl/create',
        { tenant: 'default', name: '', resource_type: 'Host', resource_name: 'r', action: 'All', permission: 'Deny' },
        'Parameter validation failed: Name length must be between 1-128; Resource type must be ClientId, User or Ip',
      ],
      [
        '/api/cluster/user/create',
        { tenant: 'default', username: 'u', password: 'p', is_superuser: 'yes' },
        'JSON parsing failed: Failed to deserialize the JSON body into the target type: is_superuser: invalid type: string "yes", expected a boolean at line 1 column 70',
      ],
      [
        '/api/mqtt/auto-subscribe/create',
        { name: 'n', tenant: 'default', topic: 't', qos: 3, no_local: false, retain_as_published: false, retained_handling: 0 },
        'Parameter validation failed: QoS must be 0, 1 or 2',
      ],
      [
        '/api/cluster/connector/create',
        { tenant: 'default', connector_name: 'c', connector_type: 'pigeon', config: '{}', topic_name: 't' },
        expect.stringMatching(/^Parameter validation failed: Connector type must be kafka, .* s3 or file$/) as unknown as string,
      ],
      ['/api/cluster/node/leave', { node_id: 0 }, 'Parameter validation failed: node_id must be >= 1'],
      ['/api/cluster/user/delete', { tenant: '', username: 'u' }, "Parameter validation failed: Field 'tenant' validation failed: length"],
    ];
    for (const [url, body, text] of cases) {
      const plain = await apps.plain.post(url, body);
      const res = await sw().post(url, body);
      expect([res.status, res.json.code], url).toEqual([plain.status, plain.json.code]);
      expect(plain.json.message, url).not.toBe(res.json.message);
      expect(res.json.message, url).toEqual(text);
    }
  });

  it('refuses a body without a JSON Content-Type before anything runs; model refusals keep their text', async () => {
    const raw = JSON.stringify({ tenant_name: 'no-type' });
    expect(
      (await apps.plain.call('POST', '/api/cluster/tenant/create', undefined, { rawBody: raw, headers: { 'content-type': '' } })).json.code,
    ).toBe(0);
    const res = await sw().call('POST', '/api/cluster/tenant/create', undefined, {
      rawBody: JSON.stringify({ tenant_name: 'no-type-2' }),
      headers: { 'content-type': '' },
    });
    expect([res.status, res.json.message]).toEqual([400, 'JSON parsing failed: Expected request with `Content-Type: application/json`']);
    expect(apps.cluster.tenants.has('no-type-2')).toBe(false);
    const badConfig = { tenant: 'default', connector_name: 'cfg', connector_type: 'file', config: '{}', topic_name: 't' };
    expect((await sw().post('/api/cluster/connector/create', badConfig)).json.message).toBe(
      (await apps.plain.post('/api/cluster/connector/create', badConfig)).json.message,
    );
  });
});

describe('grpc-wrapped-errors', () => {
  it("wraps meta-service refusals, not the admin handler's own", async () => {
    const sw = apps.with('grpc-wrapped-errors');
    const res = await sw.post('/api/cluster/tenant/update', { tenant_name: 'nope' });
    expect(res.json.message).toBe(
      'Grpc call of the node failed,Grpc status was status: Internal, message: "Tenant nope not found", details: [], metadata: MetadataMap { headers: {} }',
    );
    expect(res.json.message).toBe(grpcWrapped((await apps.plain.post('/api/cluster/tenant/update', { tenant_name: 'nope' })).json.message));
    const live = await sw.post('/api/cluster/node/leave', { node_id: 2 });
    expect(live.json.message).toMatch(/^Node 2 is still registered/);
    expect((await sw.get('/api/cluster/connector/detail?tenant=default&connector_name=nope')).json.message).toBe(
      'Connector nope does not exist.',
    );
  });
});

describe('wrong-method-empty-405 and unknown-path-empty-404', () => {
  it('a wrong method answers an empty 405 with Allow, after authentication', async () => {
    const sw = apps.with('wrong-method-empty-405');
    expect((await apps.plain.get('/api/cluster/tenant/create')).json).toMatchObject({ code: 400 });
    const get = await sw.get('/api/cluster/tenant/create');
    expect([get.status, get.text, get.headers.allow]).toEqual([405, '', 'POST']);
    const post = await sw.post('/api/cluster/tenant/list', {});
    expect([post.status, post.text, post.headers.allow]).toEqual([405, '', 'GET,HEAD']);
    expect((await apps.plain.get('/api/cluster/tenant/create', { peer: REMOTE })).status).toBe(405);
    expect((await sw.get('/api/cluster/tenant/create', { peer: REMOTE })).status).toBe(401);
    expect(apps.cluster.tenants.has('')).toBe(false);
  });

  it('an unknown path answers the static fallback: GET 404, POST 405, empty', async () => {
    const sw = apps.with('unknown-path-empty-404');
    expect((await apps.plain.get('/api/nope')).json).toMatchObject({ code: 404 });
    expect(await sw.get('/api/nope')).toMatchObject({ status: 404, text: '' });
    expect((await sw.post('/nope', {})).headers.allow).toBe('GET,HEAD');
    expect((await sw.get('/api/cluster/tenant/list')).json.code).toBe(0);
  });
});

describe('extra-routes', () => {
  it('serves pprof and /api/cluster/message/* (the MCP routes are the mcp-server switch)', async () => {
    const sw = apps.with('extra-routes');
    expect((await apps.plain.get('/debug/pprof/flamegraph')).status).toBe(404);
    const pprof = await sw.get('/debug/pprof/flamegraph', { peer: REMOTE });
    expect([pprof.status, pprof.headers['content-type'], pprof.text]).toEqual([
      200,
      'text/plain; charset=utf-8',
      'pprof is disabled. Set runtime.pprof_enable = true in config to enable it.',
    ]);
    expect((await sw.post('/debug/pprof/flamegraph', {})).headers.allow).toBe('GET,HEAD');
    expect((await sw.post('/register', {})).status).toBe(404);
    expect((await sw.post('/api/cluster/message/send', { tenant: 'default', topic: 'extra/t', payload: 'p' })).json.code).toBe(0);
    expect((await sw.post('/api/mqtt/message/send', { tenant: 'default', topic: 'extra/t', payload: 'q' })).json.code).toBe(0);
  });
});

describe('list, tenant and schema variants', () => {
  it('sort-lenient: unknown sort_field ignored, descending unless sort_by is exactly asc', async () => {
    const sw = apps.with('sort-lenient');
    const names = async (caller: typeof sw, q: string) => {
      const res = await caller.get(`/api/cluster/user/list?${q}`);
      return res.status === 200 ? res.json.data.data.map((u: Row) => u.username) : res.status;
    };
    const asc = await names(apps.plain, 'sort_field=username&sort_by=asc');
    expect(asc.length).toBeGreaterThan(2);
    const desc = [...asc].reverse();
    expect(await names(apps.plain, 'sort_field=username')).toEqual(asc);
    expect(await names(sw, 'sort_field=username')).toEqual(desc);
    expect(await names(sw, 'sort_field=username&sort_by=ASC')).toEqual(desc);
    expect(await names(sw, 'sort_field=username&sort_by=asc')).toEqual(asc);
    // The simulator reads them as the real server does (decisions): any sort_by but asc descends, an unknown field is ignored.
    expect(await names(apps.plain, 'sort_field=username&sort_by=sideways')).toEqual(desc);
    expect(await names(sw, 'sort_field=username&sort_by=sideways')).toEqual(desc);
    expect(await names(apps.plain, 'sort_field=bogus')).toEqual(await names(apps.plain, ''));
    expect(await names(sw, 'sort_field=bogus&sort_by=desc')).toEqual(await names(apps.plain, ''));
  });

  it('connector-names-global: a name used by another tenant is refused; delete finds it by name', async () => {
    const own = new TwinApps({ workload: 'demo', seed: 9 });
    const sw = own.with('connector-names-global');
    const input = {
      tenant: 'acme',
      connector_name: 'sensor-archive',
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: '/tmp/x.log' }),
      topic_name: 'a/#',
    };
    const res = await sw.post('/api/cluster/connector/create', input);
    expect([res.status, res.json.code, res.json.message]).toEqual([200, 1, 'Connector [sensor-archive] already exist']);
    expect((await own.plain.post('/api/cluster/connector/create', { ...input, connector_name: 'other' })).json.code).toBe(0);
    expect((await sw.post('/api/cluster/connector/delete', { tenant: 'globex', connector_name: 'sensor-archive' })).json.code).toBe(0);
    expect(own.cluster.connectors.get('default', 'sensor-archive')).toBeUndefined();
    expect((await own.plain.post('/api/cluster/connector/delete', { tenant: 'globex', connector_name: 'other' })).json.code).toBe(1);
  });

  it('tenant-update-clears-desc: an update without desc empties it', async () => {
    const own = new TwinApps({ workload: 'none', seed: 10 });
    await own.plain.post('/api/cluster/tenant/create', { tenant_name: 't1', desc: 'first' });
    await own.plain.post('/api/cluster/tenant/update', { tenant_name: 't1' });
    const desc = async () => ((await own.plain.get('/api/cluster/tenant/list?tenant_name=t1')).json.data.data as Row[])[0].desc;
    expect(await desc()).toBe('first');
    expect((await own.with('tenant-update-clears-desc').post('/api/cluster/tenant/update', { tenant_name: 't1' })).json.code).toBe(0);
    expect(await desc()).toBe('');
  });

  it('idempotent-deletes: unknown tenant, ACL, blacklist and schema-bind deletes succeed', async () => {
    const sw = apps.with('idempotent-deletes');
    const deletes: [string, Row][] = [
      ['/api/cluster/tenant/delete', { tenant_name: 'nope' }],
      ['/api/cluster/acl/delete', { tenant: 'default', name: 'nope' }],
      ['/api/cluster/blacklist/delete', { tenant: 'default', name: 'nope' }],
      ['/api/cluster/schema-bind/delete', { tenant: 'default', schema_name: 'nope', resource_name: 'r' }],
    ];
    for (const [url, body] of deletes) {
      expect((await apps.plain.post(url, body)).json.code, url).toBe(1);
      expect((await sw.post(url, body)).json, url).toMatchObject({ code: 0, data: 'success' });
    }
    expect((await sw.post('/api/cluster/tenant/delete', { tenant_name: 'default' })).json.code).toBe(1);
    expect((await sw.post('/api/cluster/user/delete', { tenant: 'default', username: 'nope' })).json.code).toBe(1);
  });

  it('schema-create-needs-desc and schema-bind-list-needs-tenant', async () => {
    const schema = { tenant: 'default', schema_name: 'no-desc', schema_type: 'json', schema: '{"type":"object"}' };
    expect((await apps.plain.post('/api/cluster/schema/create', schema)).json.code).toBe(0);
    const refused = await apps.with('schema-create-needs-desc').post('/api/cluster/schema/create', { ...schema, schema_name: 'no-desc-2' });
    expect([refused.status, refused.json.message]).toEqual([400, expect.stringContaining('desc')]);
    const sw = apps.with('schema-bind-list-needs-tenant');
    expect((await apps.plain.get('/api/cluster/schema-bind/list')).json.data.total_count).toBeGreaterThan(0);
    expect((await sw.get('/api/cluster/schema-bind/list')).json.data).toEqual({ data: [], total_count: 0 });
    expect((await sw.get('/api/cluster/schema-bind/list?tenant=acme')).json.data).toEqual(
      (await apps.plain.get('/api/cluster/schema-bind/list?tenant=acme')).json.data,
    );
  });
});

describe('topic-create-needs-source', () => {
  it('refuses a topic create without source as serde does ("missing field `source`"), and takes one with it', async () => {
    const own = new TwinApps({ workload: 'none', seed: 5 });
    const topic = { tenant: 'default', topic_name: 'no-source', storage_type: 'EngineMemory' };
    expect((await own.plain.post('/api/cluster/topic/create', topic)).json.code).toBe(0);
    const sw = own.with('topic-create-needs-source', 'validation-texts-in-words');
    const refused = await sw.post('/api/cluster/topic/create', { ...topic, topic_name: 'no-source-2' });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(
      /^JSON parsing failed: Failed to deserialize the JSON body into the target type: missing field `source`/,
    );
    expect((await sw.post('/api/cluster/topic/create', { ...topic, topic_name: 'with-source', source: 'MQTT' })).json.code).toBe(0);
  });
});

describe('status, health, mq9, config, topics, segments', () => {
  it('health-cluster-placeholder: ok with the placeholder text even with a node down', async () => {
    const own = new TwinApps({ workload: 'none', seed: 11 });
    own.cluster.nodes.stop(3);
    expect((await own.plain.get('/health/cluster')).json.data.status).toBe('degraded');
    expect((await own.with('health-cluster-placeholder').get('/health/cluster')).json.data).toEqual({
      status: 'ok',
      check_type: 'cluster',
      message: 'health check placeholder',
    });
  });

  it('mq9-real-texts: "nats-broker is not running"', async () => {
    const own = new TwinApps({ workload: 'none', seed: 12 });
    own.cluster.mq9.setRunning(false);
    const plain = await own.plain.get('/api/mq9/agent/list');
    const res = await own.with('mq9-real-texts').get('/api/mq9/agent/list');
    expect([res.status, res.json.code]).toEqual([plain.status, plain.json.code]);
    expect(res.json.message).toBe('nats-broker is not running');
  });

  it('status-meta-keys-indexed: meta keys metadata_0, offset_0, data_0', async () => {
    const plain = (await apps.plain.get('/api/info')).json.data.meta;
    const res = (await apps.with('status-meta-keys-indexed').get('/api/status')).json.data.meta;
    expect(Object.keys(plain).sort()).toEqual(['data', 'meta', 'mqtt', 'offset']);
    expect(res).toEqual({ metadata_0: plain.meta, mqtt_0: plain.mqtt, offset_0: plain.offset, data_0: plain.data });
  });

  it('config-set-extra-types: MetaRuntime (shown in meta_runtime) and KafkaDynamic are accepted', async () => {
    const own = new TwinApps({ workload: 'none', seed: 13 });
    const sw = own.with('config-set-extra-types');
    const set = { config_type: 'MetaRuntime', config: JSON.stringify({ group_offset_expire_sec: 120 }) };
    expect((await own.plain.post('/api/cluster/config/set', set)).status).toBe(400);
    expect((await sw.post('/api/cluster/config/set', set)).json.code).toBe(0);
    expect((await sw.get('/api/cluster/config/get')).json.data.meta_runtime.group_offset_expire_sec).toBe(120);
    expect(
      (await sw.post('/api/cluster/config/set', { config_type: 'KafkaDynamic', config: '{"auto_create_topics_enable":true}' })).json.code,
    ).toBe(0);
    const bad = await sw.post('/api/cluster/config/set', { config_type: 'MetaRuntime', config: '{"x":' });
    expect([bad.status, bad.json.code, bad.json.message]).toEqual([
      200,
      1,
      'Failed to update in-memory config: EOF while parsing a value at line 1 column 5',
    ]);
    expect((await sw.post('/api/cluster/config/set', { config_type: 'Bogus', config: '{}' })).status).toBe(400);
  });

  it('topic-create-idempotent: a duplicate create succeeds with a fresh, unsaved topic_id', async () => {
    const sw = apps.with('topic-create-idempotent');
    const t = apps.cluster.topics.all().find((x) => x.tenant === 'default')!;
    const input = { tenant: t.tenant, topic_name: t.topic_name, storage_type: 'EngineMemory' };
    expect((await apps.plain.post('/api/cluster/topic/create', input)).json.code).toBe(1);
    const res = (await sw.post('/api/cluster/topic/create', input)).json;
    expect(res.code).toBe(0);
    expect(res.data.topic_name).toBe(t.topic_name);
    expect(res.data.topic_id).toMatch(/^[0-9a-v]{20}$/);
    expect(res.data.topic_id).not.toBe(t.topic_id);
    expect(apps.cluster.topics.get(t.tenant, t.topic_name)!.topic_id).toBe(t.topic_id);
  });

  it('segment-detail-unknown-null: an unknown segment answers code 0 with data null', async () => {
    const body = { shard_name: 'nope', segment_seq: 0 };
    expect((await apps.plain.post('/api/storage-engine/segment/detail', body)).json.code).toBe(1);
    expect((await apps.with('segment-detail-unknown-null').post('/api/storage-engine/segment/detail', body)).json).toEqual({
      code: 0,
      message: 'success',
      data: null,
    });
  });
});

describe('body over the limit (axum DefaultBodyLimit, 2 MB)', () => {
  const big = JSON.stringify({ tenant_name: 'x'.repeat(2.5 * 1024 * 1024) });
  it('ValidatedJson routes: HTTP 400, code 100, "JSON parsing failed: Failed to buffer the request body: length limit exceeded"', async () => {
    const res = await apps.with('failure-code-100').call('POST', '/api/cluster/tenant/create', undefined, { rawBody: big });
    expect([res.status, res.json]).toEqual([
      400,
      { code: 100, data: '', error: 'JSON parsing failed: Failed to buffer the request body: length limit exceeded' },
    ]);
    expect((await apps.plain.call('POST', '/api/cluster/tenant/create', undefined, { rawBody: big })).status).toBe(413);
  });
  it('plain Json routes: HTTP 413 plain text', async () => {
    const res = await apps.with('extractor-rejections-plain-text').call('POST', '/api/cluster/config/set', undefined, { rawBody: big });
    expect([res.status, res.text, res.headers['content-type']]).toEqual([
      413,
      'Failed to buffer the request body: length limit exceeded',
      'text/plain; charset=utf-8',
    ]);
  });
});
