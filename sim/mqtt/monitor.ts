import { unixSeconds } from '../api/time-format.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { topicRecords } from './mqtt-stats.ts';
import { connectorList } from './peer-parts.ts';

/** The spec's monitor data types with the dimensions each one requires. */
export const MONITOR_DATA_TYPES = {
  connection_num: [],
  topic_num: [],
  subscribe_num: [],
  message_in_num: [],
  message_out_num: [],
  message_drop_num: [],
  topic_in_num: ['topic_name'],
  topic_out_num: ['topic_name'],
  subscribe_send_success_num: ['client_id', 'path'],
  subscribe_send_failure_num: ['client_id', 'path'],
  subscribe_topic_send_success_num: ['client_id', 'path', 'topic_name'],
  subscribe_topic_send_failure_num: ['client_id', 'path', 'topic_name'],
  session_in_num: ['client_id'],
  session_out_num: ['client_id'],
  connector_send_success_total: [],
  connector_send_failure_total: [],
  connector_send_success: ['connector_name'],
  connector_send_failure: ['connector_name'],
} as const satisfies Record<string, readonly MonitorDimension[]>;

export type MonitorDimension = 'topic_name' | 'client_id' | 'path' | 'connector_name';
export type MonitorDataType = keyof typeof MONITOR_DATA_TYPES;
export const MONITOR_DATA_TYPE_NAMES = Object.keys(MONITOR_DATA_TYPES) as MonitorDataType[];

/** The spec's monitor point. */
export interface MonitorPoint {
  /** Unix seconds. */
  date: number;
  value: number;
}

export const SAMPLE_INTERVAL_MS = 60_000;
export const RETENTION_MS = 3_600_000;
/** Points per series: one hour at one point a minute. */
export const MAX_POINTS = RETENTION_MS / SAMPLE_INTERVAL_MS;
/** Series kept at most; new dimension values beyond it get no series until old ones age out. */
export const MAX_SERIES = 20_000;

type Dims = Partial<Record<MonitorDimension, string>>;

function seriesKey(type: MonitorDataType, dims: Dims): string {
  let key: string = type;
  for (const d of MONITOR_DATA_TYPES[type]) key += `\u0000${dims[d] ?? ''}`;
  return key;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Monitoring time series (spec: GET /api/mqtt/monitor/data). Every 60 virtual seconds every data type
 * is sampled for every dimension value that exists at that moment: gauges (connection_num, topic_num,
 * subscribe_num) as the value at the sample, counters as the count within the interval (the delta of
 * the cumulative counter since the previous sample; a counter that went down was reset and counts
 * from zero). Topic and client dimensions aggregate across tenants, since the query has no tenant.
 * Each series keeps the last hour (60 points); a series whose source is gone stops getting points and
 * disappears when its last point is an hour old, so memory follows the live model.
 */
export class Monitor {
  private readonly series = new Map<string, MonitorPoint[]>();
  private readonly previous = new Map<string, number>();
  private inRate = 0;
  private outRate = 0;

  constructor(private readonly cluster: Cluster) {}

  start(): void {
    this.cluster.engine.every(SAMPLE_INTERVAL_MS, 'monitor.sample', () => this.sample());
  }

  /** Messages per second received and sent over the last sampling interval. */
  get messageInRate(): number {
    return this.inRate;
  }

  get messageOutRate(): number {
    return this.outRate;
  }

  get seriesCount(): number {
    return this.series.size;
  }

  /** Points of one series, oldest first; `[]` when a required dimension is missing or nothing was sampled. */
  query(type: MonitorDataType, dims: Dims): MonitorPoint[] {
    for (const d of MONITOR_DATA_TYPES[type]) if (!dims[d]) return [];
    return (this.series.get(seriesKey(type, dims)) ?? []).map((p) => ({ ...p }));
  }

  /** Takes one sample of every series now (also what the 60 s schedule runs). */
  sample(): void {
    const now = this.cluster.now();
    const date = unixSeconds(now);
    const broker = this.cluster.mqtt;
    const seen = new Set<string>();
    const gauge = (type: MonitorDataType, value: number, dims: Dims = {}): void => {
      this.append(seriesKey(type, dims), date, value);
    };
    const counter = (type: MonitorDataType, total: number, dims: Dims = {}): number => {
      const key = seriesKey(type, dims);
      seen.add(key);
      const prev = this.previous.get(key) ?? 0;
      const delta = total >= prev ? total - prev : total;
      this.previous.set(key, total);
      this.append(key, date, delta);
      return delta;
    };

    gauge('connection_num', broker.connectionCount);
    gauge('topic_num', topicRecords(this.cluster).length);
    gauge('subscribe_num', broker.subscriptions.size);
    const totals = broker.counters.totals;
    const inDelta = counter('message_in_num', totals.in);
    const outDelta = counter('message_out_num', totals.out);
    counter('message_drop_num', totals.dropped);
    this.inRate = round2(inDelta / (SAMPLE_INTERVAL_MS / 1000));
    this.outRate = round2(outDelta / (SAMPLE_INTERVAL_MS / 1000));

    for (const [topic, t] of broker.counters.byTopic()) {
      counter('topic_in_num', t.in, { topic_name: topic });
      counter('topic_out_num', t.out, { topic_name: topic });
    }

    // Subscriptions and clients: summed per (client_id, path[, topic]) across tenants.
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
    for (const c of connectorList(this.cluster)) {
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
    // The totals are the sum of the per-connector deltas, so a deleted or restarted connector does not
    // make the total go negative.
    gauge('connector_send_success_total', success);
    gauge('connector_send_failure_total', failure);

    for (const key of [...this.previous.keys()]) if (!seen.has(key)) this.previous.delete(key);
    this.expire(now);
    broker.counters.retainTopics(new Set(topicRecords(this.cluster).map((t) => t.topic_name ?? '')));
    this.cluster.engine.record('monitor.sample', { series: this.series.size, connections: broker.connectionCount, in: inDelta, out: outDelta });
  }

  private append(key: string, date: number, value: number): void {
    let points = this.series.get(key);
    if (!points) {
      if (this.series.size >= MAX_SERIES) return;
      this.series.set(key, (points = []));
    }
    points.push({ date, value });
    if (points.length > MAX_POINTS) points.splice(0, points.length - MAX_POINTS);
  }

  /** Drops points older than the retention, and series left empty. */
  private expire(now: number): void {
    const oldest = unixSeconds(now - RETENTION_MS);
    // Deleting the entry being visited is safe in a Map iteration.
    for (const [key, points] of this.series) {
      let drop = 0;
      while (drop < points.length && points[drop].date <= oldest) drop++;
      if (drop > 0) points.splice(0, drop);
      if (points.length === 0) this.series.delete(key);
    }
  }
}
