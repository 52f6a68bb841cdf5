import { describe, expect, it } from 'vitest';
import { MONITOR_DATA_TYPES } from '../../../contract/endpoints/mqtt.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { MAX_POINTS } from './monitor.ts';

const series = async (sim: InProcessSim, query: string): Promise<{ date: number; value: number }[]> => {
  sim.advance(20); // stay within the per-path request rate
  const res = await sim.get(`/api/mqtt/monitor/data?${query}`);
  expect(res.json.code, JSON.stringify(res.json)).toBe(0);
  return res.json.data;
};
const last = <T>(xs: T[]): T => xs[xs.length - 1];

describe('monitor series', () => {
  it("serves every data type of the spec's table", async () => {
    const sim = new InProcessSim({ workload: 'demo', seed: 2 });
    sim.advance(180_000);
    for (const type of MONITOR_DATA_TYPES) {
      sim.advance(20);
      const res = await sim.get(`/api/mqtt/monitor/data?data_type=${type}`);
      expect(res.json.code, type).toBe(0);
      expect(Array.isArray(res.json.data), type).toBe(true);
    }
  });

  it('answers [] for a missing dimension and 400 naming data_type for an unknown type', async () => {
    const sim = new InProcessSim({ workload: 'demo', seed: 2 });
    sim.advance(180_000);
    for (const type of [
      'topic_in_num',
      'subscribe_send_success_num',
      'subscribe_topic_send_failure_num',
      'session_out_num',
      'connector_send_success',
    ]) {
      expect(await series(sim, `data_type=${type}`)).toEqual([]);
    }
    expect(await series(sim, 'data_type=subscribe_send_success_num&client_id=acme-dashboard-1')).toEqual([]); // path missing
    const bad = await sim.get('/api/mqtt/monitor/data?data_type=cpu_num');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('data_type');
    expect((await sim.get('/api/mqtt/monitor/data')).json.message).toContain('data_type');
  });

  it('samples gauges at the sample time and counters as per-interval counts', async () => {
    const sim = new InProcessSim({ workload: 'none', seed: 2 });
    const mqtt = sim.cluster.mqtt;
    for (let i = 0; i < 5; i++) mqtt.connect({ tenant: 'default', clientId: `c${i}` });
    mqtt.subscribe({ tenant: 'default', clientId: 'c0', path: 'm/#' });
    for (let i = 0; i < 7; i++) mqtt.publish({ tenant: 'default', topic: 'm/t', payload: 'x', qos: 0, retain: false, clientId: 'c1' });
    sim.advance(60_000);
    mqtt.disconnect('c3', 'default', { clean: true });
    mqtt.disconnect('c4', 'default', { clean: true });
    for (let i = 0; i < 2; i++) mqtt.publish({ tenant: 'default', topic: 'm/t', payload: 'x', qos: 0, retain: false, clientId: 'c1' });
    sim.advance(60_000);

    const conns = await series(sim, 'data_type=connection_num');
    expect(conns.map((p) => p.value)).toEqual([5, 3]);
    expect(conns[1].date - conns[0].date).toBe(60);
    expect(conns[1].date).toBe(Math.floor(sim.cluster.now() / 1000));
    expect((await series(sim, 'data_type=subscribe_num')).map((p) => p.value)).toEqual([1, 1]);
    expect((await series(sim, 'data_type=message_in_num')).map((p) => p.value)).toEqual([7, 2]);
    expect((await series(sim, 'data_type=message_out_num')).map((p) => p.value)).toEqual([7, 2]);
    expect((await series(sim, 'data_type=topic_in_num&topic_name=m/t')).map((p) => p.value)).toEqual([7, 2]);
    expect((await series(sim, 'data_type=session_in_num&client_id=c1')).map((p) => p.value)).toEqual([7, 2]);
    expect((await series(sim, 'data_type=session_out_num&client_id=c0')).map((p) => p.value)).toEqual([7, 2]);
    expect(
      (await series(sim, `data_type=subscribe_send_success_num&client_id=c0&path=${encodeURIComponent('m/#')}`)).map((p) => p.value),
    ).toEqual([7, 2]);
    expect(
      (await series(sim, `data_type=subscribe_topic_send_success_num&client_id=c0&path=${encodeURIComponent('m/#')}&topic_name=m/t`)).map(
        (p) => p.value,
      ),
    ).toEqual([7, 2]);
    expect((await series(sim, 'data_type=topic_num')).map((p) => p.value)).toEqual([
      sim.cluster.topics.all().length,
      sim.cluster.topics.all().length,
    ]);

    const overview = (await sim.get('/api/mqtt/overview')).json.data;
    expect(overview.message_in_rate).toBeCloseTo(2 / 60, 2);
  });

  it('keeps one hour (60 points, ordered) per series and drops series of clients gone for an hour', async () => {
    const sim = new InProcessSim({ workload: 'demo', seed: 4 });
    sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'short-lived', cleanStart: true });
    sim.cluster.mqtt.publish({ tenant: 'default', topic: 'x/1', payload: 'x', qos: 0, retain: false, clientId: 'short-lived' });
    sim.advance(120_000);
    expect((await series(sim, 'data_type=session_in_num&client_id=short-lived')).map((p) => p.value)).toEqual([1, 0]);
    sim.cluster.mqtt.disconnect('short-lived', 'default', { clean: true });

    // Samples fall on whole minutes, before the demo's tick of the same instant: read the model 1 ms earlier.
    const sampleAt = sim.cluster.options.epochMs + 2 * 3_600_000 + 120_000;
    sim.cluster.engine.runUntil(sampleAt - 1);
    const liveAtSample = sim.cluster.mqtt.connectionCount;
    sim.cluster.engine.runUntil(sampleAt);
    const now = Math.floor(sim.cluster.now() / 1000);
    for (const type of ['connection_num', 'message_in_num', 'connector_send_success_total']) {
      const points = await series(sim, `data_type=${type}`);
      expect(points).toHaveLength(MAX_POINTS);
      expect(points[0].date).toBeGreaterThan(now - 3600);
      for (let i = 1; i < points.length; i++) expect(points[i].date).toBeGreaterThan(points[i - 1].date);
    }
    expect(last(await series(sim, 'data_type=connection_num')).value).toBe(liveAtSample);
    expect(await series(sim, 'data_type=session_in_num&client_id=short-lived')).toEqual([]);
    expect(sim.cluster.monitor.seriesCount).toBeLessThan(5_000);
  });
});
