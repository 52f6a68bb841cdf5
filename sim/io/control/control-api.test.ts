import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { handleControl } from './control-api.ts';
import { controlHttpAnswer } from './control-http.ts';

const newSim = (): InProcessSim => new InProcessSim({ workload: 'none', nodes: 3, seed: 7 });

describe('control interface', () => {
  it('advances the clock, records the action in the trace and reads the trace tail', () => {
    const sim = newSim();
    const t0 = sim.cluster.now();
    const res = handleControl(sim.cluster, 'POST', '/_sim/clock/advance', { ms: 90_000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, data: { now_ms: t0 + 90_000 } });
    expect(handleControl(sim.cluster, 'GET', '/_sim/clock', undefined).body.data).toMatchObject({ now_ms: t0 + 90_000 });
    const trace = handleControl(sim.cluster, 'GET', '/_sim/trace?tail=1000', undefined).body.data as any;
    expect(trace.hash).toBe(sim.cluster.engine.trace.hash);
    expect(trace.entries.some((e: any) => e.kind === 'control.clock.advance' && e.detail.ms === 90_000)).toBe(true);
  });

  it('answers bad input with a 400 envelope naming the problem, unknown paths 404, wrong method 405', () => {
    const sim = newSim();
    expect(handleControl(sim.cluster, 'POST', '/_sim/clock/advance', { ms: -1 })).toMatchObject({
      status: 400,
      body: { code: 400, message: expect.stringContaining('ms') },
    });
    expect(handleControl(sim.cluster, 'POST', '/_sim/clock/advance', {})).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('ms is required') },
    });
    expect(handleControl(sim.cluster, 'POST', '/_sim/nope', {}).status).toBe(404);
    expect(handleControl(sim.cluster, 'GET', '/_sim/clock/advance', undefined).status).toBe(405);
    expect(handleControl(sim.cluster, 'POST', '/_sim/nodes/crash', { node_id: 99 })).toMatchObject({
      status: 400,
      body: { message: 'node 99 does not exist' },
    });
    expect(handleControl(sim.cluster, 'GET', '/_sim/trace?tail=x', undefined).status).toBe(400);
    expect(handleControl(sim.cluster, 'POST', '/_sim/mq9/running', [1]).status).toBe(400);
  });

  it('crashes and restarts nodes, partitions and heals the network', async () => {
    const sim = newSim();
    expect(handleControl(sim.cluster, 'POST', '/_sim/nodes/crash', { node_id: 2 }).body.data).toEqual({ node_id: 2, online: false });
    // A model refusal is the spec's code-1 failure.
    expect(handleControl(sim.cluster, 'POST', '/_sim/nodes/crash', { node_id: 2 }).body).toMatchObject({
      code: 1,
      message: expect.stringContaining('already stopped'),
    });
    expect(handleControl(sim.cluster, 'POST', '/_sim/nodes/restart', { node_id: 2 }).body.data).toEqual({ node_id: 2, online: true });
    expect(handleControl(sim.cluster, 'POST', '/_sim/network/partition', { side_a: [1], side_b: [2, 3] }).status).toBe(200);
    expect(sim.cluster.network.isBlocked(1, 2)).toBe(true);
    expect(handleControl(sim.cluster, 'POST', '/_sim/network/configure', { loss: 0.5 }).status).toBe(200);
    expect(handleControl(sim.cluster, 'POST', '/_sim/network/configure', { loss: 2 }).status).toBe(400);
    expect(handleControl(sim.cluster, 'POST', '/_sim/network/heal', {}).status).toBe(200);
    expect(sim.cluster.network.isBlocked(1, 2)).toBe(false);
    const inv = handleControl(sim.cluster, 'GET', '/_sim/invariants', undefined).body.data as any;
    expect(inv.violations).toEqual([]);
    expect(Array.isArray(inv.names)).toBe(true);
  });

  it('connects, subscribes and publishes clients that the spec API then shows', async () => {
    const sim = newSim();
    const c = handleControl(sim.cluster, 'POST', '/_sim/clients/connect', { client_id: 'c1', username: 'u' });
    expect(c.body.data).toMatchObject({ ok: true });
    expect(handleControl(sim.cluster, 'POST', '/_sim/clients/subscribe', { client_id: 'c1', path: 'a/#', qos: 1 }).body.data).toMatchObject(
      { ok: true, created: true },
    );
    expect(
      handleControl(sim.cluster, 'POST', '/_sim/clients/publish', { client_id: 'c1', topic: 'a/b', payload: 'x' }).body.data,
    ).toMatchObject({ ok: true, delivered: 1 });
    const list = await sim.get('/api/mqtt/client/list');
    expect(list.json.data.data.map((r: any) => r.client_id)).toContain('c1');
    expect(handleControl(sim.cluster, 'POST', '/_sim/clients/disconnect', { client_id: 'c1' }).body.data).toEqual({ disconnected: true });
    expect(sim.cluster.mqtt.isConnected('default', 'c1')).toBe(false);
  });

  it('runs a flapping storm: with flapping detection on, the client is banned, listed, and admitted once the ban expires', async () => {
    const sim = newSim();
    const detect = { enable: true, window_time: 30, max_client_connections: 3, ban_time: 5 };
    expect(
      (await sim.post('/api/cluster/config/set', { config_type: 'MqttFlappingDetect', config: JSON.stringify(detect) })).json.code,
    ).toBe(0);
    expect(handleControl(sim.cluster, 'POST', '/_sim/clients/flapping-storm', { client_id: 'storm', attempts: 0 }).status).toBe(400);
    const storm = handleControl(sim.cluster, 'POST', '/_sim/clients/flapping-storm', { client_id: 'storm', attempts: 6 }).body.data as {
      admitted: number;
      refused: number;
    };
    expect(storm.admitted + storm.refused).toBe(6);
    expect(storm.refused).toBeGreaterThan(0);
    expect((await sim.get('/api/mqtt/flapping_detect/list')).json.data.data.map((r: any) => r.client_id)).toContain('storm');
    expect(sim.cluster.engine.trace.tail(100).some((e) => e.kind === 'control.clients.flapping-storm')).toBe(true);
    handleControl(sim.cluster, 'POST', '/_sim/clock/advance', { ms: 6_000 });
    expect(handleControl(sim.cluster, 'POST', '/_sim/clients/connect', { client_id: 'storm' }).body.data).toMatchObject({ ok: true });
  });

  it('creates mailboxes and agents, switches mq9 off, and marks connector targets down', async () => {
    const sim = newSim();
    expect(handleControl(sim.cluster, 'POST', '/_sim/mq9/mailbox/create', { name: 'inbox.a', ttl: 60 }).body.data).toMatchObject({
      mail_address: 'inbox.a',
      ttl: 60,
    });
    expect(handleControl(sim.cluster, 'POST', '/_sim/mq9/mailbox/create', { name: 'Bad' }).body).toMatchObject({
      code: 1,
      message: expect.stringContaining('lowercase'),
    });
    expect(
      handleControl(sim.cluster, 'POST', '/_sim/mq9/agent/register', { name: 'bot', agent_info: { name: 'bot', skills: [] } }).status,
    ).toBe(200);
    expect((await sim.get('/api/mq9/agent/list')).json.data.data.map((a: any) => a.name)).toEqual(['bot']);
    expect(handleControl(sim.cluster, 'POST', '/_sim/mq9/agent/unregister', { name: 'bot' }).status).toBe(200);
    expect(sim.cluster.mq9.listAgents()).toEqual([]);
    handleControl(sim.cluster, 'POST', '/_sim/clock/advance', { ms: 60_000 });
    expect((await sim.get('/api/mq9/mail/list')).json.data.total_count).toBe(0);
    expect(handleControl(sim.cluster, 'POST', '/_sim/mq9/running', { running: false }).body.data).toEqual({ running: false });
    expect((await sim.get('/api/mq9/mail/list')).json.message).toContain('not running');
    expect(
      handleControl(sim.cluster, 'POST', '/_sim/connectors/target-down', { target: 'http://127.0.0.1:9/hook', down: true }).status,
    ).toBe(200);
    expect(
      sim.cluster.engine.trace.tail(50).some((e) => e.kind === 'connector.target' || e.kind === 'control.connectors.target-down'),
    ).toBe(true);
  });

  it('answers loopback peers only over HTTP, and leaves other paths to the API', () => {
    const sim = newSim();
    const sync = (): void => {};
    expect(
      controlHttpAnswer(sim.cluster, 'A', sync, { method: 'GET', url: '/api/cluster/status', body: undefined, peer: '127.0.0.1' }),
    ).toBeUndefined();
    const denied = controlHttpAnswer(sim.cluster, 'A', sync, { method: 'GET', url: '/_sim/clock', body: undefined, peer: '10.0.0.5' })!;
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toMatchObject({ code: 403, data: null });
    const ok = controlHttpAnswer(sim.cluster, 'B', sync, {
      method: 'POST',
      url: '/_sim/clock/advance',
      body: Buffer.from('{"ms":1000}'),
      peer: '::1',
    })!;
    expect(JSON.parse(ok.body)).toMatchObject({ code: 0, error: null });
    expect(
      controlHttpAnswer(sim.cluster, 'A', sync, { method: 'POST', url: '/_sim/clock/advance', body: '{bad', peer: '127.0.0.1' })!.status,
    ).toBe(400);
  });
});
