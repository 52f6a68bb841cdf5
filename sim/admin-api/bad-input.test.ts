import { describe, expect, it } from 'vitest';
import { InProcessSim } from './in-process-client.ts';

function expectClearError(res: { status: number; json: any }, status: number): void {
  expect(res.status).toBe(status);
  expect(res.json).toBeTypeOf('object');
  expect(res.json.code).not.toBe(0);
  expect(typeof res.json.message).toBe('string');
  expect(res.json.message.length).toBeGreaterThan(5);
}

describe('bad input', () => {
  it('answers clear 4xx envelopes and loses nothing', async () => {
    const sim = new InProcessSim();
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'keep-me' });
    const before = (await sim.get('/api/cluster/tenant/list')).json.data;

    const cases: Array<[string, string, string | Buffer | undefined, number, RegExp?]> = [
      ['POST', '/api/cluster/tenant/create', '{"tenant_name": ', 400, /JSON/],
      ['POST', '/api/cluster/tenant/create', '[1,2,3]', 400, /object/],
      ['POST', '/api/cluster/tenant/create', '"text"', 400, /object/],
      ['POST', '/api/cluster/tenant/create', '{"tenant_name": 5}', 400, /tenant_name/],
      ['POST', '/api/cluster/tenant/create', '{}', 400, /tenant_name/],
      ['POST', '/api/cluster/tenant/create', `{"tenant_name":"a","config":${'['.repeat(5000)}${']'.repeat(5000)}}`, 400, /nested/],
      ['POST', '/api/cluster/tenant/create', `{"tenant_name":"${'x'.repeat(3 * 1024 * 1024)}"}`, 413, /limit/],
      ['POST', '/api/cluster/user/create', '{"tenant":"t","username":"u","password":"p","is_superuser":"yes"}', 400, /is_superuser/],
      ['GET', '/api/cluster/tenant/create', undefined, 405, /POST/],
      ['DELETE', '/api/cluster/tenant/list', undefined, 405, /GET/],
      ['GET', '/api/cluster/nope', undefined, 404, /no endpoint/],
      ['GET', '/api/cluster/tenant/list?limit=abc', undefined, 400, /limit/],
      ['GET', '/api/cluster/tenant/list?limit=-1', undefined, 400, /limit/],
      ['GET', '/api/cluster/tenant/list?filter_field=nope&filter_values=x', undefined, 400, /filter_field/],
      ['GET', '/api/cluster/tenant/list?limit=1&limit=2', undefined, 400, /limit/],
    ];
    for (const [method, url, body, status, text] of cases) {
      const res = await sim.call(method, url, undefined, { rawBody: body });
      expectClearError(res, status);
      if (text) expect(res.json.message, `${method} ${url}`).toMatch(text);
      sim.advance(100);
    }
    const wrongType = await sim.call('POST', '/api/cluster/tenant/create', undefined, {
      rawBody: '{"tenant_name":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expectClearError(wrongType, 415);

    expect((await sim.get('/api/cluster/tenant/list')).json.data).toEqual(before);
  });

  it('ignores unknown query keys and body fields, including prototype keys', async () => {
    const sim = new InProcessSim();
    const list = await sim.get('/api/cluster/tenant/list?pagination[offset]=0&filers[0][field]=client_id&__proto__[x]=1&constructor=1');
    expect(list.status).toBe(200);
    const res = await sim.call('POST', '/api/cluster/tenant/create', undefined, {
      rawBody: '{"tenant_name":"p1","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"extra":1}',
    });
    expect(res.json.code).toBe(0);
    expect(({} as any).polluted).toBeUndefined();
    const t = (await sim.get('/api/cluster/tenant/list?tenant_name=p1')).json.data.data[0];
    expect(Object.keys(t).sort()).toEqual(['config', 'create_time', 'desc', 'tenant_name']);
  });

  it('reads GET parameters from a JSON body when the query names none', async () => {
    const sim = new InProcessSim();
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'bodyq' });
    const res = await sim.call('GET', '/api/cluster/tenant/list', { tenant_name: 'bodyq', limit: 5 });
    expect(res.json.data.total_count).toBe(1);
  });

  it('accepts filter_values in repeated, bracket and JSON forms', async () => {
    const sim = new InProcessSim();
    for (const n of ['zqa', 'zqb', 'zqc']) await sim.post('/api/cluster/tenant/create', { tenant_name: n });
    for (const q of [
      'filter_values=zqa&filter_values=zqb',
      'filter_values[]=zqa&filter_values[]=zqb',
      'filter_values=["zqa","zqb"]',
      'filter_values[0]=zqa&filter_values[1]=zqb',
    ]) {
      const res = await sim.get(`/api/cluster/tenant/list?filter_field=tenant_name&exact_match=true&${q}`);
      expect(res.json.data.data.map((t: any) => t.tenant_name).sort(), q).toEqual(['zqa', 'zqb']);
    }
    const fuzzy = await sim.get('/api/cluster/tenant/list?filter_field=tenant_name&filter_values=zq');
    expect(fuzzy.json.data.total_count).toBe(3);
  });
});
