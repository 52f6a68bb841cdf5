import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlainListServer, type PlainListServer, type PlainListServerOptions } from './plain-list-server.ts';

/**
 * The plain server (an independent implementation of part of the API, for calibrating the suites):
 * its own behaviour first, then the independence rule that makes it worth having.
 */

const HERE = fileURLToPath(new URL('.', import.meta.url));

interface Reply {
  status: number;
  body: { code: number; data: unknown; error?: string | null; message?: string };
}

/** Requests from 127.0.0.2: a peer the spec does not exempt from tokens. */
const remote = new Agent({ localAddress: '127.0.0.2' });

function client(server: PlainListServer) {
  return async (
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, unknown> = {},
    how: { remote?: boolean; token?: string } = {},
  ): Promise<Reply> => {
    const query = new URLSearchParams();
    if (method === 'GET')
      for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) query.append(k, String(x));
    const res = await request(`${server.url}${path}${method === 'GET' && query.size ? `?${query}` : ''}`, {
      method,
      headers: { 'content-type': 'application/json', ...(how.token ? { authorization: `Bearer ${how.token}` } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify(params) } : {}),
      ...(how.remote ? { dispatcher: remote } : {}),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Reply['body'] };
  };
}

async function started(options: PlainListServerOptions = {}) {
  const server = await startPlainListServer(options);
  return { server, call: client(server) };
}

const page = (r: Reply) => r.body.data as { data: Record<string, unknown>[]; total_count: number };
const names = (r: Reply, field: string) => page(r).data.map((row) => row[field]);

