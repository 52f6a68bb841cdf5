// Named imports on purpose: the interception must reach them too (not only `http.request`).
import { get as httpGet, request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { fetch as undiciFetch, getGlobalDispatcher, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { AdminApp } from '../../admin-api/admin-app.ts';
import { interceptOrigin, type Interception } from './intercept.ts';

/**
 * `interceptOrigin` answers one origin in-process for every HTTP client of this process, opening no
 * socket, and lets every other origin through. The origin's host does not resolve (`.invalid` is
 * reserved), so a request that escaped the interception would fail; sockets are counted at
 * `net.Socket.prototype.connect`, which every TCP and TLS connection of Node goes through.
 */

const ORIGIN = 'http://broker.invalid:58080';

type Client = (url: string, body?: unknown) => Promise<{ status: number; json: any }>;

function nodeHttp(url: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const done = (res: IncomingMessage): void => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      res.on('error', reject);
    };
    if (body === undefined) httpGet(url, done).on('error', reject);
    else {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, done);
      req.on('error', reject);
      req.end(JSON.stringify(body));
    }
  });
}

const CLIENTS: Record<string, Client> = {
  'http.get / http.request': nodeHttp,
  'global fetch': async (url, body) => {
    const res = await fetch(
      url,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    return { status: res.status, json: await res.json() };
  },
  'undici.request': async (url, body) => {
    const res = await undiciRequest(
      url,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    return { status: res.statusCode, json: await res.body.json() };
  },
  'undici.fetch': async (url, body) => {
    const res = await undiciFetch(
      url,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    return { status: res.status, json: await res.json() };
  },
  axios: async (url, body) => {
    const res =
      body === undefined
        ? await axios.get(url, { validateStatus: () => true })
        : await axios.post(url, body, { validateStatus: () => true });
    return { status: res.status, json: res.data };
  },
};

describe('interceptOrigin', () => {
  let app: AdminApp;
  let server: Server;
  let passthroughUrl: string;
  let passthroughHits = 0;
  const connects = vi.spyOn(net.Socket.prototype, 'connect');

  beforeAll(async () => {
    app = new AdminApp(new Cluster({ seed: 3, nodes: 3 }).start());
    server = createServer((req, res) => {
      passthroughHits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ from: 'passthrough', method: req.method, url: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    passthroughUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    connects.mockRestore();
    await axios.get(`${passthroughUrl}/close`).catch(() => {});
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  let interception: Interception | undefined;
  afterEach(() => interception?.dispose());

  for (const [name, client] of Object.entries(CLIENTS)) {
    it(`${name}: answered in-process (a write, then a read that shows it), no socket opened`, async () => {
      interception = interceptOrigin(app, ORIGIN, { peer: '127.0.0.1' });
      connects.mockClear();
      const tenant = `via-${name.replace(/[^a-z]+/gi, '-')}`;
      const created = await client(`${ORIGIN}/api/cluster/tenant/create`, { tenant_name: tenant });
      expect(created.status).toBe(200);
      expect(created.json.code).toBe(0);
      const listed = await client(`${ORIGIN}/api/cluster/tenant/list?tenant_name=${tenant}`);
      expect(listed.json.data.data.map((t: { tenant_name: string }) => t.tenant_name)).toEqual([tenant]);
      expect(interception.served).toBe(2);
      expect(connects).not.toHaveBeenCalled();
    });

    it(`${name}: another origin passes through untouched, on a socket`, async () => {
      interception = interceptOrigin(app, ORIGIN, { peer: '127.0.0.1' });
      // No kept-alive connection from an earlier test: the request below opens its own socket.
      server.closeAllConnections();
      connects.mockClear();
      const before = passthroughHits;
      const res = await client(`${passthroughUrl}/elsewhere?x=1`, { hello: 1 });
      expect(res.json).toEqual({ from: 'passthrough', method: 'POST', url: '/elsewhere?x=1' });
      expect(passthroughHits).toBe(before + 1);
      expect(interception.served).toBe(0);
      expect(connects.mock.calls.length).toBeGreaterThan(0);
    });
  }

  it('checks tokens by default (the app sees a peer that is not loopback): 401 until a login', async () => {
    interception = interceptOrigin(app, ORIGIN);
    const refused = await fetch(`${ORIGIN}/api/cluster/tenant/list`);
    expect(refused.status).toBe(401);
    const login = await fetch(`${ORIGIN}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const listed = await fetch(`${ORIGIN}/api/cluster/tenant/list`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
  });

  it('HEAD and bodiless answers reach every client without a body', async () => {
    interception = interceptOrigin(app, ORIGIN, { peer: '127.0.0.1' });
    const viaFetch = await fetch(`${ORIGIN}/api/cluster/tenant/list`, { method: 'HEAD' });
    expect(viaFetch.status).toBe(200);
    expect(await viaFetch.text()).toBe('');
    const viaUndici = await undiciRequest(`${ORIGIN}/api/cluster/tenant/list`, { method: 'HEAD' });
    expect(viaUndici.statusCode).toBe(200);
    expect(await viaUndici.body.text()).toBe('');
  });

  it('its own dispatcher serves code that passes a dispatcher explicitly', async () => {
    interception = interceptOrigin(app, ORIGIN, { peer: '127.0.0.1' });
    connects.mockClear();
    const res = await undiciRequest(`${ORIGIN}/api/cluster/tenant/list`, { dispatcher: interception.dispatcher });
    expect(((await res.body.json()) as { code: number }).code).toBe(0);
    expect(connects).not.toHaveBeenCalled();
  });

  it('several origins at once, disposed in any order; the last disposal restores every client', async () => {
    const previous = getGlobalDispatcher();
    const second = new AdminApp(new Cluster({ seed: 4, nodes: 1 }).start());
    const a = interceptOrigin(app, ORIGIN, { peer: '127.0.0.1' });
    const b = interceptOrigin(second, 'https://other.invalid', { peer: '127.0.0.1' });
    expect(() => interceptOrigin(second, `${ORIGIN}/some/path`)).toThrow(/already intercepted/);
    const nodesOf = async (origin: string) =>
      ((await (await fetch(`${origin}/api/status`)).json()) as { data: { broker_node_list: unknown[] } }).data.broker_node_list.length;
    expect(await nodesOf(ORIGIN)).toBe(3);
    expect(await nodesOf('https://other.invalid')).toBe(1);
    a.dispose();
    await expect(fetch(`${ORIGIN}/api/status`)).rejects.toThrow();
    expect(await nodesOf('https://other.invalid')).toBe(1);
    b.dispose();
    expect(getGlobalDispatcher()).toBe(previous);
    for (const client of Object.values(CLIENTS)) await expect(client('https://other.invalid/api/status')).rejects.toThrow();
  });
});
