import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointById } from '../../../contract/index.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { parsePrometheusText } from './metrics-text.ts';
import { setConfig } from './testing/set-config.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** Checks `data` of a success answer against the contract's schema (each record, for lists). */
function expectSpecShaped(endpointId: string, data: unknown): void {
  const e = endpointById(endpointId);
  const validate = ajv.compile(e.response.data!);
  const items = e.list ? (data as { data: unknown[] }).data : [data];
  if (e.list) expect(Number.isInteger((data as { total_count: number }).total_count)).toBe(true);
  for (const item of items) {
    const ok = validate(item);
    expect(ok, `${endpointId}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(item).slice(0, 400)}`).toBe(true);
  }
}

async function getData(sim: InProcessSim, url: string): Promise<any> {
  sim.advance(20); // stay within the per-path request rate
  const res = await sim.get(url);
  expect(res.status, `${url}: ${res.text.slice(0, 300)}`).toBe(200);
  expect(res.json.code, `${url}: ${res.text.slice(0, 300)}`).toBe(0);
  return res.json.data;
}

describe('MQTT endpoints on the demo workload', () => {
  let sim: InProcessSim;
  beforeAll(async () => {
    sim = new InProcessSim({ workload: 'demo', nodes: 3, seed: 9 });
    await setConfig(sim, 'MqttSlowSubscribeConfig', { enable: true, record_time: 500 });
    await setConfig(sim, 'MqttFlappingDetect', { enable: true, window_time: 60, max_client_connections: 3, ban_time: 600 });
    await setConfig(sim, 'MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.05, os_memory_high_watermark: 0.95 });
    sim.advance(300_000);
  });

  it('answers every endpoint with spec-shaped data', async () => {
    const lists = [
      'mqtt.client.list',
      'mqtt.session.list',
      'mqtt.subscribe.list',
      'mqtt.slow-subscribe.list',
      'mqtt.flapping-detect.list',
      'mqtt.system-alarm.list',
      'mqtt.ban-log.list',
    ];
    for (const id of lists) {
      const data = await getData(sim, endpointById(id).path);
      expect(data.data.length, `${id} has records`).toBeGreaterThan(0);
      expectSpecShaped(id, data);
    }
    expectSpecShaped('mqtt.overview', await getData(sim, '/api/mqtt/overview'));
    const points = await getData(sim, '/api/mqtt/monitor/data?data_type=message_in_num');
    expect(points).toHaveLength(5);
    expectSpecShaped('mqtt.monitor.data', points);

    const subs = (await getData(sim, '/api/mqtt/subscribe/list')).data as any[];
    for (const shared of [true, false]) {
      const s = subs.find((x) => x.is_share_sub === shared)!;
      const detail = await getData(
        sim,
        `/api/mqtt/subscribe/detail?tenant=${s.tenant}&client_id=${s.client_id}&path=${encodeURIComponent(s.path)}`,
      );
      expectSpecShaped('mqtt.subscribe.detail', detail);
      expect(detail.share_sub).toBe(shared);
      expect(detail.group_leader_info === null).toBe(!shared);
    }
    const clients = (await getData(sim, '/api/mqtt/client/list')).data as any[];
    expect(clients.some((c) => c.network_connection === null && c.session !== null)).toBe(true);
    expect(new Set(clients.filter((c) => c.network_connection).map((c) => c.network_connection.protocol))).toEqual(
      new Set(['MQTT3', 'MQTT4', 'MQTT5']),
    );
    const sessions = (await getData(sim, '/api/mqtt/session/list')).data as any[];
    expect(sessions.some((s) => s.last_will !== null)).toBe(true);
  });

  it('applies the exact tenant and fuzzy client_id filters', async () => {
    for (const path of ['/api/mqtt/client/list', '/api/mqtt/session/list', '/api/mqtt/subscribe/list']) {
      const acme = await getData(sim, `${path}?tenant=acme`);
      expect(acme.data.length).toBeGreaterThan(0);
      expect(acme.data.every((r: any) => r.tenant === 'acme')).toBe(true);
      expect((await getData(sim, `${path}?tenant=acm`)).data).toEqual([]);
      const workers = await getData(sim, `${path}?client_id=worker`);
      expect(workers.data.length).toBeGreaterThan(0);
      expect(workers.data.every((r: any) => r.client_id.includes('worker'))).toBe(true);
    }
  });

  it('reports overview counts equal to the lists and /metrics', async () => {
    sim.advance(1_000);
    const o = await getData(sim, '/api/mqtt/overview');
    const clients = await getData(sim, '/api/mqtt/client/list');
    const sessions = await getData(sim, '/api/mqtt/session/list');
    const subs = await getData(sim, '/api/mqtt/subscribe/list');
    expect(clients.total_count).toBeLessThanOrEqual(100); // the whole demo fits in the sample
    expect(o.connection_num).toBe(clients.data.filter((c: any) => c.network_connection !== null).length);
    expect(o.tcp_connection_num + o.tls_connection_num + o.websocket_connection_num + o.quic_connection_num).toBe(o.connection_num);
    expect(o.session_num).toBe(sessions.total_count);
    expect(o.subscribe_num).toBe(subs.total_count);
    expect(o.share_subscribe_num).toBe(subs.data.filter((s: any) => s.is_share_sub).length);
    expect(o.exclusive_subscribe_num + o.share_subscribe_num).toBe(o.subscribe_num);
    expect(o.share_subscribe_group_num).toBe(2); // acme/workers and globex/collectors
    expect(o.topic_num).toBe(sim.cluster.topics.all().length);
    expect(o.connector_num).toBe(sim.cluster.connectors.all().length);
    expect(o.node_list).toHaveLength(3);
    expect(o.message_in_rate).toBeGreaterThan(0);
    const statuses = await Promise.all(
      [1, 2, 3].map(async (nodeId) => (await sim.get('/api/mqtt/overview', { nodeId })).json.data.placement_status),
    );
    expect(statuses.filter((s) => s === 'Leader')).toHaveLength(1);

    const metrics = await sim.get('/metrics', { peer: '198.51.100.4' }); // open: no token needed
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { types, samples } = parsePrometheusText(metrics.text);
    expect(types.get('mqtt_connection_num')).toBe('gauge');
    expect(types.get('mqtt_messages_received_total')).toBe('counter');
    const sum = (name: string): number => samples.filter((s) => s.name === name).reduce((a, s) => a + s.value, 0);
    expect(sum('mqtt_connection_num')).toBe(o.connection_num);
    expect(sum('mqtt_connections')).toBe(o.connection_num);
    expect(sum('mqtt_sessions')).toBe(o.session_num);
    expect(sum('mqtt_subscriptions')).toBe(o.subscribe_num);
    expect(sum('mqtt_topics')).toBe(o.topic_num);
    expect(sum('mqtt_messages_received_total')).toBe(sim.cluster.mqtt.counters.totals.in);
    expect(sum('mqtt_flapping_bans_total')).toBeGreaterThan(0);
  });

  it('refuses an unknown subscription and a missing detail parameter', async () => {
    const res = await sim.get('/api/mqtt/subscribe/detail?tenant=acme&client_id=ghost&path=a/b');
    expect(res.json.code).toBe(1);
    expect(res.json.message).toContain('does not exist');
    const missing = await sim.get('/api/mqtt/subscribe/detail?tenant=acme&client_id=ghost');
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain('path');
  });
});

describe('client and session list sampling', () => {
  it('returns at most 100 records while total_count is the tenant or cluster total', async () => {
    const sim = new InProcessSim({ workload: 'none', seed: 1 });
    for (let i = 0; i < 150; i++)
      expect(sim.cluster.mqtt.connect({ tenant: 'default', clientId: `c${String(i).padStart(3, '0')}` }).ok).toBe(true);
    for (let i = 0; i < 10; i++) sim.cluster.mqtt.connect({ tenant: 'acme', clientId: `a${i}` });

    const all = await getData(sim, '/api/mqtt/client/list');
    expect(all.data).toHaveLength(100);
    expect(all.total_count).toBe(160);
    const tenant = await getData(sim, '/api/mqtt/client/list?tenant=default&limit=1000');
    expect(tenant.data).toHaveLength(100);
    expect(tenant.total_count).toBe(150);
    const fuzzy = await getData(sim, '/api/mqtt/client/list?tenant=default&client_id=c14');
    expect(fuzzy.data.map((c: any) => c.client_id)).toEqual([
      'c140',
      'c141',
      'c142',
      'c143',
      'c144',
      'c145',
      'c146',
      'c147',
      'c148',
      'c149',
    ]);
    expect(fuzzy.total_count).toBe(150);
    const paged = await getData(sim, '/api/mqtt/client/list?sort_field=connection_id&sort_by=desc&limit=5&page=2');
    expect(paged.data).toHaveLength(5);

    const sessions = await getData(sim, '/api/mqtt/session/list');
    expect(sessions.data).toHaveLength(100);
    expect(sessions.total_count).toBe(160);
    expect((await getData(sim, '/api/mqtt/overview')).connection_num).toBe(160);
  });
});
