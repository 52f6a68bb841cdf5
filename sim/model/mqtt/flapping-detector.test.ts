import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { setConfig } from './testing/set-config.ts';

/** One connect attempt followed (when admitted) by a clean disconnect, 1 s later. */
function cycle(sim: InProcessSim, clientId: string, tenant = 'default'): boolean {
  const r = sim.cluster.mqtt.connect({ tenant, clientId });
  if (r.ok) sim.cluster.mqtt.disconnect(clientId, tenant, { clean: true });
  sim.advance(1_000);
  return r.ok;
}

describe('connection flapping detection', () => {
  it('admits max_client_connections connects within window_time, bans the next for ban_time, then admits again', async () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    await setConfig(sim, 'MqttFlappingDetect', { enable: true, window_time: 60, max_client_connections: 5, ban_time: 300 });
    const start = sim.cluster.now();
    for (let i = 0; i < 5; i++) expect(cycle(sim, 'jumpy')).toBe(true);
    const refused = sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'jumpy' });
    expect(refused.ok === false && refused.reason).toContain('flapping');
    expect(sim.cluster.mqtt.isConnected('default', 'jumpy')).toBe(false);

    const entry = sim.cluster.blacklist.all().find((e) => e.name === 'flapping-ban-default-jumpy');
    expect(entry).toMatchObject({
      blacklist_type: 'ClientId',
      resource_name: 'jumpy',
      desc: 'Ban due to connection jitter',
      source: 'flapping',
      endTimeMs: sim.cluster.now() + 300_000,
    });

    const flapping = (await sim.get('/api/mqtt/flapping_detect/list?tenant=default')).json.data;
    expect(flapping.data).toEqual([
      { tenant: 'default', client_id: 'jumpy', before_last_window_connections: 6, first_request_time: Math.floor(start / 1000) },
    ]);
    const banLog = (await sim.get('/api/mqtt/ban-log/list?tenant=default')).json.data;
    expect(banLog.data).toHaveLength(1);
    expect(banLog.data[0]).toMatchObject({
      tenant: 'default',
      ban_type: 'client_id',
      resource_name: 'jumpy',
      ban_source: 'flapping_detect',
    });
    expect(banLog.data[0].end_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await sim.get('/api/mqtt/ban-log/list?tenant=acme')).json.data.total_count).toBe(0);

    // Other clients are unaffected; the banned one stays out until ban_time has passed.
    expect(cycle(sim, 'calm')).toBe(true);
    sim.advance(290_000);
    expect(sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'jumpy' }).ok).toBe(false);
    sim.advance(10_000);
    expect(sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'jumpy' }).ok).toBe(true);
    expect(sim.cluster.blacklist.all().some((e) => e.name === 'flapping-ban-default-jumpy')).toBe(false);
    expect((await sim.get('/api/mqtt/flapping_detect/list')).json.data.total_count).toBe(0);
    expect((await sim.get('/api/mqtt/ban-log/list')).json.data.total_count).toBe(1);
  });

  it('counts a sliding window: an attempt older than window_time no longer counts', async () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    await setConfig(sim, 'MqttFlappingDetect', { enable: true, window_time: 60, max_client_connections: 5, ban_time: 300 });
    for (let i = 0; i < 5; i++) {
      expect(cycle(sim, 'c')).toBe(true); // attempts at 0, 10, 20, 30, 40 s
      sim.advance(9_000);
    }
    sim.advance(10_000); // now 60 s: the attempt at 0 s has left the window
    expect(cycle(sim, 'c')).toBe(true);
    expect(cycle(sim, 'c')).toBe(false); // 10, 20, 30, 40, 60 and this one at 61 s: six within 60 s
  });

  it('does nothing while disabled', () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    for (let i = 0; i < 50; i++) expect(cycle(sim, 'c')).toBe(true);
    expect(sim.cluster.mqtt.flapping.banCount).toBe(0);
  });
});
