import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from './cluster-server.ts';

/** A client bound to 127.0.0.2: a non-loopback peer under the spec's rule (Linux routes 127/8 on lo). */
const remote = new Agent({ localAddress: '127.0.0.2' });
const local = new Agent();

describe('cluster server over real sockets', () => {
  let running: RunningCluster;
  beforeAll(async () => {
    running = await startClusterServer({ seed: 7, nodes: 3, port: 0, workload: 'none', admin: { password: 'sock-pw' } });
  });
  afterAll(async () => {
    await running.close();
    await remote.close();
    await local.close();
  });

  it('listens once per node, each registering the address it listens on', async () => {
    expect(running.nodeUrls).toHaveLength(3);
    for (const [i, url] of running.nodeUrls.entries()) {
      const node = running.cluster.nodes.get(i + 1)!;
      expect(url).toBe(`http://${node.httpAddr}`);
      const res = await request(`${url}/health/node`, { dispatcher: local });
      expect(res.statusCode).toBe(200);
      await res.body.text();
    }
  });

  it('demands a token from a 127.0.0.2 peer and accepts one from login', async () => {
    const denied = await request(`${running.baseUrl}/api/cluster/tenant/list`, { dispatcher: remote });
    expect(denied.statusCode).toBe(401);
    expect(((await denied.body.json()) as any).code).toBe(401);
    const login = await request(`${running.baseUrl}/api/v1/login`, {
      method: 'POST',
      dispatcher: remote,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'sock-pw' }),
    });
    const token = ((await login.body.json()) as any).data.token;
    const ok = await request(`${running.baseUrl}/api/cluster/tenant/list`, {
      dispatcher: remote,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(ok.statusCode).toBe(200);
    await ok.body.text();
    const fromLoopback = await request(`${running.baseUrl}/api/cluster/tenant/list`, { dispatcher: local });
    expect(fromLoopback.statusCode).toBe(200);
    await fromLoopback.body.text();
  });

  it('answers a 10 MB body with 413 and an envelope, and keeps serving', async () => {
    const res = await request(`${running.baseUrl}/api/cluster/tenant/create`, {
      method: 'POST',
      dispatcher: local,
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(10 * 1024 * 1024, 'a'),
    });
    expect(res.statusCode).toBe(413);
    const body = (await res.body.json()) as any;
    expect(body.code).toBe(400);
    expect(body.message).toMatch(/limit/);
    const after = await request(`${running.baseUrl}/api/cluster/tenant/list`, { dispatcher: local });
    expect(after.statusCode).toBe(200);
    await after.body.text();
  });

  it('forwards config get to another node over HTTP', async () => {
    const res = await request(`${running.nodeUrls[0]}/api/cluster/config/get?broker_id=3`, { dispatcher: local });
    const body = (await res.body.json()) as any;
    expect(body.code).toBe(0);
    expect(body.data.broker_id).toBe(3);
    expect(body.data.http_port).toBe(running.cluster.nodes.get(3)!.ports.http);
  });
});
