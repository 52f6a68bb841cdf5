import { DEFAULT_MESSAGE_BATCH_SIZE, connectorTypeSpec } from '../../../contract/core/connector-catalogue.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import { failed, invalidParam } from '../errors/operation-error.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { localTimeString, unixSeconds } from '../api/time-format.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import { resolveConnectorType, validateConnectorConfig } from './config-validator.ts';
import { ConnectorThread, type ThreadEnv } from './connector-thread.ts';
import { freshStats, type Connector, type ConnectorMessage, type ConnectorStatus } from './connector-types.ts';
import { writeDeadLetters, type DeadLetterSink } from './dead-letter.ts';
import { parseFailureStrategy } from './failure-strategy.ts';
import { outageAwareSink, TargetOutages, type SinkFactory } from './simulated-sink.ts';
import { topicFilterProblem, topicMatches } from '../topic-filter/topic-filter.ts';
import type { ConnectorDetailRecord, ConnectorRecord } from '../../../contract/records.ts';

export type { Connector, ConnectorMessage, ConnectorStatus } from './connector-types.ts';

/** What `cluster.connector.create` carries (after the HTTP layer's length checks). */
export interface ConnectorInput {
  tenant: string;
  connector_name: string;
  connector_type: string;
  /** JSON text of the type's config. */
  config: string;
  topic_name: string;
  failure_strategy?: unknown;
}

/** How often the scheduler assigns idle connectors and running connectors send (the real server: 1 s). */
const SCHEDULER_PERIOD_MS = 1000;

const keyOf = (tenant: string, name: string): string => `${tenant}\u0000${name}`;

export interface ConnectorsDeps extends DeadLetterSink {
  engine: Pick<SimEngine, 'now' | 'record' | 'every' | 'after'>;
  /** The broker a connector runs on: a live node, chosen in id order. */
  nodes: { get(id: number): SimNode | undefined; online(): readonly SimNode[] };
}

/**
 * Connectors: create, list, detail, delete, plus the runtime the spec leaves "not shown", modelled on
 * the real server's scheduler (reference §8.2). Every second:
 * 1. a Running connector whose node is offline returns to Idle (broker_id null);
 * 2. each Idle connector, in creation order, goes to the online broker node with the fewest
 *    connectors (ties: lowest id) and becomes Running with a fresh thread (counters at 0);
 * 3. each Running connector sends what it queued through its simulated sink.
 * The MQTT broker calls `onMessage` for every publish; matching Running connectors queue it.
 * `stop`/`resume` give the Stopped state (a later control interface uses them).
 */
export class Connectors {
  /** By tenant then name (the list's base order); pages are read from its sorted indexes. */
  private readonly byKey = new RecordIndex<Connector>({
    order: (a, b) => compare(a.tenant, b.tenant) || compare(a.connector_name, b.connector_name),
    viewFields: {
      config: (c) => c.configText,
      broker_id: (c) => (c.brokerId === null ? null : String(c.brokerId)),
      create_time: (c) => localTimeString(c.createdAt),
      update_time: (c) => localTimeString(c.updatedAt),
    },
    // Status, node and update time change through modify; the rest of a connector is fixed.
    viewsOfRecordsOnly: true,
  });
  private readonly threads = new Map<string, ConnectorThread>();
  /** Targets the model knows are down; the default sink fails every send to them. */
  readonly outages = new TargetOutages();
  private sinkFactory: SinkFactory | null = null;

  constructor(private readonly deps: ConnectorsDeps) {}

  start(): void {
    this.deps.engine.every(SCHEDULER_PERIOD_MS, 'connector.scheduler', () => this.tick());
  }

