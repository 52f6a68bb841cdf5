import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { ApiRequest, ApiResponse } from './core/api-exchange.ts';
import { InProcessSim } from './in-process-client.ts';
import { ListRequestMemo } from './list-request-memo.ts';
import { BUILT_IN_API, type ServedApi } from './served-api.ts';
import { failed } from '../model/errors/operation-error.ts';

const TENANTS = '/api/cluster/tenant/list?limit=5&sort_field=tenant_name';
const SHARDS = '/api/storage-engine/shard/list';
const REMOTE = '127.0.0.2';

const get = (url: string, extra: Partial<ApiRequest> = {}): ApiRequest => ({ method: 'GET', url, peer: '127.0.0.1', nodeId: 1, ...extra });

/** Shard-list POST with its parameters as a body of `type`. */
const shardsPost = (type = 'application/json'): ApiRequest =>
  get(SHARDS, { method: 'POST', body: '{"limit":5,"sort_field":"shard_name"}', headers: { 'content-type': type } });

type TenantListContext = Parameters<(typeof BUILT_IN_API.handlers)['cluster.tenant.list']>[0];

/**
 * The built-in API with a tenant list handler that, from its third call on (after the first request
 * in full and the second one's list version check), first runs `misbehave`.
 */
function tenantListMisbehavingAfterTwoCalls(misbehave: (ctx: TenantListContext) => void): ServedApi {
  const tenantList = BUILT_IN_API.handlers['cluster.tenant.list'];
  let calls = 0;
  return {
    ...BUILT_IN_API,
    handlers: {
      ...BUILT_IN_API.handlers,
      'cluster.tenant.list': (ctx: TenantListContext) => {
        if (++calls > 2) misbehave(ctx);
        return tenantList(ctx);
      },
    },
  };
}

/** The answer of `respond` and whether it came at once (no promise: the remembered-request path) or through the whole pipeline. */
async function respond(sim: InProcessSim, req: ApiRequest): Promise<{ atOnce: boolean; res: ApiResponse }> {
  const answer = sim.app.respond(req);
  return { atOnce: !(answer instanceof Promise), res: await answer };
}

