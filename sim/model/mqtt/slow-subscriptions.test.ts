import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { setConfig } from './testing/set-config.ts';

function traffic(sim: InProcessSim, topic: string, n: number): void {
  for (let i = 0; i < n; i++) {
    sim.cluster.mqtt.publish({ tenant: 'acme', topic, payload: String(i), qos: 1, retain: false });
    sim.advance(100);
  }
}

describe('slow subscriptions', () => {
  it('records deliveries slower than record_time, one record per (tenant, client, topic), and stops when record_time is raised', async () => {
    const sim = new InProcessSim({ workload: 'none', seed: 11 });
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'acme', clientId: 'slowpoke' });
    mqtt.subscribe({ tenant: 'acme', clientId: 'slowpoke', path: 'load/#' });

    traffic(sim, 'load/off', 300);
    expect(mqtt.slowSubscriptions.size).toBe(0); // disabled by default

    await setConfig(sim, 'MqttSlowSubscribeConfig', { enable: true, record_time: 1000 });
    traffic(sim, 'load/a', 400);
    const list = (await sim.get('/api/mqtt/slow-subscribe/list?tenant=acme&client_id=slow')).json.data;
    expect(list.total_count).toBe(1);
    expect(list.data[0]).toMatchObject({ tenant: 'acme', client_id: 'slowpoke', topic_name: 'load/a', subscribe_name: 'load/#' });
    expect(list.data[0].time_span).toBeGreaterThan(1000);
    expect(list.data[0].node_info).toMatch(/^node-\d+@/);
    expect(list.data[0].create_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await sim.get('/api/mqtt/slow-subscribe/list?tenant=default')).json.data.total_count).toBe(0);

    await setConfig(sim, 'MqttSlowSubscribeConfig', { record_time: 60_000 });
    traffic(sim, 'load/b', 400);
    expect(mqtt.slowSubscriptions.all().map((r) => r.topic_name)).toEqual(['load/a']);

    await setConfig(sim, 'MqttSlowSubscribeConfig', { record_time: 0 });
    traffic(sim, 'load/c', 1);
    expect(mqtt.slowSubscriptions.all().map((r) => r.topic_name)).toEqual(['load/a', 'load/c']);
  });
});
