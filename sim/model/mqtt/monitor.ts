import { unixSeconds } from '../api/time-format.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { MqttBroker } from './mqtt-broker.ts';
import type { ConnectorLike } from './peer-parts.ts';
import { MONITOR_DIMENSIONS, type MonitorDataType, type MonitorDimension } from '../../../contract/endpoints/mqtt.ts';
import { SeriesStore } from './series-store.ts';

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
/**
 * Series kept at most (a memory bound: about 750 bytes per series); new dimension values beyond it get
 * no series until old ones age out. 100,000 clients with their subscriptions need about 600,000.
 */
const MAX_SERIES = 2_000_000;

type Dims = Partial<Record<MonitorDimension, string>>;

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The dimensionless series, one row of width 1 each. */
type ScalarType =
  | 'connection_num'
  | 'topic_num'
  | 'subscribe_num'
  | 'message_in_num'
  | 'message_out_num'
  | 'message_drop_num'
  | 'connector_send_success_total'
  | 'connector_send_failure_total';

/** Dimensioned series come in pairs sampled together: [first, second] of one row. */
type PairKind = 'topic' | 'subscribe' | 'subscribeTopic' | 'session' | 'connector';
const PAIR_OF: Record<Exclude<MonitorDataType, ScalarType>, [PairKind, 0 | 1]> = {
  topic_in_num: ['topic', 0],
  topic_out_num: ['topic', 1],
  subscribe_send_success_num: ['subscribe', 0],
  subscribe_send_failure_num: ['subscribe', 1],
  subscribe_topic_send_success_num: ['subscribeTopic', 0],
  subscribe_topic_send_failure_num: ['subscribeTopic', 1],
  session_in_num: ['session', 0],
  session_out_num: ['session', 1],
  connector_send_success: ['connector', 0],
  connector_send_failure: ['connector', 1],
};

/** Row of a dimension path (up to three keys), in nested maps so that sampling builds no key strings. */
type KeyTree = Map<string, KeyTree | number>;

function lookup(tree: KeyTree, keys: readonly string[]): number | undefined {
  let node: KeyTree | number | undefined = tree;
  for (const k of keys) {
    if (typeof node !== 'object') return undefined;
    node = node.get(k);
  }
  return typeof node === 'number' ? node : undefined;
}

function insert(tree: KeyTree, keys: readonly string[], row: number): void {
  let node = tree;
  for (let i = 0; i < keys.length - 1; i++) {
    let next = node.get(keys[i]) as KeyTree | undefined;
    if (!next) node.set(keys[i], (next = new Map()));
    node = next;
  }
  node.set(keys[keys.length - 1], row);
}

function remove(tree: KeyTree, keys: readonly string[], depth = 0): void {
  if (depth === keys.length - 1) {
    tree.delete(keys[depth]);
    return;
  }
  const next = tree.get(keys[depth]);
  if (typeof next !== 'object') return;
  remove(next, keys, depth + 1);
  if (next.size === 0) tree.delete(keys[depth]);
}

export interface MonitorDeps {
  engine: Pick<SimEngine, 'now' | 'record' | 'every'>;
  /** The counters sampled: connections, subscriptions, messages in and out, per client and topic. */
  mqtt: Pick<MqttBroker, 'connectionCount' | 'subscriptions' | 'counters' | 'forEachClient'>;
  topics: { readonly size: number; hasName(topicName: string): boolean };
  connectors: { all(): readonly ConnectorLike[] };
}

/**
 * Monitoring time series (spec: GET /api/mqtt/monitor/data). Every 60 virtual seconds every data type
 * is sampled for every dimension value that exists at that moment: gauges (connection_num, topic_num,
 * subscribe_num) as the value at the sample, counters as the count within the interval (the delta of
 * the cumulative counter since the previous sample; a counter that went down was reset and counts
 * from zero). Topic and client dimensions aggregate across tenants, since the query has no tenant.
 * Each series keeps the last hour (60 points); a series whose source is gone stops getting points and
 * disappears when its last point is an hour old, so memory follows the live model.
 *
 * The points live in typed-array rings (SeriesStore), found through nested maps of the dimension
 * values, so a sample of 100,000 clients appends ~600,000 points without allocating per point.
 */