describe('remembered list requests (ListRequestMemo)', () => {
  it('hold a GET only without a body, per node and URL, and are bounded', () => {
    const memo = new ListRequestMemo(2);
    const endpoint = CONTRACT.find((e) => e.id === 'cluster.tenant.list')!;
    const resolved = { endpoint, params: { limit: 5 }, key: 'k' };
    memo.remember(get('/a'), resolved);
    expect(memo.get(get('/a'))).toBe(resolved);
    expect(memo.get(get('/a', { nodeId: 2 }))).toBeUndefined();
    expect(memo.get(get('/a', { method: 'HEAD' }))).toBeUndefined();
    expect(memo.get(get('/a', { body: '{"limit":5}' }))).toBeUndefined();
    expect(memo.get(get('/a', { bodyTooLarge: true }))).toBeUndefined();
    memo.remember(get('/b', { body: '{}' }), resolved);
    expect(memo.size).toBe(1);
    memo.remember(get('/b'), resolved);
    memo.remember(get('/c'), resolved);
    expect(memo.size).toBe(1);
    expect(memo.get(get('/a'))).toBeUndefined();
  });

  it('hold POSTs by URL and JSON body, up to 4 KiB', () => {
    const memo = new ListRequestMemo();
    const endpoint = CONTRACT.find((e) => e.id === 'storage.shard.list')!;
    const resolved = { endpoint, params: { limit: 5 }, key: 'k' };
    const post = (body: string, type?: string): ApiRequest =>
      get(SHARDS, { method: 'POST', body, headers: type === undefined ? {} : { 'content-type': type } });
    memo.remember(post('{"limit":5}', 'application/json'), resolved);
    expect(memo.get(post('{"limit":5}', 'application/json; charset=utf-8'))).toBe(resolved);
    expect(memo.get(post('{"limit":5}'))).toBe(resolved);
    expect(memo.get(post('{"limit":6}', 'application/json'))).toBeUndefined();
    expect(memo.get(post('{"limit":5}', 'text/plain'))).toBeUndefined();
    expect(memo.get(get(SHARDS))).toBeUndefined();
    const big = `{"shard_name":"${'x'.repeat(4100)}"}`;
    memo.remember(post(big, 'application/json'), resolved);
    expect(memo.get(post(big, 'application/json'))).toBeUndefined();
  });

  it('find what a map by node, method, URL and body finds, through random histories (the URL filter turns away only misses)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            remember: fc.boolean(),
            method: fc.constantFrom('GET', 'POST'),
            url: fc.constantFrom('/a', '/b?x=1', SHARDS),
            body: fc.constantFrom(undefined, '', '{"limit":5}', '{"limit":6}'),
            nodeId: fc.constantFrom(1, 2),
          }),
          { maxLength: 80 },
        ),
        (steps) => {
          const max = 4;
          const memo = new ListRequestMemo(max);
          const reference = new Map<string, object>();
          const endpoint = CONTRACT.find((e) => e.id === 'storage.shard.list')!;
          steps.forEach((s, i) => {
            const req: ApiRequest = {
              method: s.method,
              url: s.url,
              peer: '127.0.0.1',
              nodeId: s.nodeId,
              ...(s.body === undefined ? {} : { body: s.body }),
            };
            const eligible = ListRequestMemo.eligible(req);
            const key = `${s.nodeId} ${s.method} ${s.url}\n${s.body ?? ''}`;
            if (s.remember) {
              const resolved = { endpoint, params: {}, key: String(i) };
              memo.remember(req, resolved);
              if (eligible) {
                if (reference.size >= max) reference.clear();
                reference.set(key, resolved);
              }
            } else expect(memo.get(req)).toBe(eligible ? reference.get(key) : undefined);
          });
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('answer a repeated list GET at once with the cached response, and through the whole pipeline after a write', async () => {
    const sim = new InProcessSim({ seed: 'known', workload: 'none', nodes: 2 });
    const first = await respond(sim, get(TENANTS));
    expect(first.atOnce).toBe(false);
    const second = await respond(sim, get(TENANTS));
    expect(second.atOnce).toBe(true);
    expect(second.res.status).toBe(200);
    expect(second.res.body).toBe(first.res.body);
    expect(second.res.bytes).toBe(first.res.bytes);
    expect(second.res.headers['x-mqsim-virtual-time']).toBe(String(sim.cluster.now()));
    // Another node, another URL form of the same query: each is resolved once in full.
    expect((await respond(sim, get(TENANTS, { nodeId: 2 }))).atOnce).toBe(false);
    expect((await respond(sim, get(`${TENANTS}&page=1`))).atOnce).toBe(false);
    expect((await respond(sim, get(`${TENANTS}&page=1`))).atOnce).toBe(true);

    expect((await sim.post('/api/cluster/tenant/create', { tenant_name: 'aaa-first', desc: '' })).json.code).toBe(0);
    const afterWrite = await respond(sim, get(TENANTS));
    expect(afterWrite.atOnce).toBe(false);
    expect(JSON.parse(afterWrite.res.body).data.data[0].tenant_name).toBe('aaa-first');
    const again = await respond(sim, get(TENANTS));
    expect(again.atOnce).toBe(true);
    expect(again.res.body).toBe(afterWrite.res.body);
  });

  it('never pass a request that needs a token: a remote peer gets 401 without one and the list with one, both in full', async () => {
    const sim = new InProcessSim({
      seed: 'known-auth',
      workload: 'none',
      admin: { password: 'pw', jwtSecret: 'known-secret-0123456789abcdef0123' },
    });
    await respond(sim, get(TENANTS));
    expect((await respond(sim, get(TENANTS))).atOnce).toBe(true);
    const refused = await respond(sim, get(TENANTS, { peer: REMOTE }));
    expect([refused.atOnce, refused.res.status]).toEqual([false, 401]);
    const login = await sim.post('/api/v1/login', { username: 'admin', password: 'pw' }, { peer: REMOTE });
    const withToken = await respond(sim, get(TENANTS, { peer: REMOTE, headers: { authorization: `Bearer ${login.json.data.token}` } }));
    expect([withToken.atOnce, withToken.res.status]).toEqual([false, 200]);
    const bad = await respond(sim, get(TENANTS, { peer: REMOTE, headers: { authorization: 'Bearer not-a-token' } }));
    expect([bad.atOnce, bad.res.status]).toEqual([false, 401]);
  });

  it('count against the rate limit as requests in full do', async () => {
    const sim = new InProcessSim({ seed: 'known-rate', workload: 'none' });
    sim.cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await respond(sim, get(TENANTS)));
    expect(answers.map((a) => [a.atOnce, a.res.status])).toEqual([
      [false, 200],
      [true, 200],
      [true, 200],
      [true, 429],
    ]);
    expect(JSON.parse(answers[3].res.body).message).toMatch(/max_admin_http_uri_rate/);
    expect(answers[3].res.headers['retry-after']).toBe('1');
  });

  it('are not used for a HEAD, a GET with its parameters in a body, or with the response cache off', async () => {
    const sim = new InProcessSim({ seed: 'known-forms', workload: 'none' });
    await respond(sim, get(TENANTS));
    expect((await respond(sim, get(TENANTS, { method: 'HEAD' }))).atOnce).toBe(false);
    const inBody = await respond(sim, get('/api/cluster/tenant/list', { body: '{"limit":5,"sort_field":"tenant_name"}' }));
    expect((await respond(sim, get('/api/cluster/tenant/list', { body: '{"limit":5,"sort_field":"tenant_name"}' }))).atOnce).toBe(false);
    expect(inBody.res.status).toBe(200);
    const off = new InProcessSim({ seed: 'known-off', workload: 'none' }, { responseCache: false });
    await respond(off, get(TENANTS));
    expect((await respond(off, get(TENANTS))).atOnce).toBe(false);
  });

  it('in verification mode, find a list handler that records a trace entry (a list read must change nothing)', async () => {
    // A handler sees no engine (HandlerCluster): this stand-in for a buggy one writes through the sim's cluster.
    const api = tenantListMisbehavingAfterTwoCalls(() => sim.cluster.engine.record('test.list-read-wrote', {}));
    const errors: unknown[] = [];
    const sim = new InProcessSim(
      { seed: 'known-verify', workload: 'none' },
      { api, verifyWriters: true, onInternalError: (e) => errors.push(e) },
    );
    expect((await respond(sim, get(TENANTS))).res.status).toBe(200);
    expect((await respond(sim, get(TENANTS))).res.status).toBe(200);
    const third = await respond(sim, get(TENANTS));
    expect([third.atOnce, third.res.status]).toEqual([true, 500]);
    expect(String(errors[0])).toMatch(/recorded trace entries/);
  });

  it('change nothing observable: the same requests give the same answers and the same trace with the response cache off', async () => {
    const requests: ApiRequest[] = [
      get(TENANTS),
      get(TENANTS),
      shardsPost(),
      shardsPost(),
      shardsPost('text/plain'),
      get(TENANTS, { peer: REMOTE }),
      { ...get('/api/cluster/tenant/create'), method: 'POST', body: '{"tenant_name":"aaa-first","desc":""}' },
      get(TENANTS),
      shardsPost(),
      shardsPost(),
    ];
    const run = async (responseCache: boolean) => {
      const sim = new InProcessSim({ seed: 'known-same', workload: 'none' }, { responseCache });
      const answers: [boolean, number, string][] = [];
      for (const req of requests) {
        const { atOnce, res } = await respond(sim, req);
        answers.push([atOnce, res.status, res.body]);
      }
      return { answers, hash: sim.cluster.engine.trace.hash, length: sim.cluster.engine.trace.length };
    };
    const on = await run(true);
    const off = await run(false);
    // The tenant create moves the tenant list's version, not the shard list's.
    expect(on.answers.map(([atOnce]) => atOnce)).toEqual([false, true, false, true, false, false, false, false, true, true]);
    expect(JSON.parse(on.answers[7][2]).data.data[0].tenant_name).toBe('aaa-first');
    expect(on.answers.map(([, status, body]) => [status, body])).toEqual(off.answers.map(([, status, body]) => [status, body]));
    expect(on.answers.map(([, status]) => status)).toEqual([200, 200, 200, 200, 415, 401, 200, 200, 200, 200]);
    // Each POST list answered, at once or in full, records its acceptance: the traces are the same.
    expect([on.hash, on.length]).toEqual([off.hash, off.length]);
  });

  it('leave a handler that refuses to the whole pipeline, which maps the refusal (not a 500)', async () => {
    const api = tenantListMisbehavingAfterTwoCalls(() => {
      throw failed('the tenant list is not available');
    });
    const errors: unknown[] = [];
    const sim = new InProcessSim({ seed: 'known-refuse', workload: 'none' }, { api, onInternalError: (e) => errors.push(e) });
    await respond(sim, get(TENANTS));
    expect((await respond(sim, get(TENANTS))).atOnce).toBe(true);
    const refused = await respond(sim, get(TENANTS));
    expect([refused.atOnce, refused.res.status]).toEqual([false, 200]);
    const body = JSON.parse(refused.res.body);
    expect([body.code === 0, body.message]).toEqual([false, 'the tenant list is not available']);
    expect(errors).toEqual([]);
  });
});
