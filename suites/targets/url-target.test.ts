import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pathWithQuery, TransportError } from './target.ts';
import { parseTargetUrl, UrlTarget } from './url-target.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
const targets: UrlTarget[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function target(options: Parameters<typeof UrlTarget.create>[0]): Promise<UrlTarget> {
  const t = await UrlTarget.create(options);
  targets.push(t);
  return t;
}

afterEach(async () => {
  await Promise.all(targets.splice(0).map((t) => t.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('UrlTarget', () => {
  it('sends queries and JSON bodies and parses JSON answers', async () => {
    const url = await serve((req, res, body) =>
      json(res, 200, { code: 0, message: 'success', data: { url: req.url, body, type: req.headers['content-type'] ?? null } }),
    );
    const t = await target({ url });
    const get = await t.request({ method: 'GET', path: '/api/x', query: { a: 1, v: ['p', 'q'], skip: undefined } });
    expect((get.json as any).data).toEqual({ url: '/api/x?a=1&v=p&v=q', body: '', type: null });
    const post = await t.request({ method: 'POST', path: '/api/y', body: { k: 'v' } });
    expect((post.json as any).data).toEqual({ url: '/api/y', body: '{"k":"v"}', type: 'application/json' });
    expect(post.retries).toBe(0);
    expect(post.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('logs in and then sends the Bearer token, unless told not to', async () => {
    const url = await serve((req, res, body) => {
      if (req.url === '/api/v1/login')
        return json(res, 200, { code: 0, message: 'success', data: { token: `tok-${JSON.parse(body).username}`, expires_in: 60 } });
      json(res, 200, { code: 0, message: 'success', data: req.headers.authorization ?? null });
    });
    const t = await target({ url, username: 'admin', password: 'pw' });
    await t.login();
    expect(t.token).toBe('tok-admin');
    expect(((await t.request({ method: 'GET', path: '/api/a' })).json as any).data).toBe('Bearer tok-admin');
    expect(((await t.request({ method: 'GET', path: '/api/a', auth: 'none' })).json as any).data).toBe(null);
  });

  it('waits out 429 answers per Retry-After, a bounded number of times', async () => {
    let calls = 0;
    const url = await serve((_req, res) =>
      ++calls <= 2
        ? json(res, 429, { code: 429, message: 'slow down', data: null }, { 'retry-after': '2' })
        : json(res, 200, { code: 0, message: 'success', data: calls }),
    );
    const waits: number[] = [];
    const t = await target({ url, sleep: async (ms) => void waits.push(ms) });
    const res = await t.request({ method: 'GET', path: '/api/a' });
    expect(res.status).toBe(200);
    expect(res.retries).toBe(2);
    expect(waits).toEqual([2000, 2000]);

    calls = -10;
    const t2 = await target({ url, maxRetries: 1, sleep: async () => {} });
    expect((await t2.request({ method: 'GET', path: '/api/a' })).status).toBe(429);
  });

  it('paces requests with --rate', async () => {
    const url = await serve((_req, res) => json(res, 200, { code: 0, message: 'success', data: null }));
    const t = await target({ url, rate: 20 });
    const started = performance.now();
    for (let i = 0; i < 3; i++) await t.request({ method: 'GET', path: '/x' });
    // 20 per second: the third request starts at least 2 × 50 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('turns a timeout and a refused connection into a TransportError naming the problem', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const t = await target({ url, timeoutMs: 200 });
    await expect(t.request({ method: 'GET', path: '/slow' })).rejects.toThrow(/no answer within 200 ms/);
    const dead = await target({ url: 'http://127.0.0.1:1', timeoutMs: 500 });
    const err = await dead.request({ method: 'GET', path: '/' }).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('plays a non-loopback peer from 127.0.0.2 for a loopback target', async () => {
    const url = await serve((req, res) => json(res, 200, { code: 0, message: 'success', data: req.socket.remoteAddress }));
    const t = await target({ url });
    expect(t.capabilities.loopback).toBe(true);
    if (!t.capabilities.remotePeer.available) {
      // Some sandboxes do not route 127.0.0.2; then the capability says why.
      expect(t.capabilities.remotePeer.reason).toMatch(/127\.0\.0\.2/);
      return;
    }
    expect(((await t.request({ method: 'GET', path: '/' })).json as any).data).toBe('127.0.0.1');
    expect(((await t.request({ method: 'GET', path: '/', asRemotePeer: true })).json as any).data).toBe('127.0.0.2');
    expect(t.capabilities.loopbackPeer).toBe('127.0.0.2');
    expect(((await t.request({ method: 'GET', path: '/', asLoopbackPeer: true })).json as any).data).toBe('127.0.0.2');
  });

  it('sends from the --peer-address it is given, for a loopback target and for one that is not', async () => {
    const url = await serve((req, res) => json(res, 200, { code: 0, message: 'success', data: req.socket.remoteAddress }));
    for (const loopback of [true, false]) {
      const t = await target({ url, remoteLocalAddress: '127.0.0.3', loopback });
      if (!t.capabilities.remotePeer.available) {
        // Some sandboxes do not route 127.0.0.3; then the capability says why and names the flag.
        expect(t.capabilities.remotePeer.reason).toMatch(/127\.0\.0\.3.*\(--peer-address\)$/);
        return;
      }
      expect(t.capabilities.remoteVia).toEqual({ address: '127.0.0.3' });
      // A loopback peer is also the loopback-exemption check's peer; a target not on loopback has none.
      expect(t.capabilities.loopbackPeer).toBe(loopback ? '127.0.0.3' : undefined);
      expect(((await t.request({ method: 'GET', path: '/', asRemotePeer: true })).json as any).data).toBe('127.0.0.3');
      expect(((await t.request({ method: 'GET', path: '/' })).json as any).data).toBe('127.0.0.1');
    }
  });

  it('a --peer-address this host cannot send from leaves the auth checks without a peer, saying why', async () => {
    const url = await serve((_req, res) => json(res, 200, { code: 0, message: 'success', data: null }));
    const t = await target({ url, remoteLocalAddress: '203.0.113.7', timeoutMs: 1000 });
    expect(t.capabilities.remotePeer.available).toBe(false);
    expect(t.capabilities.remotePeer.reason).toMatch(
      /^auth checks need a non-loopback peer: cannot connect from 203\.0\.113\.7: .* \(--peer-address\)$/,
    );
  });

  it("reaches a server listening on every interface at this host's own address, a truly remote peer", async () => {
    const server = createServer((req, res) => json(res, 200, { code: 0, message: 'success', data: req.socket.remoteAddress }));
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    servers.push(server);
    const t = await target({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const via = t.capabilities.remoteVia;
    if (!via || via.address.startsWith('127.')) {
      // No non-loopback IPv4 address on this host: the second loopback address is used instead.
      expect(via?.address ?? '127.0.0.2').toBe('127.0.0.2');
      return;
    }
    expect(via.baseUrl).toBe(`http://${via.address}:${(server.address() as AddressInfo).port}`);
    expect(((await t.request({ method: 'GET', path: '/' })).json as any).data).toBe('127.0.0.1');
    expect(((await t.request({ method: 'GET', path: '/', asRemotePeer: true })).json as any).data).toBe(via.address);
    // The second loopback address stays usable beside it, for the loopback-exemption check.
    if (t.capabilities.loopbackPeer === undefined) return; // some sandboxes do not route 127.0.0.2
    expect(t.capabilities.loopbackPeer).toBe('127.0.0.2');
    expect(((await t.request({ method: 'GET', path: '/', asLoopbackPeer: true })).json as any).data).toBe('127.0.0.2');
  });

  it('refuses target URLs that are not http(s) base URLs', () => {
    expect(() => parseTargetUrl('ftp://x')).toThrow(/http or https/);
    expect(() => parseTargetUrl('not a url')).toThrow(/"sim" or an http/);
    expect(() => parseTargetUrl('http://h/?q=1')).toThrow(/query/);
    expect(parseTargetUrl('http://127.0.0.1:58080').port).toBe('58080');
    expect(pathWithQuery('/p', 'a=1')).toBe('/p?a=1');
  });
});
