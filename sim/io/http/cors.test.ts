import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';
import { isPreflight, preflightAnswer } from './cors.ts';

/** A client bound to 127.0.0.2: not exempt from tokens, so a preflight passing shows it skips auth. */
const remote = new Agent({ localAddress: '127.0.0.2' });

describe('CORS preflight recognition', () => {
  it('is an OPTIONS with Origin and Access-Control-Request-Method, nothing less', () => {
    expect(isPreflight('OPTIONS', { origin: 'http://a', 'access-control-request-method': 'POST' })).toBe(true);
    expect(isPreflight('OPTIONS', { origin: 'http://a' })).toBe(false);
    expect(isPreflight('OPTIONS', { 'access-control-request-method': 'POST' })).toBe(false);
    expect(isPreflight('GET', { origin: 'http://a', 'access-control-request-method': 'POST' })).toBe(false);
  });

  it('allows the requested headers by name, always authorization and content-type, and drops what is no header name', () => {
    const a = preflightAnswer({
      origin: 'http://a',
      'access-control-request-method': 'DELETE',
      'access-control-request-headers': 'X-Trace, Authorization, bad header\r\n',
    });
    expect(a.status).toBe(200);
    expect(a.headers['access-control-allow-headers']).toBe('authorization, content-type, x-trace');
    expect(a.headers['access-control-allow-methods']).toBe('GET, POST, HEAD, OPTIONS, DELETE');
    expect(a.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS on every node listener', () => {
  let running: RunningCluster;
  beforeAll(async () => {
    running = await startClusterServer({ seed: 3, nodes: 2, port: 0, workload: 'none', admin: { password: 'cors-pw' } });
  });
  afterAll(async () => {
    await running.close();
    await remote.close();
  });

  it('answers a preflight 200 with the allow headers, before authentication, on each node', async () => {
    for (const url of running.nodeUrls) {
      const res = await request(`${url}/api/cluster/tenant/list`, {
        method: 'OPTIONS',
        dispatcher: remote,
        headers: {
          origin: 'http://dashboard.example:5173',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
      expect(String(res.headers['access-control-allow-headers'])).toContain('authorization');
      expect(await res.body.text()).toBe('');
    }
  });

  it('puts Access-Control-Allow-Origin on answers of every kind: success, 401, 404, health and metrics', async () => {
    const origin = { origin: 'http://dashboard.example:5173' };
    const cases: [string, number][] = [
      ['/api/cluster/tenant/list', 401],
      ['/api/no/such/path', 404],
      ['/health/node', 200],
      ['/metrics', 200],
    ];
    for (const [path, status] of cases) {
      const res = await request(`${running.baseUrl}${path}`, { dispatcher: remote, headers: origin });
      await res.body.text();
      expect(res.statusCode, path).toBe(status);
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
    }
    const login = await request(`${running.baseUrl}/api/v1/login`, {
      method: 'POST',
      dispatcher: remote,
      headers: { ...origin, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'cors-pw' }),
    });
    const token = ((await login.body.json()) as { data: { token: string } }).data.token;
    expect(login.headers['access-control-allow-origin']).toBe('*');
    const list = await request(`${running.baseUrl}/api/cluster/tenant/list`, {
      dispatcher: remote,
      headers: { ...origin, authorization: `Bearer ${token}` },
    });
    expect(list.statusCode).toBe(200);
    expect(((await list.body.json()) as { code: number }).code).toBe(0);
    expect(list.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps an OPTIONS that is no preflight a wrong method (405), with the CORS headers', async () => {
    const res = await request(`${running.baseUrl}/api/cluster/tenant/list`, { method: 'OPTIONS' });
    await res.body.text();
    expect(res.statusCode).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});
