import { describe, expect, it } from 'vitest';
import { InProcessTarget, type InProcessRequest } from './in-process-target.ts';

function echoTarget(answer?: (req: InProcessRequest, n: number) => { status: number; headers?: Record<string, string>; body: string }) {
  const seen: InProcessRequest[] = [];
  const waits: number[] = [];
  const target = new InProcessTarget({
    name: 'sim',
    baseUrl: 'http://127.0.0.1:58080/',
    credentials: { username: 'admin', password: 'pw' },
    wait: async (ms) => void waits.push(ms),
    handle: async (req): Promise<{ status: number; headers: Record<string, string>; body: string }> => {
      seen.push(req);
      if (req.url === '/api/v1/login')
        return {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: 0, message: 'success', data: { token: 'tok', expires_in: 60 } }),
        };
      const custom = answer?.(req, seen.length);
      return {
        status: custom?.status ?? 200,
        headers: { 'content-type': 'application/json', ...custom?.headers },
        body: custom?.body ?? JSON.stringify({ code: 0, message: 'success', data: req.peer }),
      };
    },
  });
  return { target, seen, waits };
}

describe('InProcessTarget', () => {
  it('hands the request to the handler with the query, JSON body, token and peer address', async () => {
    const { target, seen } = echoTarget();
    expect(target.baseUrl).toBe('http://127.0.0.1:58080');
    expect(target.capabilities).toEqual({
      loopback: true,
      remotePeer: { available: true },
      remoteVia: { address: '127.0.0.2' },
      loopbackPeer: '127.0.0.2',
    });
    await target.login();
    expect(target.token).toBe('tok');
    const res = await target.request({ method: 'GET', path: '/api/x', query: { a: 1, v: ['p', 'q'] } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ code: 0, message: 'success', data: '127.0.0.1' });
    expect(seen[1]).toMatchObject({
      method: 'GET',
      url: '/api/x?a=1&v=p&v=q',
      peer: '127.0.0.1',
      headers: { authorization: 'Bearer tok' },
    });
    await target.request({ method: 'POST', path: '/api/y', body: { k: 'v' }, asRemotePeer: true, auth: 'none' });
    expect(seen[2]).toMatchObject({ url: '/api/y', body: '{"k":"v"}', peer: '127.0.0.2', headers: { 'content-type': 'application/json' } });
    expect(seen[2].headers.authorization).toBeUndefined();
    await target.request({ method: 'GET', path: '/api/z', headers: { Authorization: 'Bearer other' } });
    expect(seen[3].headers.authorization).toBe('Bearer other');
  });

  it('with a non-loopback remote peer, sends as it and as the second loopback peer 127.0.0.2', async () => {
    const seen: string[] = [];
    const target = new InProcessTarget({
      name: 'x',
      baseUrl: 'http://h',
      remotePeer: '10.0.0.9',
      handle: async (req) => {
        seen.push(req.peer);
        return { status: 200, headers: {}, body: '' };
      },
    });
    expect(target.capabilities).toMatchObject({ remoteVia: { address: '10.0.0.9' }, loopbackPeer: '127.0.0.2' });
    for (const extra of [{}, { asRemotePeer: true }, { asLoopbackPeer: true }])
      await target.request({ method: 'GET', path: '/', ...extra });
    expect(seen).toEqual(['127.0.0.1', '10.0.0.9', '127.0.0.2']);
  });

  it('waits out 429 with the injected wait (virtual time on the simulator), a bounded number of times', async () => {
    const { target, waits } = echoTarget((_req, n) =>
      n <= 3
        ? { status: 429, headers: { 'retry-after': '2' }, body: '{"code":429,"message":"slow","data":null}' }
        : { status: 200, body: '{"code":0,"message":"success","data":1}' },
    );
    const res = await target.request({ method: 'GET', path: '/api/a' });
    expect(res.status).toBe(200);
    expect(res.retries).toBe(3);
    expect(waits).toEqual([2000, 2000, 2000]);
  });

  it('turns a handler exception into a TransportError and refuses requests after close', async () => {
    const target = new InProcessTarget({
      name: 'x',
      baseUrl: 'http://h',
      handle: async () => {
        throw new Error('boom');
      },
    });
    await expect(target.request({ method: 'GET', path: '/' })).rejects.toThrow(/GET \/: boom/);
    await target.close();
    await expect(target.request({ method: 'GET', path: '/' })).rejects.toThrow(/closed/);
  });
});
