import type { ListVersion } from '../api/indexed-list.ts';
import { type TOPIC_SOURCES } from '../../../contract/endpoints/topics.ts';
import { failed } from '../errors/operation-error.ts';
import { unixSeconds } from '../api/time-format.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import type { DynamicConfig } from '../config/dynamic-config.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { TenantQuota } from '../broker/tenants.ts';
import type { AppendInput, ShardCreateInput } from './storage-engine.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import { SortedList } from '../api/sorted-list.ts';
import { DEFAULT_MAX_SEGMENT_SIZE, DEFAULT_RETENTION_SEC, type Shard, type StorageType } from './shard-model.ts';
import type { AdapterShardDetailRecord, TopicDetailRecord, TopicRecord as ApiTopicRecord } from '../../../contract/records.ts';
import type { MessageExtras } from '../mqtt/delivery.ts';

/** Where a topic came from (the real server's `source`). */
type TopicSource = (typeof TOPIC_SOURCES)[number];

interface TopicConfig {
  max_segment_size: number | null;
  max_record_num: number | null;
  retention_sec: number;
}

export interface RetainedMessage {
  payload: string;
  qos: number;
  /** Virtual Unix ms. */
  retainedAt: number;
  /** Virtual Unix ms after which the message expires; null: never. */
  expiresAt: number | null;
  /** Payload bytes and MQTT 5 properties of a message published by a network client, sent with it to new subscribers. */
  extras?: MessageExtras;
}

/** A topic as the model holds it; `view` gives the API record. */
export interface TopicRecord {
  topic_id: string;
  topic_name: string;
  tenant: string;
  storage_type: StorageType;
  source: TopicSource;
  partition: number;
  replication: number;
  /** Shard of each partition, by partition index. */
  storage_name_list: string[];
  config: TopicConfig;
  mark_delete: boolean;
  /** Virtual Unix ms. */
  createdAt: number;
  retained: RetainedMessage | null;
}

export interface TopicCreateInput {
  tenant: string;
  topic_name: string;
  storage_type?: StorageType;
  source?: TopicSource;
  partition?: number;
  replication?: number;
}

/** Names containing `$` are system topics (`topic_type=system`). */
export function isSystemTopic(name: string): boolean {
  return name.includes('$');
}

const keyOf = (tenant: string, name: string): string => `${tenant}\u0000${name}`;

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** The base order of the topic list: tenant, then topic name. */
export const byTenantThenName = (a: TopicRecord, b: TopicRecord): number => cmp(a.tenant, b.tenant) || cmp(a.topic_name, b.topic_name);
/** The order of `sort_field=topic_name`: name, ties in the base order (tenant). */
export const byNameThenTenant = (a: TopicRecord, b: TopicRecord): number => cmp(a.topic_name, b.topic_name) || cmp(a.tenant, b.tenant);

/** The shards behind the topics: a topic's partitions are shards of the storage engine. */
interface TopicStorage {
  get(name: string): Shard | undefined;
  checkPlacement(replicaNum: number, what: string): void;
  createShard(input: ShardCreateInput): Shard;
  deleteShard(name: string, options?: { byTopic?: boolean }): void;
  appendToTopic(tenant: string, topicName: string, input: AppendInput): number;
  shardDetail(shard: Shard): AdapterShardDetailRecord;
}

/** The metadata groups a topic change is written to. */
interface TopicRaft {
  requireLeader(groupName: string): unknown;
  dataGroupFor(key: string): string;
  write(groupName: string, kind: string): unknown;
  tryWrite(groupName: string, kind: string): boolean;
}

/** What the topics tell the MQTT broker (a deleted topic) and ask it (a topic's subscribers). */
interface TopicBroker {
  onTopicDeleted(tenant: string, topicName: string): void;
  subscribersOf(tenant: string, topicName: string): readonly { client_id: string; path: string }[];
}

export interface TopicsDeps {
  engine: Pick<SimEngine, 'now' | 'record' | 'random'>;
  nodes: { online(): readonly SimNode[] };
  config: { current(): DynamicConfig };
  raft: TopicRaft;
  tenants: { has(name: string): boolean; quota(name: string): TenantQuota };
  /** Built after the topics: read at call time. */
  readonly storage: TopicStorage;
  readonly mqtt: TopicBroker;
}