export class Monitor {
  private readonly scalars = new SeriesStore(1, MAX_POINTS);
  private readonly scalarRow = new Map<ScalarType, number>();
  private readonly pairs = new SeriesStore(2, MAX_POINTS);
  private readonly rowsOf: Record<PairKind, KeyTree> = {
    topic: new Map(),
    subscribe: new Map(),
    subscribeTopic: new Map(),
    session: new Map(),
    connector: new Map(),
  };
  /** Kind and dimension keys of each pair row, to forget it when it expires. */
  private readonly rowOwner: ({ kind: PairKind; keys: string[] } | undefined)[] = [];
  /** Samples taken so far: the sample number that tells a counter seen last sample from one seen before. */
  private samples = 0;
  private inRate = 0;
  private outRate = 0;
  /** The second delta of the last `pairCounter` call (kept in a field so the hot path builds no array). */
  private lastSecondDelta = 0;
  /** Scratch list of the pair rows touched in a sample (see `sampleSubscriptionsAndSessions`). */
  private touched = new Int32Array(0);

  constructor(private readonly deps: MonitorDeps) {}

  start(): void {
    this.deps.engine.every(SAMPLE_INTERVAL_MS, 'monitor.sample', () => this.sample());
  }

  /** Messages per second received and sent over the last sampling interval. */
  get messageInRate(): number {
    return this.inRate;
  }

  get messageOutRate(): number {
    return this.outRate;
  }

  get seriesCount(): number {
    return this.scalars.liveRows + 2 * this.pairs.liveRows;
  }

  /** Points of one series, oldest first; `[]` when a required dimension is missing or nothing was sampled. */
  query(type: MonitorDataType, dims: Dims): MonitorPoint[] {
    const required = MONITOR_DIMENSIONS[type];
    for (const d of required) if (!dims[d]) return [];
    if (!(type in PAIR_OF)) {
      const row = this.scalarRow.get(type as ScalarType);
      return row === undefined ? [] : this.scalars.read(row, 0);
    }
    const [kind, s] = PAIR_OF[type as keyof typeof PAIR_OF];
    const row = lookup(
      this.rowsOf[kind],
      required.map((d) => dims[d]!),
    );
    return row === undefined ? [] : this.pairs.read(row, s);
  }

  private newPairRow(kind: PairKind, keys: string[]): number | undefined {
    if (this.seriesCount + 2 > MAX_SERIES) return undefined;
    const row = this.pairs.allocate();
    insert(this.rowsOf[kind], keys, row);
    this.rowOwner[row] = { kind, keys };
    return row;
  }

  private pairRow(kind: PairKind, k1: string, k2?: string, k3?: string): number | undefined {
    const keys = k3 !== undefined ? [k1, k2!, k3] : k2 !== undefined ? [k1, k2] : [k1];
    return lookup(this.rowsOf[kind], keys) ?? this.newPairRow(kind, keys);
  }

  /** Takes one sample of every series now (also what the 60 s schedule runs). */
  sample(): void {
    const now = this.deps.engine.now();
    const date = unixSeconds(now);
    const n = ++this.samples;
    const broker = this.deps.mqtt;
    const { inDelta, outDelta } = this.sampleBroker(date, n);
    this.sampleTopics(date, n);
    this.sampleSubscriptionsAndSessions(date, n);
    this.sampleConnectors(date, n);

    this.expire(now);
    const topics = this.deps.topics;
    broker.counters.retainTopics((name) => topics.hasName(name));
    this.deps.engine.record('monitor.sample', {
      series: this.seriesCount,
      connections: broker.connectionCount,
      in: inDelta,
      out: outDelta,
    });
  }

  /** The broker-wide gauges and message counters; returns the in/out deltas (also the rates). */
  private sampleBroker(date: number, n: number): { inDelta: number; outDelta: number } {
    const broker = this.deps.mqtt;
    this.gauge('connection_num', date, broker.connectionCount);
    this.gauge('topic_num', date, this.deps.topics.size);
    this.gauge('subscribe_num', date, broker.subscriptions.size);
    const totals = broker.counters.totals;
    const inDelta = this.counter('message_in_num', date, n, totals.in);
    const outDelta = this.counter('message_out_num', date, n, totals.out);
    this.counter('message_drop_num', date, n, totals.dropped);
    this.inRate = round2(inDelta / (SAMPLE_INTERVAL_MS / 1000));
    this.outRate = round2(outDelta / (SAMPLE_INTERVAL_MS / 1000));
    return { inDelta, outDelta };
  }

  private sampleTopics(date: number, n: number): void {
    for (const [topic, t] of this.deps.mqtt.counters.byTopic()) {
      const row = this.pairRow('topic', topic);
      if (row !== undefined) this.pairCounter(row, date, n, t.in, t.out);
    }
  }