  seedDemo(): void {
    const demo: ConnectorInput[] = [
      {
        tenant: 'default',
        connector_name: 'alerts-webhook',
        connector_type: 'webhook',
        config: JSON.stringify({ url: 'https://hooks.example.com/mqtt/alerts', headers: { 'X-Source': 'mqsim' }, timeout_ms: 3000 }),
        topic_name: 'alerts/#',
        failure_strategy: { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 500 },
      },
      {
        tenant: 'default',
        connector_name: 'sensor-archive',
        connector_type: 'file',
        config: JSON.stringify({ local_file_path: '/var/log/mqsim/sensors.log', rotation_strategy: 'daily' }),
        topic_name: 'sensors/#',
        failure_strategy: { strategy: 'discard' },
      },
      {
        tenant: 'acme',
        connector_name: 'factory-kafka',
        connector_type: 'kafka',
        config: JSON.stringify({
          bootstrap_servers: 'kafka-1.acme.internal:9092,kafka-2.acme.internal:9092',
          topic: 'factory-temperature',
          compression_type: 'lz4',
          acks: 'all',
        }),
        topic_name: 'factory/+/temperature',
        failure_strategy: { strategy: 'dead_message_queue' },
      },
      {
        tenant: 'globex',
        connector_name: 'sensor-postgres',
        connector_type: 'postgres',
        config: JSON.stringify({
          host: 'db.globex.internal',
          database: 'telemetry',
          username: 'ingest',
          password: 'ingest-secret',
          table: 'sensor_readings',
          batch_size: 500,
        }),
        topic_name: 'sensors/#',
        failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 5, wait_time_ms: 2000, topic_name: 'globex/dead-letters' },
      },
    ];
    for (const input of demo) this.create(input);
  }

  // ---- resource operations -------------------------------------------------------------------

  /** Validates everything (type, config, failure strategy, topic filter), then stores the connector as Idle. */
  create(input: ConnectorInput): Connector {
    const type = resolveConnectorType(input.connector_type);
    const config = validateConnectorConfig(type, input.config);
    const failureStrategy = parseFailureStrategy(input.failure_strategy);
    const filterProblem = topicFilterProblem(input.topic_name);
    if (filterProblem) throw invalidParam('topic_name', `topic_name must be an MQTT topic filter: ${filterProblem}`);
    const key = keyOf(input.tenant, input.connector_name);
    if (this.byKey.has(key)) throw failed(`Connector ${input.connector_name} already exists in tenant ${input.tenant}`);
    const now = this.deps.engine.now();
    const connector: Connector = {
      tenant: input.tenant,
      connector_name: input.connector_name,
      connector_type: type.id,
      config,
      configText: JSON.stringify(config),
      topic_name: input.topic_name,
      failureStrategy,
      status: 'Idle',
      brokerId: null,
      createdAt: now,
      updatedAt: now,
      stats: freshStats(),
    };
    this.byKey.set(key, connector);
    this.deps.engine.record('connector.create', {
      tenant: connector.tenant,
      name: connector.connector_name,
      type: connector.connector_type,
      topic: connector.topic_name,
      strategy: failureStrategy.strategy,
    });
    return connector;
  }

  delete(tenant: string, name: string): void {
    const key = keyOf(tenant, name);
    if (!this.byKey.has(key)) throw failed(`Connector ${name} does not exist.`);
    this.endThread(key);
    this.byKey.delete(key);
    this.deps.engine.record('connector.delete', { tenant, name });
  }

  /** Spec: detail only while running; the two failure texts come from the spec's Errors table. */
  detail(tenant: string, name: string): ConnectorDetailRecord {
    const c = this.byKey.get(keyOf(tenant, name));
    if (!c) throw failed(`Connector ${name} does not exist.`);
    if (c.status !== 'Running' || !this.threads.has(keyOf(tenant, name))) throw failed(`Connector thread ${name} does not exist.`);
    return {
      last_send_time: c.stats.lastSendTimeMs === null ? 0 : unixSeconds(c.stats.lastSendTimeMs),
      send_success_total: c.stats.sendSuccessTotal,
      send_fail_total: c.stats.sendFailTotal,
      last_msg: c.stats.lastMsg,
    };
  }

  /** Stops a connector: its thread ends, it leaves its node and the scheduler leaves it alone. */
  stop(tenant: string, name: string): Connector {
    const c = this.mustGet(tenant, name);
    if (c.status === 'Stopped') throw failed(`Connector ${name} is already Stopped`);
    this.endThread(keyOf(tenant, name));
    this.setStatus(c, 'Stopped', null, 'stop');
    return c;
  }

  /** Resumes a Stopped connector: it becomes Idle and the scheduler starts it at its next run. */
  resume(tenant: string, name: string): Connector {
    const c = this.mustGet(tenant, name);
    if (c.status !== 'Stopped') throw failed(`Connector ${name} is ${c.status}, not Stopped: only a stopped connector can be resumed`);
    this.setStatus(c, 'Idle', null, 'resume');
    return c;
  }

  get(tenant: string, name: string): Connector | undefined {
    return this.byKey.get(keyOf(tenant, name));
  }

  /** Every connector, by tenant then name. */
  all(): Connector[] {
    return this.byKey.values();
  }

  /** The connector list, served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<Connector>, ConnectorRecord> {
    return this.byKey.listing((c) => this.view(c));
  }

  count(): number {
    return this.byKey.size;
  }

  /** Connectors with a running thread (the overview's connector_thread_num). */
  runningCount(): number {
    return this.threads.size;
  }

  view(c: Connector): ConnectorRecord {
    return {
      tenant: c.tenant,
      connector_name: c.connector_name,
      connector_type: c.connector_type,
      config: c.configText,
      topic_name: c.topic_name,
      status: c.status,
      broker_id: c.brokerId === null ? null : String(c.brokerId),
      create_time: localTimeString(c.createdAt),
      update_time: localTimeString(c.updatedAt),
    };
  }

  // ---- delivery --------------------------------------------------------------------------------

  /** Called by the MQTT broker for every published message: Running connectors whose filter matches queue it. */
  onMessage(tenant: string, topicName: string, msg: ConnectorMessage): void {
    for (const [key, thread] of this.threads) {
      const c = this.byKey.get(key);
      if (!c || c.tenant !== tenant || !topicMatches(c.topic_name, topicName)) continue;
      thread.enqueue({
        payload: msg.payload,
        ...(msg.key !== undefined ? { key: msg.key } : {}),
        timestamp: msg.timestamp,
        topic: topicName,
      });
    }
  }

  /** Replaces the default (outage-aware) sink; null restores it. For tests and fault injection. */
  setSinkFactory(factory: SinkFactory | null): void {
    this.sinkFactory = factory;
  }

  /** Marks an external target (a type's `targetKey` value, e.g. a webhook url) down or up. */
  setTargetDown(target: string, down: boolean): void {
    if (this.outages.setDown(target, down)) this.deps.engine.record('connector.target', { target, down });
  }

  /** Messages waiting in a connector's thread (0 when it is not running). */
  queued(tenant: string, name: string): number {
    return this.threads.get(keyOf(tenant, name))?.queued ?? 0;
  }

  // ---- scheduler -------------------------------------------------------------------------------

  /** One scheduler second; public so tests and replays can drive it, but `start()` schedules it. */
  tick(): void {
    for (const c of this.byKey) {
      if (c.status === 'Running' && !this.nodeUsable(c.brokerId)) {
        this.endThread(keyOf(c.tenant, c.connector_name));
        this.setStatus(c, 'Idle', null, 'node-offline');
      }
    }
    for (const c of this.byKey) {
      if (c.status !== 'Idle') continue;
      const node = this.leastLoadedNode();
      if (!node) break; // the real scheduler logs "No Broker nodes are available" and tries again next second
      this.startThread(c, node.id);
    }
    for (const thread of this.threads.values()) thread.pump();
  }

  private nodeUsable(id: number | null): boolean {
    if (id === null) return false;
    const node = this.deps.nodes.get(id);
    return node !== undefined && node.online && node.roles.includes('broker');
  }

  private leastLoadedNode(): SimNode | undefined {
    const load = new Map<number, number>();
    for (const c of this.byKey) if (c.brokerId !== null) load.set(c.brokerId, (load.get(c.brokerId) ?? 0) + 1);
    let best: SimNode | undefined;
    for (const node of [...this.deps.nodes.online()].sort((a, b) => a.id - b.id)) {
      if (!node.roles.includes('broker')) continue;
      if (!best || (load.get(node.id) ?? 0) < (load.get(best.id) ?? 0)) best = node;
    }
    return best;
  }

  private startThread(c: Connector, nodeId: number): void {
    const type = connectorTypeSpec(c.connector_type)!;
    const batch = type.messageBatchKey ? Number(c.config[type.messageBatchKey]) : DEFAULT_MESSAGE_BATCH_SIZE;
    c.stats = freshStats(); // counters belong to the thread: a (re)start resets them
    this.threads.set(keyOf(c.tenant, c.connector_name), new ConnectorThread(c, this.threadEnv(), batch));
    this.setStatus(c, 'Running', nodeId, 'assigned');
  }

  private endThread(key: string): void {
    const thread = this.threads.get(key);
    if (!thread) return;
    thread.stop();
    this.threads.delete(key);
  }

  private setStatus(c: Connector, status: ConnectorStatus, brokerId: number | null, reason: string): void {
    this.byKey.modify(keyOf(c.tenant, c.connector_name), () => {
      c.status = status;
      c.brokerId = brokerId;
      c.updatedAt = this.deps.engine.now();
    });
    this.deps.engine.record('connector.status', { tenant: c.tenant, name: c.connector_name, status, brokerId, reason });
  }

  private mustGet(tenant: string, name: string): Connector {
    const c = this.byKey.get(keyOf(tenant, name));
    if (!c) throw failed(`Connector ${name} does not exist.`);
    return c;
  }

  private threadEnv(): ThreadEnv {
    const engine = this.deps.engine;
    return {
      now: () => engine.now(),
      after: (ms, kind, run) => void engine.after(ms, kind, run),
      record: (kind, detail) => engine.record(kind, detail),
      sink: (c) => (this.sinkFactory ? this.sinkFactory(c) : outageAwareSink(c, this.outages)),
      deadLetter: (c, topic, failures, retryTimes) => {
        const outcome = writeDeadLetters(this.deps, c, topic, failures, retryTimes);
        return outcome.ok ? null : outcome.error;
      },
    };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