/**
 * Topics per tenant. Creating a topic creates one storage shard per partition (`<topic_id>-<p>`);
 * deleting it removes the shards, their records, the retained message and committed offsets.
 */
export class Topics {
  private readonly byKey = new Map<string, TopicRecord>();
  /** Creates and deletes so far (topic records do not change once created): the list's version. */
  private writes = 0;
  private readonly countByTenant = new Map<string, number>();
  /**
   * Maintained sorted indexes (updated on create and delete), so listing and paging never sort:
   * the base order (tenant, name) and the order by name (name, tenant).
   */
  readonly ordered = new SortedList<TopicRecord>(byTenantThenName);
  readonly orderedByName = new SortedList<TopicRecord>(byNameThenTenant);
  /** The same two orders per topic type, so a `topic_type` list pages by position too, without a scan. */
  readonly orderedOfType = {
    system: { ordered: new SortedList<TopicRecord>(byTenantThenName), orderedByName: new SortedList<TopicRecord>(byNameThenTenant) },
    normal: { ordered: new SortedList<TopicRecord>(byTenantThenName), orderedByName: new SortedList<TopicRecord>(byNameThenTenant) },
  };
  /** Topics holding a retained message, per tenant in name order (what a new subscription is sent). */
  private readonly retainedByTenant = new Map<string, SortedList<TopicRecord>>();
  /** Tenants having a topic of this name, counted (names outlive a tenant's delete while another has them). */
  private readonly namesInUse = new Map<string, number>();
  private rng!: SeededRandom;

  constructor(private readonly deps: TopicsDeps) {}

  start(): void {
    this.rng = this.deps.engine.random.fork('topics');
  }

  seedDemo(): void {
    const now = this.deps.engine.now();
    this.create({
      tenant: 'default',
      topic_name: 'sensors/temperature',
      partition: 2,
      replication: Math.min(2, this.deps.nodes.online().length),
    });
    for (let i = 0; i < 12; i++) {
      this.deps.storage.appendToTopic('default', 'sensors/temperature', {
        key: `sensor-${i % 4}`,
        payload: JSON.stringify({ c: 20 + (i % 7) }),
        timestamp: now,
      });
    }
    this.ensure('default', '$SYS/brokers/uptime');
    const tenant = this.deps.tenants.has('acme') ? 'acme' : 'default';
    this.ensure(tenant, 'factory/line1/status');
    this.setRetained(tenant, 'factory/line1/status', { payload: '{"state":"running"}', qos: 1, retainedAt: now });
  }

  get(tenant: string, topicName: string): TopicRecord | undefined {
    return this.byKey.get(keyOf(tenant, topicName));
  }

  /** Every topic, by tenant then name (read off the maintained index: no sort). */
  all(): TopicRecord[] {
    return this.ordered.toArray();
  }

  /**
   * The topics of a `topic_type` (`all`, `system`, `normal`) by tenant then name, sorted from the key
   * map rather than read off the maintained indexes: the input of the reference list answer.
   */
  plainRecords(type: string): TopicRecord[] {
    const of = [...this.byKey.values()].filter((t) => type === 'all' || (type === 'system') === isSystemTopic(t.topic_name));
    return of.sort(byTenantThenName);
  }

  /** Number of topics of every tenant. */
  get size(): number {
    return this.byKey.size;
  }

  /** Whether some tenant has a topic of this name. */
  hasName(topicName: string): boolean {
    return this.namesInUse.has(topicName);
  }

  /** Topics of `tenant` holding a retained message (expired ones included), by name. */
  retainedTopics(tenant: string): readonly TopicRecord[] {
    return this.retainedByTenant.get(tenant)?.toArray() ?? [];
  }

  private indexRetained(topic: TopicRecord, held: boolean): void {
    let list = this.retainedByTenant.get(topic.tenant);
    if (held) {
      if (!list) this.retainedByTenant.set(topic.tenant, (list = new SortedList<TopicRecord>(byNameThenTenant)));
      list.delete(topic);
      list.insert(topic);
    } else if (list) {
      list.delete(topic);
      if (list.size === 0) this.retainedByTenant.delete(topic.tenant);
    }
  }

  /** The topic list's version: list views are of the records alone, which change only by create and delete. */
  listVersion(): ListVersion {
    return { owner: this, version: this.writes };
  }

  countOf(tenant: string): number {
    return this.countByTenant.get(tenant) ?? 0;
  }