  /**
   * Subscriptions, per-topic pushes and clients: summed per (client_id, path[, topic]) across
   * tenants into the rows' accumulators, then turned into per-interval counts.
   */
  private sampleSubscriptionsAndSessions(date: number, n: number): void {
    const pairs = this.pairs;
    // The rows touched this sample, in a scratch array kept between samples (hundreds of thousands of
    // rows: no new array grown per sample).
    let touched = this.touched;
    let count = 0;
    const add = (row: number | undefined, first: number, second: number): void => {
      if (row === undefined) return;
      if (pairs.accumulate(row, 0, n, first)) {
        if (count === touched.length) {
          const grown = new Int32Array(Math.max(1024, 2 * touched.length));
          grown.set(touched);
          this.touched = touched = grown;
        }
        touched[count++] = row;
      }
      pairs.accumulate(row, 1, n, second);
    };
    // A source caches its row: a row is released only after an hour without points, and a source that
    // still exists gets a point every sample, so its cached row stays its own.
    // forEach rather than for-of: the same order without a generator step per item (hundreds of thousands per sample).
    const broker = this.deps.mqtt;
    broker.subscriptions.forEach((s) => {
      add((s.monitorRow ??= this.pairRow('subscribe', s.clientId, s.path)), s.successTotal, s.failureTotal);
      // Most subscriptions have pushed nothing: skip them without reading their map (`pushedAny` is
      // `s.push.size > 0`, kept as pushes come; the monitor's reference test covers the pushed ones).
      if (s.pushedAny)
        s.push.forEach((p, topic) =>
          add((p.monitorRow ??= this.pairRow('subscribeTopic', s.clientId, s.path, topic)), p.success, p.failure),
        );
    });
    broker.forEachClient((c) => add((c.monitorRow ??= this.pairRow('session', c.clientId)), c.messagesIn, c.messagesOut));
    for (let k = 0; k < count; k++) {
      const row = touched[k];
      this.pairCounter(row, date, n, pairs.accumulated(row, 0), pairs.accumulated(row, 1));
    }
  }

  private sampleConnectors(date: number, n: number): void {
    const pairs = this.pairs;
    const connectorRows: number[] = [];
    for (const c of this.deps.connectors.all()) {
      const row = this.pairRow('connector', c.connector_name);
      if (row === undefined) continue;
      if (pairs.accumulate(row, 0, n, c.stats?.sendSuccessTotal ?? 0)) connectorRows.push(row);
      pairs.accumulate(row, 1, n, c.stats?.sendFailTotal ?? 0);
    }
    let success = 0;
    let failure = 0;
    for (const row of connectorRows) {
      success += this.pairCounter(row, date, n, pairs.accumulated(row, 0), pairs.accumulated(row, 1));
      failure += this.lastSecondDelta;
    }
    // The totals are the sum of the per-connector deltas, so a deleted or restarted connector does not
    // make the total go negative.
    this.gauge('connector_send_success_total', date, success);
    this.gauge('connector_send_failure_total', date, failure);
  }

  /** The row of a broker-wide series, allocated on first use while the series limit allows. */
  private scalar(type: ScalarType): number | undefined {
    let row = this.scalarRow.get(type);
    if (row === undefined && this.seriesCount + 1 <= MAX_SERIES) this.scalarRow.set(type, (row = this.scalars.allocate()));
    return row;
  }

  private gauge(type: ScalarType, date: number, value: number): void {
    const row = this.scalar(type);
    if (row !== undefined) this.scalars.append(row, date, value);
  }

  /** Appends the delta of a cumulative total since the last sample and returns it. */
  private counter(type: ScalarType, date: number, n: number, total: number): number {
    const row = this.scalar(type);
    if (row === undefined) return 0;
    const scalars = this.scalars;
    const delta = scalars.delta(row, 0, n, total);
    scalars.markSeen(row, n);
    scalars.append(row, date, delta);
    return delta;
  }

  /** A counter pair of one row from its cumulative totals; returns the first delta (the second: `lastSecondDelta`). */
  private pairCounter(row: number, date: number, n: number, first: number, second: number): number {
    const pairs = this.pairs;
    const a = pairs.delta(row, 0, n, first);
    const b = pairs.delta(row, 1, n, second);
    pairs.markSeen(row, n);
    pairs.append(row, date, a, b);
    // No [a, b] array: this runs for every row of every sample (hundreds of thousands).
    this.lastSecondDelta = b;
    return a;
  }

  /** Drops points older than the retention, and series left empty. */
  private expire(now: number): void {
    const oldest = unixSeconds(now - RETENTION_MS);
    for (const [type, row] of this.scalarRow) {
      if (this.scalars.expire(row, oldest) > 0) continue;
      this.scalars.release(row);
      this.scalarRow.delete(type);
    }
    const pairs = this.pairs;
    for (let row = 0; row < pairs.highWater; row++) {
      if (!pairs.isUsed(row) || pairs.expire(row, oldest) > 0) continue;
      const owner = this.rowOwner[row]!;
      remove(this.rowsOf[owner.kind], owner.keys);
      this.rowOwner[row] = undefined;
      pairs.release(row);
    }
  }
}