describe('the plain list server', () => {
  let s: Awaited<ReturnType<typeof started>>;
  beforeAll(async () => {
    s = await started();
    for (const name of ['beta', 'Alpha', 'gamma', 'alphabet', 'delta'])
      expect(
        (await s.call('POST', '/api/cluster/user/create', { tenant: 't1', username: name, password: 'pw', is_superuser: false })).body.code,
      ).toBe(0);
    await s.call('POST', '/api/cluster/user/create', { tenant: 't2', username: 'alpha', password: 'pw', is_superuser: true });
  });
  afterAll(async () => {
    await s.server.close();
    await remote.close();
  });

  it('lists newest first without sort_field, filters exact and contains (ignoring case), sorts by code point, pages and counts', async () => {
    const all = await s.call('GET', '/api/cluster/user/list', { tenant: 't1' });
    expect(all.body).toMatchObject({ code: 0, error: null });
    expect(names(all, 'username')).toEqual(['delta', 'alphabet', 'gamma', 'Alpha', 'beta']);
    expect(page(all).total_count).toBe(5);

    const alpha = await s.call('GET', '/api/cluster/user/list', { user_name: 'ALPH', sort_field: 'username', sort_by: 'asc' });
    expect(alpha.body.data).toEqual({
      data: [
        expect.objectContaining({ username: 'Alpha' }),
        expect.objectContaining({ username: 'alpha' }),
        expect.objectContaining({ username: 'alphabet' }),
      ],
      total_count: 3,
    });
    // sort_by absent is descending; page 2 of 2 holds the third record; total_count counts every match.
    const second = await s.call('GET', '/api/cluster/user/list', { tenant: 't1', sort_field: 'username', limit: 2, page: 2 });
    expect(names(second, 'username')).toEqual(['beta', 'alphabet']);
    expect(page(second).total_count).toBe(5);
    // The common filter: exact by default, contains with exact_match=false.
    const exact = await s.call('GET', '/api/cluster/user/list', { filter_field: 'username', filter_values: ['alpha', 'delta'] });
    expect(names(exact, 'username')).toEqual(['alpha', 'delta']);
    const fuzzy = await s.call('GET', '/api/cluster/user/list', {
      filter_field: 'username',
      filter_values: ['ph', 'mm'],
      exact_match: 'false',
    });
    expect(page(fuzzy).total_count).toBe(4);
  });

  it('never lists a password, and a deleted user is gone while deleting it again succeeds', async () => {
    expect(JSON.stringify((await s.call('GET', '/api/cluster/user/list')).body)).not.toContain('pw');
    for (let i = 0; i < 2; i++)
      expect((await s.call('POST', '/api/cluster/user/delete', { tenant: 't1', username: 'gamma' })).body.code).toBe(0);
    expect(names(await s.call('GET', '/api/cluster/user/list', { tenant: 't1' }), 'username')).not.toContain('gamma');
  });

  it('refuses bad input as a parameter error naming the parameter, and a duplicate with code 100', async () => {
    const refused = async (method: 'GET' | 'POST', path: string, params: Record<string, unknown>, param: string) => {
      const r = await s.call(method, path, params);
      expect(r.status, `${path} ${JSON.stringify(params)}`).toBe(400);
      expect(r.body).toMatchObject({ code: 400, data: '' });
      expect(r.body.error).toContain(param);
    };
    await refused('POST', '/api/cluster/user/create', { tenant: 't1', password: 'pw', is_superuser: false }, 'username');
    await refused(
      'POST',
      '/api/cluster/user/create',
      { tenant: 't1', username: 'x'.repeat(65), password: 'pw', is_superuser: false },
      'username',
    );
    await refused('POST', '/api/cluster/user/create', { tenant: 't1', username: 'u', password: 'pw', is_superuser: 'no' }, 'is_superuser');
    await refused(
      'POST',
      '/api/cluster/acl/create',
      { tenant: 't1', name: 'n', resource_type: 'Host', resource_name: 'r', action: 'All', permission: 'Allow' },
      'resource_type',
    );
    await refused('GET', '/api/cluster/user/list', { sort_field: 'tenant' }, 'sort_field');
    await refused('GET', '/api/cluster/user/list', { sort_field: 'username', sort_by: 'up' }, 'sort_by');
    await refused('GET', '/api/cluster/user/list', { limit: -1 }, 'limit');
    await refused('GET', '/api/cluster/user/list', { page: 0 }, 'page');
    const again = await s.call('POST', '/api/cluster/user/create', { tenant: 't1', username: 'beta', password: 'pw', is_superuser: false });
    expect(again).toEqual({ status: 200, body: { code: 100, data: '', error: 'user t1/beta already exists' } });
  });

  it('asks a token of every peer but 127.0.0.1 and ::1, and its login gives one (HS256, 8 hours)', async () => {
    const denied = await s.call('GET', '/api/cluster/user/list', {}, { remote: true });
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe(401);
    expect((await s.call('GET', '/health/ready', {}, { remote: true })).status).toBe(200);
    const wrong = await s.call('POST', '/api/v1/login', { username: 'admin', password: 'nope' }, { remote: true });
    expect(wrong).toEqual({ status: 401, body: { code: 401, message: 'Invalid username or password', data: null } });
    const login = await s.call('POST', '/api/v1/login', { username: 'admin', password: 'admin' }, { remote: true });
    const { token, expires_in } = login.body.data as { token: string; expires_in: number };
    expect(login.body).toMatchObject({ code: 0, message: 'success' });
    expect(expires_in).toBe(28_800);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    expect((await s.call('GET', '/api/cluster/user/list', {}, { remote: true, token })).body.code).toBe(0);
    const tampered = `${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await s.call('GET', '/api/cluster/user/list', {}, { remote: true, token: tampered })).status).toBe(401);
  });
});

describe('choices the options turn around', () => {
  it('envelope A with failure code 1, oldest first, ascending without sort_by', async () => {
    const { server, call } = await started({ envelope: 'A', failureCode: 1, baseOrder: 'oldest-first', sortByDefault: 'asc' });
    try {
      for (const t of ['b', 'c', 'a']) await call('POST', '/api/cluster/tenant/create', { tenant_name: t });
      expect(names(await call('GET', '/api/cluster/tenant/list'), 'tenant_name')).toEqual(['b', 'c', 'a']);
      expect(names(await call('GET', '/api/cluster/tenant/list', { sort_field: 'tenant_name' }), 'tenant_name')).toEqual(['a', 'b', 'c']);
      const dup = await call('POST', '/api/cluster/tenant/create', { tenant_name: 'a' });
      expect(dup.body).toEqual({ code: 1, message: 'tenant a already exists', data: null });
    } finally {
      await server.close();
    }
  });
});

describe('independence', () => {
  it('imports nothing of the simulator or the contract: it is written from the spec', () => {
    const files = [
      join(HERE, 'plain-list-server.ts'),
      ...readdirSync(join(HERE, 'plain-server')).map((f) => join(HERE, 'plain-server', f)),
    ];
    expect(files.length).toBeGreaterThan(5);
    const imports = files.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]/g)].map((m) => `${relative(HERE, f)} → ${m[1]}`),
    );
    expect(imports.length).toBeGreaterThan(10);
    // Only node built-ins, jose and its own modules.
    expect(imports.filter((i) => !/→ (node:[a-z]+|jose|\.\/[a-z-]+\.ts|\.\/plain-server\/[a-z-]+\.ts)$/.test(i))).toEqual([]);
  });
});
