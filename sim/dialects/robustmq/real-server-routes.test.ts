import { beforeAll, describe, expect, it } from 'vitest';
import { REMOTE, TwinApps } from './testing/real-server-test-kit.ts';

/** What each routing/answer-form switch changes on the wire, against the unbroken simulator on the same cluster. */

const TEXT = 'text/plain; charset=utf-8';
let apps: TwinApps;

beforeAll(() => {
  apps = new TwinApps({ workload: 'demo', seed: 3 });
});

describe('extractor-rejections-plain-text', () => {
  const sw = () => apps.with('extractor-rejections-plain-text');

  it('answers a GET with a missing or unparsable query field in plain text, without an envelope', async () => {
    const plain = await apps.plain.get('/api/cluster/topic/detail?topic_name=x');
    expect(plain.status).toBe(400);
    expect(plain.json.code).toBe(400);
    const cases: [string, string][] = [
      ['/api/cluster/topic/detail?topic_name=x', 'missing field `tenant`'],
      ['/api/cluster/tenant/list?limit=abc', 'limit: invalid digit found in string'],
      ['/api/cluster/tenant/list?page=', 'page: cannot parse integer from empty string'],
      ['/api/cluster/tenant/list?limit=-1', 'limit: invalid digit found in string'],
      ['/api/cluster/tenant/list?limit=1&limit=2', 'duplicate field `limit`'],
      ['/api/mqtt/monitor/data', 'missing field `data_type`'],
    ];
    for (const [url, err] of cases) {
      const res = await sw().get(url);
      expect(res.status, url).toBe(400);
      expect(res.headers['content-type'], url).toBe(TEXT);
      expect(res.text, url).toBe(`Failed to deserialize query string: ${err}`);
    }
  });

  it('reads GET parameters from the query only: a JSON body is not read', async () => {
    const body = { rawBody: JSON.stringify({ tenant: 'default' }) };
    expect((await apps.plain.call('GET', '/api/cluster/user/list', undefined, body)).status).toBe(200);
    const topic = apps.cluster.topics.all()[0];
    const detailBody = { rawBody: JSON.stringify({ tenant: topic.tenant, topic_name: topic.topic_name }) };
    expect((await apps.plain.call('GET', '/api/cluster/topic/detail', undefined, detailBody)).json.code).toBe(0);
    const res = await sw().call('GET', '/api/cluster/topic/detail', undefined, detailBody);
    expect(res.status).toBe(400);
    expect(res.text).toBe('Failed to deserialize query string: missing field `tenant`');
  });

  it("answers plain Json bodies with axum's 415 / 400 / 422 texts and changes nothing", async () => {
    const before = JSON.stringify(apps.cluster.config.current().MqttProtocol);
    const noType = await sw().call('POST', '/api/cluster/config/set', undefined, {
      rawBody: JSON.stringify({ config_type: 'MqttProtocol', config: '{"receive_max":7}' }),
      headers: { 'content-type': '' },
    });
    expect([noType.status, noType.headers['content-type'], noType.text]).toEqual([
      415,
      TEXT,
      'Expected request with `Content-Type: application/json`',
    ]);
    expect(JSON.stringify(apps.cluster.config.current().MqttProtocol)).toBe(before);

    const cut = await sw().call('POST', '/api/cluster/config/set', undefined, { rawBody: '{"config_type":"MqttProtocol"' });
    expect([cut.status, cut.text]).toEqual([
      400,
      'Failed to parse the request body as JSON: EOF while parsing a value at line 1 column 29',
    ]);
    const empty = await sw().call('POST', '/api/cluster/config/set', undefined, {
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect([empty.status, empty.text]).toEqual([
      400,
      'Failed to parse the request body as JSON: EOF while parsing a value at line 1 column 0',
    ]);
    const missing = await sw().post('/api/cluster/config/set', { config_type: 'MqttProtocol' });
    expect([missing.status, missing.headers['content-type'], missing.text]).toEqual([
      422,
      TEXT,
      'Failed to deserialize the JSON body into the target type: missing field `config` at line 1 column 30',
    ]);
    const wrongType = await sw().post('/api/storage-engine/segment/detail', { shard_name: 'x', segment_seq: 'a' });
    expect([wrongType.status, wrongType.text]).toEqual([
      422,
      'Failed to deserialize the JSON body into the target type: segment_seq: invalid type: string "a", expected u32 at line 1 column 35',
    ]);

    const plain = await apps.plain.post('/api/cluster/config/set', { config_type: 'MqttProtocol' });
    expect([plain.status, plain.json.code]).toEqual([400, 400]);
  });

  it('leaves ValidatedJson endpoints and valid requests as they are', async () => {
    const vj = await sw().post('/api/cluster/tenant/create', {});
    expect(vj.status).toBe(400);
    expect(vj.json.code).toBe(400);
    const ok = await sw().get('/api/cluster/tenant/list?limit=2');
    expect(ok.text).toBe((await apps.plain.get('/api/cluster/tenant/list?limit=2')).text);
  });
});

describe('json-as-text-plain', () => {
  it('labels envelope answers text/plain; login and 401 answers stay application/json', async () => {
    const sw = apps.with('json-as-text-plain');
    const plain = await apps.plain.get('/api/cluster/tenant/list');
    const res = await sw.get('/api/cluster/tenant/list');
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-type']).toBe(TEXT);
    expect(res.text).toBe(plain.text);
    expect((await sw.post('/api/cluster/tenant/create', {})).headers['content-type']).toBe(TEXT);
    expect((await sw.post('/api/v1/login', { username: 'admin', password: 'admin' })).headers['content-type']).toMatch(
      /^application\/json/,
    );
    expect((await sw.post('/api/v1/login', { username: 'admin', password: 'wrong' })).headers['content-type']).toMatch(
      /^application\/json/,
    );
    const unauthorized = await sw.get('/api/cluster/tenant/list', { peer: REMOTE });
    expect([unauthorized.status, unauthorized.headers['content-type']]).toEqual([401, expect.stringMatching(/^application\/json/)]);
  });
});

describe('removed routes', () => {
  it("status-route-removed: GET /api/status is the static fallback's empty 404, for any peer; /api/info stays", async () => {
    const sw = apps.with('status-route-removed');
    expect((await apps.plain.get('/api/status')).status).toBe(200);
    for (const peer of ['127.0.0.1', REMOTE]) {
      const res = await sw.get('/api/status', { peer });
      expect([res.status, res.text, res.headers['content-type']]).toEqual([404, '', undefined]);
    }
    expect((await sw.get('/api/info')).json.code).toBe(0);
  });

  it('healthy-route-removed: GET answers 404, POST 405 with Allow GET,HEAD, both empty', async () => {
    const sw = apps.with('healthy-route-removed');
    expect((await apps.plain.get('/api/cluster/healthy')).json.data).toBe(true);
    expect(await sw.get('/api/cluster/healthy')).toMatchObject({ status: 404, text: '' });
    const post = await sw.post('/api/cluster/healthy', {});
    expect([post.status, post.text, post.headers.allow]).toEqual([405, '', 'GET,HEAD']);
  });

  it("message-routes-moved: the spec's paths answer 405 (POST), the routes answer at /api/cluster/message/*", async () => {
    const sw = apps.with('message-routes-moved');
    const old = await sw.post('/api/mqtt/message/send', { tenant: 'default', topic: 'moved/t', payload: 'x' });
    expect([old.status, old.text, old.headers.allow]).toEqual([405, '', 'GET,HEAD']);
    expect((await sw.get('/api/mqtt/message/read')).status).toBe(404);
    expect((await apps.plain.post('/api/cluster/message/send', { tenant: 'default', topic: 'moved/t', payload: 'x' })).status).toBe(404);
    const sent = await sw.post('/api/cluster/message/send', { tenant: 'default', topic: 'moved/t', payload: 'hello' });
    expect(sent.json.code).toBe(0);
    const read = await sw.post('/api/cluster/message/read', { tenant: 'default', topic: 'moved/t', offset: 0 });
    expect(read.json.data.messages.map((m: { content: string }) => m.content)).toContain('hello');
  });
});

describe('root-serves-spa', () => {
  it("GET / answers the dashboard's index.html instead of the version text; auth is unchanged", async () => {
    const plain = await apps.plain.get('/');
    expect(plain.headers['content-type']).toMatch(/^text\/plain/);
    const res = await apps.with('root-serves-spa').get('/');
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html']);
    expect(res.text).toMatch(/^<!doctype html>[\s\S]*<div id="root"><\/div>/);
    expect((await apps.with('root-serves-spa').get('/', { peer: REMOTE })).status).toBe(401);
  });
});

describe('non-api-paths-open', () => {
  it('answers paths outside /api to a remote peer without a token; /api paths still need one', async () => {
    const sw = apps.with('non-api-paths-open');
    expect((await apps.plain.get('/', { peer: REMOTE })).status).toBe(401);
    const root = await sw.get('/', { peer: REMOTE });
    expect(root.status).toBe(200);
    expect(root.text).toBe((await apps.plain.get('/')).text);
    expect((await sw.get('/api/cluster/tenant/list', { peer: REMOTE })).status).toBe(401);
    expect((await sw.get('/api/status', { peer: REMOTE })).status).toBe(401);
  });
});

describe('filter-values-unusable-in-query', () => {
  const url = '/api/cluster/tenant/list?filter_field=tenant_name&filter_values=default';

  it('refuses filter_values on the lists that declare it (in the envelope: the plain-text form is extractor-rejections-plain-text)', async () => {
    const plain = await apps.plain.get(url);
    expect(plain.json.data.data.map((t: { tenant_name: string }) => t.tenant_name)).toEqual(['default']);
    const sw = apps.with('filter-values-unusable-in-query');
    const res = await sw.get(url);
    expect(res.status).toBe(400);
    expect(res.json.code).not.toBe(0);
    expect(res.text).toContain('invalid type: string \\"default\\", expected a sequence');
    expect((await sw.get(`${url}&filter_values=acme`)).text).toContain('duplicate field `filter_values`');
  });

  it('ignores filter_values on lists that do not declare it, and the bracket form everywhere', async () => {
    const sw = apps.with('filter-values-unusable-in-query');
    const all = (await apps.plain.get('/api/cluster/topic/list')).json.data.total_count;
    const filtered = await apps.plain.get('/api/cluster/topic/list?filter_field=tenant&filter_values=default&exact_match=true');
    expect(filtered.json.data.total_count).toBeLessThan(all);
    expect((await sw.get('/api/cluster/topic/list?filter_field=tenant&filter_values=default&exact_match=true')).json.data.total_count).toBe(
      all,
    );
    const tenants = (await apps.plain.get('/api/cluster/tenant/list')).json.data.total_count;
    const bracket = await sw.get('/api/cluster/tenant/list?filter_field=tenant_name&filter_values[]=default');
    expect(bracket.json.data.total_count).toBe(tenants);
    expect(tenants).toBeGreaterThan(1);
  });
});