  /** The topic, created with the defaults (memory storage, 1 partition, 1 replica) when absent. */
  ensure(tenant: string, topicName: string): TopicRecord {
    return this.get(tenant, topicName) ?? this.create({ tenant, topic_name: topicName });
  }

  /** Creates a topic and its shards; a duplicate, a full quota or an unplaceable replica count fails. */
  create(input: TopicCreateInput): TopicRecord {
    const { tenant, topic_name } = input;
    if (this.byKey.has(keyOf(tenant, topic_name))) throw failed(`Topic ${topic_name} already exists in tenant ${tenant}`);
    const maxTopics = this.deps.tenants.quota(tenant).max_topics;
    if (this.countOf(tenant) >= maxTopics) {
      throw failed(
        `Tenant ${tenant} has reached its topic quota (max_topics ${maxTopics}); delete topics or raise the quota with /api/cluster/tenant/update`,
      );
    }
    const clusterMax = this.deps.config.current().MqttLimit?.cluster?.max_topics;
    if (clusterMax !== undefined && this.byKey.size >= clusterMax) {
      throw failed(
        `The cluster has reached its topic quota (MqttLimit cluster max_topics ${clusterMax}); delete topics or raise the quota with /api/cluster/config/set`,
      );
    }
    const partition = input.partition ?? 1;
    const replication = input.replication ?? 1;
    this.deps.storage.checkPlacement(replication, `Topic ${topic_name}`);
    const topicId = this.rng.id();
    const shardNames = Array.from({ length: partition }, (_, p) => `${topicId}-${p}`);
    // Check every group this write touches first, so a topic is never left half-created.
    this.deps.raft.requireLeader('mqtt');
    for (const name of shardNames) this.deps.raft.requireLeader(this.deps.raft.dataGroupFor(name));
    this.deps.raft.write('mqtt', 'topic.create');

    const storageType = input.storage_type ?? 'EngineMemory';
    const topic: TopicRecord = {
      topic_id: topicId,
      topic_name,
      tenant,
      storage_type: storageType,
      source: input.source ?? 'MQTT',
      partition,
      replication,
      storage_name_list: shardNames,
      config: { max_segment_size: DEFAULT_MAX_SEGMENT_SIZE, max_record_num: null, retention_sec: DEFAULT_RETENTION_SEC },
      mark_delete: false,
      createdAt: this.deps.engine.now(),
      retained: null,
    };
    this.byKey.set(keyOf(tenant, topic_name), topic);
    this.writes++;
    this.ordered.insert(topic);
    this.orderedByName.insert(topic);
    const ofType = this.orderedOfType[isSystemTopic(topic_name) ? 'system' : 'normal'];
    ofType.ordered.insert(topic);
    ofType.orderedByName.insert(topic);
    this.namesInUse.set(topic_name, (this.namesInUse.get(topic_name) ?? 0) + 1);
    this.countByTenant.set(tenant, this.countOf(tenant) + 1);
    this.deps.engine.record('topic.create', { tenant, name: topic_name, id: topicId, partition, replication, storageType });
    topic.storage_name_list.forEach((shardName, p) => {
      this.deps.storage.createShard({
        shard_name: shardName,
        config: {
          replica_num: replication,
          storage_type: storageType,
          max_segment_size: topic.config.max_segment_size,
          max_record_num: topic.config.max_record_num,
          retention_sec: topic.config.retention_sec,
          min_in_sync_replicas: 1,
          is_inner_topic: isSystemTopic(topic_name),
        },
        topic: { tenant, topicName: topic_name, partition: p },
      });
    });
    return topic;
  }

  /** Deletes a topic with all its data (shards, records, retained message, offsets); cannot be undone. */
  delete(tenant: string, topicName: string): void {
    const topic = this.get(tenant, topicName);
    if (!topic) throw failed(`Topic ${topicName} does not exist`);
    this.deps.raft.requireLeader('mqtt');
    for (const name of topic.storage_name_list) this.deps.raft.requireLeader(this.deps.raft.dataGroupFor(name));
    this.deps.raft.write('mqtt', 'topic.delete');
    for (const shardName of topic.storage_name_list) {
      if (this.deps.storage.get(shardName)) this.deps.storage.deleteShard(shardName, { byTopic: true });
    }
    this.byKey.delete(keyOf(tenant, topicName));
    this.writes++;
    this.ordered.delete(topic);
    this.orderedByName.delete(topic);
    const ofType = this.orderedOfType[isSystemTopic(topicName) ? 'system' : 'normal'];
    ofType.ordered.delete(topic);
    ofType.orderedByName.delete(topic);
    this.indexRetained(topic, false);
    const users = (this.namesInUse.get(topicName) ?? 1) - 1;
    if (users > 0) this.namesInUse.set(topicName, users);
    else this.namesInUse.delete(topicName);
    this.countByTenant.set(tenant, Math.max(0, this.countOf(tenant) - 1));
    this.deps.engine.record('topic.delete', { tenant, name: topicName, id: topic.topic_id });
    // The broker drops what it holds for the topic (the real server removes its subscriptions too).
    this.deps.mqtt.onTopicDeleted(tenant, topicName);
  }

