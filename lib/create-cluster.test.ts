import { describe, expect, it } from 'vitest';
import { ControlError, createCluster, type SimulatedCluster } from './index.ts';

/** The calls every determinism run makes: writes, faults, time, clients. */
async function session(cluster: SimulatedCluster): Promise<void> {
  await cluster.request('POST', '/api/cluster/tenant/create', { tenant_name: 'fleet' });
  cluster.nodes.crash(cluster.nodes.leader()!);
  cluster.advance(5_000);
  cluster.mqtt.connect({ clientId: 'dev-1', tenant: 'fleet' });
  cluster.mqtt.publish({ topic: 'a/b', payload: 'x', tenant: 'fleet' });
  cluster.network.partition([1], [2, 3]);
  cluster.advance(3_000);
  cluster.network.heal();
  cluster.advance(2_000);
}

const tenantsOf = async (cluster: SimulatedCluster): Promise<string[]> =>
  ((await cluster.request('GET', '/api/cluster/tenant/list')).json.data.data as { tenant_name: string }[]).map((t) => t.tenant_name);

describe('createCluster', () => {
  it('is deterministic: one seed and one sequence of calls give one trace hash; another seed another', async () => {
    const hashes: string[] = [];
    for (const seed of [5, 5, 6]) {
      const cluster = createCluster({ seed, workload: 'demo', warmUpMs: 600_000 });
      await session(cluster);
      hashes.push(cluster.traceHash);
      expect(cluster.checkInvariants()).toEqual([]);
    }
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(hashes[1]).toBe(hashes[0]);
    expect(hashes[2]).not.toBe(hashes[0]);
  });

  it('starts at a fixed virtual epoch and moves time only when told', () => {
    const cluster = createCluster({ workload: 'none' });
    expect(cluster.now).toBe(Date.UTC(2026, 0, 1));
    expect(cluster.options).toEqual({
      nodes: 3,
      workload: 'none',
      dialect: 'spec',
      envelope: 'A',
      warmUpMs: 0,
      clock: 'manual',
      seed: '1',
      epochMs: Date.UTC(2026, 0, 1),
    });
    const events = cluster.advance(60_000);
    expect(events).toBeGreaterThan(0);
    expect(cluster.now).toBe(Date.UTC(2026, 0, 1) + 60_000);
  });

  it('crashes the meta leader: the API refuses metadata writes until another node is elected, then accepts them', async () => {
    const cluster = createCluster({ workload: 'none', seed: 2 });
    cluster.advance(2_000);
    const leader = cluster.nodes.leader('meta')!;
    expect(leader).not.toBeNull();
    cluster.nodes.crash(leader);
    expect(cluster.nodes.list().find((n) => n.id === leader)).toEqual({ id: leader, online: false, removed: false });
    const refused = await cluster.request('POST', '/api/cluster/tenant/create', { tenant_name: 'during-election' });
    expect(refused.json.code).not.toBe(0);
    cluster.advance(5_000);
    const next = cluster.nodes.leader('meta');
    expect(next).not.toBeNull();
    expect(next).not.toBe(leader);
    expect((await cluster.request('POST', '/api/cluster/tenant/create', { tenant_name: 'after-election' })).json.code).toBe(0);
    cluster.nodes.restart(leader);
    expect(cluster.nodes.list().every((n) => n.online)).toBe(true);
    expect(() => cluster.nodes.restart(leader)).toThrow(ControlError);
    expect(() => cluster.nodes.crash(42)).toThrow(/node 42 does not exist/);
    expect(() => cluster.nodes.leader('nope')).toThrow(/no consensus group "nope"/);
  });

  it('partitions the leader away: the majority elects another, the API answers from it; heal rejoins', async () => {
    const cluster = createCluster({ workload: 'none', seed: 3 });
    cluster.advance(2_000);
    const leader = cluster.nodes.leader()!;
    const others = [1, 2, 3].filter((n) => n !== leader);
    cluster.network.partition([leader], others);
    cluster.advance(5_000);
    expect(others).toContain(cluster.nodes.leader());
    expect(
      (await cluster.request('POST', '/api/cluster/tenant/create', { tenant_name: 'majority' }, { nodeId: others[0] })).json.code,
    ).toBe(0);
    cluster.network.heal();
    cluster.network.configure({ loss: 0.1, jitterMs: 20 });
    expect(() => cluster.network.configure({ loss: 2 })).toThrow(/loss must be a number from 0 to 1/);
    cluster.advance(5_000);
    expect(cluster.checkInvariants()).toEqual([]);
    expect(await tenantsOf(cluster)).toContain('majority');
  });

  it('fails a connector sink: messages go to the dead-letter topic, the connector counts failures, and delivers again once the sink is back', async () => {
    const cluster = createCluster({ workload: 'none', seed: 4 });
    const sink = '/tmp/mqsim-library-test-sink.log';
    const created = await cluster.request('POST', '/api/cluster/connector/create', {
      tenant: 'default',
      connector_name: 'sink',
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: sink }),
      topic_name: 'sensors/#',
      failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 100 },
    });
    expect(created.json.code).toBe(0);
    cluster.advance(2_500);
    cluster.connectors.failSink(sink);
    for (let i = 0; i < 5; i++) cluster.mqtt.publish({ topic: 'sensors/t1', payload: `lost-${i}` });
    cluster.advance(5_000);
    const detail = async () => (await cluster.request('GET', '/api/cluster/connector/detail?tenant=default&connector_name=sink')).json.data;
    const during = await detail();
    expect(during.send_fail_total).toBeGreaterThan(0);
    cluster.connectors.failSink(sink, false);
    cluster.mqtt.publish({ topic: 'sensors/t1', payload: 'back' });
    cluster.advance(5_000);
    expect((await detail()).send_success_total).toBeGreaterThan(during.send_success_total);
  });

  it('runs a flapping storm: with detection on, the client is banned and listed, and admitted again after the ban', async () => {
    const cluster = createCluster({ workload: 'none' });
    const detect = { enable: true, window_time: 30, max_client_connections: 3, ban_time: 5 };
    expect(
      (await cluster.request('POST', '/api/cluster/config/set', { config_type: 'MqttFlappingDetect', config: JSON.stringify(detect) })).json
        .code,
    ).toBe(0);
    const storm = cluster.mqtt.flappingStorm('storm-0', 6);
    expect(storm.refused).toBeGreaterThan(0);
    expect(storm.admitted + storm.refused).toBe(6);
    const listed = (await cluster.request('GET', '/api/mqtt/flapping_detect/list')).json.data.data as { client_id: string }[];
    expect(listed.map((r) => r.client_id)).toContain('storm-0');
    expect(cluster.mqtt.connect({ clientId: 'storm-0' })).toMatchObject({ ok: false });
    cluster.advance(6_000);
    expect(cluster.mqtt.connect({ clientId: 'storm-0' })).toEqual({ ok: true });
  });

  it('answers requests in-process: loopback needs no token, another peer logs in first', async () => {
    const cluster = createCluster({ workload: 'none', admin: { password: 's3cret' } });
    expect((await cluster.request('GET', '/api/cluster/tenant/list')).status).toBe(200);
    const remote = { peer: '198.51.100.7' };
    expect((await cluster.request('GET', '/api/cluster/tenant/list', undefined, remote)).status).toBe(401);
    const login = await cluster.request('POST', '/api/v1/login', { username: 'admin', password: 's3cret' }, remote);
    const token = login.json.data.token as string;
    const listed = await cluster.request('GET', '/api/cluster/tenant/list', undefined, {
      ...remote,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers['content-type']).toMatch(/application\/json/);
  });

  it('limits the admin API per path on virtual time (429 until time moves on), unless told otherwise', async () => {
    const statuses = async (cluster: SimulatedCluster) => {
      const out: number[] = [];
      for (let i = 0; i < 51; i++) out.push((await cluster.request('GET', '/api/cluster/tenant/list')).status);
      return out;
    };
    const limited = createCluster({ workload: 'none' });
    expect((await statuses(limited)).at(-1)).toBe(429);
    limited.advance(1_000);
    expect((await limited.request('GET', '/api/cluster/tenant/list')).status).toBe(200);
    expect(new Set(await statuses(createCluster({ workload: 'none', adminRateLimit: 0 })))).toEqual(new Set([200]));
  });

  it('follows the wall clock when asked (clock: wall), as mqsim serve does', async () => {
    const cluster = createCluster({ workload: 'none', clock: 'wall' });
    const start = cluster.now;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(cluster.now - start).toBeGreaterThanOrEqual(100);
    cluster.advance(60_000);
    expect(cluster.now - start).toBeGreaterThanOrEqual(60_100);
  });

  it("speaks the robustmq dialect: envelope B, the real server's default page of 10", async () => {
    const cluster = createCluster({ dialect: 'robustmq', workload: 'none' });
    expect(cluster.options.envelope).toBe('B');
    for (let i = 0; i < 12; i++)
      await cluster.request('POST', '/api/cluster/tenant/create', { tenant_name: `t${String(i).padStart(2, '0')}` });
    const list = await cluster.request('GET', '/api/cluster/tenant/list');
    expect(list.json).toMatchObject({ code: 0, error: null });
    expect(list.json.data.data).toHaveLength(10);
    expect(list.json.data.total_count).toBe(13);
  });

  it('listens on sockets (one listener per node), with the control interface when asked', async () => {
    const cluster = createCluster({ workload: 'none', nodes: 2 });
    const served = await cluster.listen({ control: true });
    try {
      expect(served.urls).toHaveLength(2);
      await fetch(`${served.urls[1]}/api/cluster/tenant/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_name: 'over-http' }),
      });
      expect(await tenantsOf(cluster)).toContain('over-http');
      const advanced = await fetch(`${served.url}/_sim/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ms: 1_000 }),
      });
      expect(((await advanced.json()) as { data: { now_ms: number } }).data.now_ms).toBe(cluster.now);
    } finally {
      await cluster.close();
    }
    await expect(fetch(`${served.url}/api/status`)).rejects.toThrow();
  });

  it('intercepts an origin for fetch until disposed; close() disposes what is left', async () => {
    const cluster = createCluster({ workload: 'none' });
    const interception = cluster.intercept('http://broker.invalid:58080', { peer: '127.0.0.1' });
    const res = await fetch('http://broker.invalid:58080/api/cluster/tenant/list');
    expect(((await res.json()) as { code: number }).code).toBe(0);
    expect(interception.served).toBe(1);
    await cluster.close();
    await expect(fetch('http://broker.invalid:58080/api/cluster/tenant/list')).rejects.toThrow();
  });

  it('refuses options it does not know with the values it accepts', () => {
    expect(() => createCluster({ dialect: 'nope' as never })).toThrow(/dialect must be one of spec, robustmq/);
    expect(() => createCluster({ nodes: 12 })).toThrow(/from 1 to 9/);
    expect(() => createCluster({ epoch: 'yesterday' })).toThrow(/epoch must be/);
  });
});
