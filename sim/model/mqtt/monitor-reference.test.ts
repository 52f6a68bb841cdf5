import { describe, expect, it } from 'vitest';
import { unixSeconds } from '../api/time-format.ts';
import { Cluster } from '../cluster/cluster.ts';
import { MONITOR_DIMENSIONS, type MonitorDataType, type MonitorDimension } from '../../../contract/endpoints/mqtt.ts';
import { MAX_POINTS, RETENTION_MS, SAMPLE_INTERVAL_MS, type MonitorPoint } from './monitor.ts';

type Dims = Partial<Record<MonitorDimension, string>>;

/**
 * The monitor as first written (a Map of point arrays per series key, rebuilt aggregates every
 * sample), kept here as the reference the compact monitor must agree with. It only reads the model.
 */
class ReferenceMonitor {
  readonly series = new Map<string, { type: MonitorDataType; dims: Dims; points: MonitorPoint[] }>();
  private readonly previous = new Map<string, number>();

  constructor(private readonly cluster: Cluster) {}

  private key(type: MonitorDataType, dims: Dims): string {
    let key: string = type;
    for (const d of MONITOR_DIMENSIONS[type]) key += `\u0000${dims[d] ?? ''}`;
    return key;
  }

  private append(type: MonitorDataType, dims: Dims, date: number, value: number): void {
    const key = this.key(type, dims);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { type, dims, points: [] }));
    s.points.push({ date, value });
    if (s.points.length > MAX_POINTS) s.points.splice(0, s.points.length - MAX_POINTS);
  }

  sample(): void {
    const now = this.cluster.now();
    const date = unixSeconds(now);
    const broker = this.cluster.mqtt;
    const seen = new Set<string>();
    const gauge = (type: MonitorDataType, value: number, dims: Dims = {}): void => this.append(type, dims, date, value);
    const counter = (type: MonitorDataType, total: number, dims: Dims = {}): number => {
      const key = this.key(type, dims);
      seen.add(key);
      const prev = this.previous.get(key) ?? 0;
      const delta = total >= prev ? total - prev : total;
      this.previous.set(key, total);
      this.append(type, dims, date, delta);
      return delta;
    };
    gauge('connection_num', broker.connectionCount);
    gauge('topic_num', this.cluster.topics.all().length);
    gauge('subscribe_num', broker.subscriptions.size);
    const totals = broker.counters.totals;
    counter('message_in_num', totals.in);
    counter('message_out_num', totals.out);
    counter('message_drop_num', totals.dropped);
    for (const [topic, t] of broker.counters.byTopic()) {
      counter('topic_in_num', t.in, { topic_name: topic });
      counter('topic_out_num', t.out, { topic_name: topic });
    }
    const perSub = new Map<string, { dims: Dims; success: number; failure: number }>();
    const perSubTopic = new Map<string, { dims: Dims; success: number; failure: number }>();
    const add = (m: typeof perSub, dims: Dims, success: number, failure: number): void => {
      const k = `${dims.client_id}\u0000${dims.path}\u0000${dims.topic_name ?? ''}`;
      const e = m.get(k);
      if (e) {
        e.success += success;
        e.failure += failure;
      } else m.set(k, { dims, success, failure });
    };
    for (const s of broker.subscriptions.all()) {
      add(perSub, { client_id: s.clientId, path: s.path }, s.successTotal, s.failureTotal);
      for (const [topic, p] of s.push) add(perSubTopic, { client_id: s.clientId, path: s.path, topic_name: topic }, p.success, p.failure);
    }
    for (const e of perSub.values()) {
      counter('subscribe_send_success_num', e.success, e.dims);
      counter('subscribe_send_failure_num', e.failure, e.dims);
    }
    for (const e of perSubTopic.values()) {
      counter('subscribe_topic_send_success_num', e.success, e.dims);
      counter('subscribe_topic_send_failure_num', e.failure, e.dims);
    }
    const perClient = new Map<string, { in: number; out: number }>();
    for (const c of broker.allClients()) {
      const e = perClient.get(c.clientId) ?? { in: 0, out: 0 };
      e.in += c.messagesIn;
      e.out += c.messagesOut;
      perClient.set(c.clientId, e);
    }
    for (const [clientId, e] of perClient) {
      counter('session_in_num', e.in, { client_id: clientId });
      counter('session_out_num', e.out, { client_id: clientId });
    }
    const perConnector = new Map<string, { success: number; failure: number }>();
    for (const c of this.cluster.connectors.all()) {
      const e = perConnector.get(c.connector_name) ?? { success: 0, failure: 0 };
      e.success += c.stats?.sendSuccessTotal ?? 0;
      e.failure += c.stats?.sendFailTotal ?? 0;
      perConnector.set(c.connector_name, e);
    }
    let success = 0;
    let failure = 0;
    for (const [name, e] of perConnector) {
      success += counter('connector_send_success', e.success, { connector_name: name });
      failure += counter('connector_send_failure', e.failure, { connector_name: name });
    }
    gauge('connector_send_success_total', success);
    gauge('connector_send_failure_total', failure);
    for (const key of [...this.previous.keys()]) if (!seen.has(key)) this.previous.delete(key);
    const oldest = unixSeconds(now - RETENTION_MS);
    for (const [key, s] of this.series) {
      let drop = 0;
      while (drop < s.points.length && s.points[drop].date <= oldest) drop++;
      if (drop > 0) s.points.splice(0, drop);
      if (s.points.length === 0) this.series.delete(key);
    }
  }
}

describe('monitor against the reference implementation', () => {
  it('holds the same points for every series through churn, clients leaving for good and an extra sample', () => {
    const cluster = new Cluster({ seed: 9, workload: 'demo', nodes: 3 });
    cluster.mqtt.demo.setTargetSize(400);
    cluster.start();
    const reference = new ReferenceMonitor(cluster);
    const monitor = cluster.monitor;
    const sample = monitor.sample.bind(monitor);
    monitor.sample = () => {
      sample();
      reference.sample();
    };
    const compare = (): void => {
      expect(monitor.seriesCount).toBe(reference.series.size);
      for (const s of reference.series.values()) expect(monitor.query(s.type, s.dims)).toEqual(s.points);
    };
    // Short-lived clients under ids shared by two tenants (the series sum them), then gone for good.
    for (const tenant of ['default', 'acme']) {
      cluster.mqtt.connect({ tenant, clientId: 'twin', cleanStart: true });
      cluster.mqtt.subscribe({ tenant, clientId: 'twin', path: 'fleet/#' });
      cluster.mqtt.publish({ tenant, topic: 'twin/t', payload: 'x', qos: 0, retain: false, clientId: 'twin' });
    }
    cluster.engine.advance(3 * SAMPLE_INTERVAL_MS);
    compare();
    for (const tenant of ['default', 'acme']) cluster.mqtt.disconnect('twin', tenant, { clean: true });
    cluster.engine.advance(30_000);
    monitor.sample(); // an extra sample off the minute grid
    compare();
    cluster.engine.advance(65 * 60_000);
    compare();
    expect(monitor.query('session_in_num', { client_id: 'twin' })).toEqual([]);
    expect(reference.series.size).toBeGreaterThan(1_000);
  });
});