  /**
   * Sets (or with null clears) the retained message of a topic, creating the topic when absent as a
   * publish would. `expiresAt` (virtual ms) is optional; without it the message never expires.
   */
  setRetained(
    tenant: string,
    topicName: string,
    message: { payload: string; qos: number; retainedAt: number; expiresAt?: number | null; extras?: MessageExtras } | null,
  ): void {
    const topic = message === null ? this.get(tenant, topicName) : this.ensure(tenant, topicName);
    if (!topic) return;
    topic.retained =
      message === null
        ? null
        : {
            payload: message.payload,
            qos: message.qos,
            retainedAt: message.retainedAt,
            expiresAt: message.expiresAt ?? null,
            ...(message.extras ? { extras: message.extras } : {}),
          };
    this.indexRetained(topic, topic.retained !== null);
    this.deps.raft.tryWrite('mqtt', message === null ? 'retain.clear' : 'retain.set');
    this.deps.engine.record('topic.retain', {
      tenant,
      name: topicName,
      set: message !== null,
      bytes: message === null ? 0 : Buffer.byteLength(message.payload, 'utf8'),
    });
  }

  /** The retained message if it has not expired. */
  retainedOf(topic: TopicRecord): RetainedMessage | null {
    const r = topic.retained;
    return r && (r.expiresAt === null || r.expiresAt > this.deps.engine.now()) ? r : null;
  }

  view(t: TopicRecord): ApiTopicRecord {
    return {
      topic_id: t.topic_id,
      topic_name: t.topic_name,
      tenant: t.tenant,
      storage_type: t.storage_type,
      source: t.source,
      partition: t.partition,
      replication: t.replication,
      storage_name_list: [...t.storage_name_list],
      config: { ...t.config },
      mark_delete: t.mark_delete,
      create_time: unixSeconds(t.createdAt),
    };
  }

  /** Field `name` of `view(t)`, read without building the view (what list filters and sorts read). */
  viewField(t: TopicRecord, name: string): unknown {
    switch (name) {
      case 'create_time':
        return unixSeconds(t.createdAt);
      case 'topic_id':
      case 'topic_name':
      case 'tenant':
      case 'storage_type':
      case 'source':
      case 'partition':
      case 'replication':
      case 'storage_name_list':
      case 'config':
      case 'mark_delete':
        return t[name];
      default: {
        const view: Readonly<Record<string, unknown>> = this.view(t);
        return view[name];
      }
    }
  }

  detail(t: TopicRecord): TopicDetailRecord {
    const retained = this.retainedOf(t);
    const storageList: Record<string, AdapterShardDetailRecord> = {};
    t.storage_name_list.forEach((name, p) => {
      const shard = this.deps.storage.get(name);
      if (shard) storageList[String(p)] = this.deps.storage.shardDetail(shard);
    });
    // The MQTT broker knows the subscriptions.
    const subs = this.deps.mqtt.subscribersOf(t.tenant, t.topic_name);
    return {
      topic_info: this.view(t),
      retain_message: retained
        ? {
            tenant: t.tenant,
            topic_name: t.topic_name,
            payload: [...(retained.extras?.bytes ?? Buffer.from(retained.payload, 'utf8'))],
            qos: retained.qos,
            expired_at: retained.expiresAt === null ? 0 : unixSeconds(retained.expiresAt),
            create_time: unixSeconds(retained.retainedAt),
          }
        : null,
      retain_message_at: retained ? unixSeconds(retained.retainedAt) : null,
      sub_list: subs.map((s) => ({ client_id: s.client_id, path: s.path })),
      storage_list: storageList,
    };
  }
}
