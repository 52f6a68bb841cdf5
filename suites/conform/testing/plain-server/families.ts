import { randomUUID } from 'node:crypto';
import { refuse } from './answers.ts';
import { checkConfig, checkFailureStrategy, connectorType } from './connector-rules.ts';
import type { ListDef, Row } from './list-query.ts';
import { flag, need, oneOf, text, u32, u64, validate, type Body, type Rules } from './rules.ts';

/**
 * The resource families the plain server keeps, as data: the create and delete bodies with their
 * rules (spec: Resources, Endpoints and Limits; for the shapes the spec does not show, the reference
 * notes), the identity of an instance, the record its list shows, and its list query.
 */

export interface FamilyDef {
  key: string;
  paths: { create: string; delete: string; list: string; update?: string };
  /** The shard list takes its parameters in a JSON body. */
  listMethod?: 'POST';
  create: Rules;
  remove: Rules;
  /** The body fields that name an instance, scope first. */
  identity: readonly string[];
  /** A create of a name that exists: replaces it (`upsert`) or is refused. */
  onDuplicate: 'refuse' | 'upsert';
  /** The list record of a valid create body (also checks what rules cannot say). */
  record(body: Body, clock: Clock): Row;
  list: ListDef;
  /** What a successful create answers: `success`, or the new record (topics). */
  answersRecord?: boolean;
}

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

const seconds = (c: Clock) => Math.floor(c.now() / 1000);
const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS` in the server's time zone; times past year 9999 show as its last second. */
export function localTime(ms: number): string {
  const d = new Date(Math.min(ms, 253_402_300_799_000));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const contains = (field: string) => ({ field });
const exact = (field: string) => ({ field, exact: true });
const GENERAL = 10_000;

const QUOTA: Rules = {
  max_connections_per_node: u64(),
  max_create_connection_rate_per_second: u32(),
  max_topics: u64(),
  max_sessions: u64(),
  max_publish_rate: u32(),
};
const QUOTA_DEFAULTS = {
  max_connections_per_node: 10_000_000,
  max_create_connection_rate_per_second: 10_000,
  max_topics: 5_000_000,
  max_sessions: 50_000_000,
  max_publish_rate: 10_000,
};
/** A quota given in part: the spec's defaults for the fields left out. */
export const quota = (given: unknown): Row => ({ ...QUOTA_DEFAULTS, ...((given as Row | undefined) ?? {}) });

export const TENANT_RULES: Rules = { tenant_name: need(text(1, 128)), desc: text(0, 500), config: { type: 'object', fields: QUOTA } };

const tenants: FamilyDef = {
  key: 'tenant',
  paths: {
    create: '/api/cluster/tenant/create',
    update: '/api/cluster/tenant/update',
    delete: '/api/cluster/tenant/delete',
    list: '/api/cluster/tenant/list',
  },
  create: TENANT_RULES,
  remove: { tenant_name: need(text(1, 128)) },
  identity: ['tenant_name'],
  onDuplicate: 'refuse',
  record: (b, c) => ({ tenant_name: b.tenant_name, desc: str(b.desc), config: quota(b.config), create_time: seconds(c) }),
  list: {
    defaultLimit: 100,
    fields: ['tenant_name', 'desc', 'create_time'],
    sortFields: ['tenant_name'],
    filters: { tenant_name: contains('tenant_name') },
  },
};

const users: FamilyDef = {
  key: 'user',
  paths: { create: '/api/cluster/user/create', delete: '/api/cluster/user/delete', list: '/api/cluster/user/list' },
  create: { tenant: need(text(1, 64)), username: need(text(1, 64)), password: need(text(1, 128)), is_superuser: need(flag) },
  remove: { tenant: need(text(1, 64)), username: need(text(1, 64)) },
  identity: ['tenant', 'username'],
  onDuplicate: 'refuse',
  // The password is kept nowhere: nothing of this server reads it back.
  record: (b, c) => ({ tenant: b.tenant, username: b.username, is_superuser: b.is_superuser, create_time: seconds(c) }),
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'username', 'is_superuser', 'create_time'],
    sortFields: ['username'],
    filters: { tenant: exact('tenant'), user_name: contains('username') },
  },
};

const acl: FamilyDef = {
  key: 'acl',
  paths: { create: '/api/cluster/acl/create', delete: '/api/cluster/acl/delete', list: '/api/cluster/acl/list' },
  create: {
    tenant: need(text(1, 64)),
    name: need(text(1, 128)),
    desc: text(0, 256),
    resource_type: need(oneOf('ClientId', 'User', 'Ip')),
    resource_name: need(text(1, 256)),
    topic: text(0, 256),
    ip: text(0, 128),
    action: need(oneOf('Publish', 'Subscribe', 'All')),
    permission: need(oneOf('Allow', 'Deny')),
  },
  remove: { tenant: need(text(1, 64)), name: need(text(1, 128)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'upsert',
  record: (b) => ({
    tenant: b.tenant,
    name: b.name,
    desc: str(b.desc),
    resource_type: b.resource_type,
    resource_name: b.resource_name,
    topic: str(b.topic),
    ip: str(b.ip),
    action: b.action,
    permission: b.permission,
  }),
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'name', 'desc', 'resource_type', 'resource_name', 'topic', 'ip', 'action', 'permission'],
    sortFields: ['name'],
    filters: { tenant: contains('tenant'), name: contains('name'), resource_name: contains('resource_name') },
  },
};

const blacklist: FamilyDef = {
  key: 'blacklist',
  paths: { create: '/api/cluster/blacklist/create', delete: '/api/cluster/blacklist/delete', list: '/api/cluster/blacklist/list' },
  create: {
    name: need(text(1, 128)),
    tenant: need(text(1, 64)),
    blacklist_type: need(oneOf('ClientId', 'User', 'Ip', 'ClientIdMatch', 'UserMatch', 'IPCIDR')),
    resource_name: need(text(1, 256)),
    end_time: need(u64(1)),
    desc: text(0, 500),
  },
  remove: { tenant: need(text(1, 64)), name: need(text(1, 128)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'upsert',
  record: (b) => ({
    name: b.name,
    tenant: b.tenant,
    blacklist_type: b.blacklist_type,
    resource_name: b.resource_name,
    end_time: localTime(Number(b.end_time) * 1000),
    desc: str(b.desc),
  }),
  list: {
    defaultLimit: GENERAL,
    fields: ['name', 'tenant', 'blacklist_type', 'resource_name', 'end_time', 'desc'],
    sortFields: ['name', 'tenant', 'blacklist_type', 'resource_name'],
    filters: { tenant: contains('tenant'), name: contains('name'), resource_name: contains('resource_name') },
  },
};

const topicRewrite: FamilyDef = {
  key: 'topic-rewrite',
  paths: {
    create: '/api/cluster/topic-rewrite/create',
    delete: '/api/cluster/topic-rewrite/delete',
    list: '/api/cluster/topic-rewrite/list',
  },
  create: {
    name: need(text(1, 256)),
    desc: text(),
    tenant: need(text(1, 128)),
    action: need(oneOf('All', 'Publish', 'Subscribe')),
    source_topic: need(text(1, 256)),
    dest_topic: need(text(1, 256)),
    regex: need(text(1, 500)),
  },
  remove: { tenant: need(text(1, 128)), name: need(text(1, 256)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'refuse',
  record: (b) => ({ ...b, desc: str(b.desc) }),
  list: {
    defaultLimit: GENERAL,
    fields: ['name', 'desc', 'tenant', 'action', 'source_topic', 'dest_topic', 'regex'],
    sortFields: ['name', 'source_topic', 'dest_topic', 'action', 'tenant'],
    filters: { tenant: contains('tenant'), name: contains('name') },
  },
};

const QOS_LABELS = ['AtMostOnce', 'AtLeastOnce', 'ExactlyOnce'];
const RETAIN_LABELS = ['OnEverySubscribe', 'OnNewSubscribe', 'Never'];
const level = { type: 'u32', required: true, oneOf: [0, 1, 2] } as const;

const autoSubscribe: FamilyDef = {
  key: 'auto-subscribe',
  paths: { create: '/api/mqtt/auto-subscribe/create', delete: '/api/mqtt/auto-subscribe/delete', list: '/api/mqtt/auto-subscribe/list' },
  create: {
    name: need(text(1, 256)),
    desc: text(),
    tenant: need(text(1, 256)),
    topic: need(text(1, 256)),
    qos: level,
    no_local: need(flag),
    retain_as_published: need(flag),
    retained_handling: level,
  },
  remove: { tenant: need(text(1, 256)), name: need(text(1, 256)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'refuse',
  record: (b) => ({
    ...b,
    desc: str(b.desc),
    qos: QOS_LABELS[Number(b.qos)],
    retained_handling: RETAIN_LABELS[Number(b.retained_handling)],
  }),
  // The spec lists no sort field for this list: every field of the record sorts.
  list: {
    defaultLimit: GENERAL,
    fields: ['name', 'desc', 'tenant', 'topic', 'qos', 'no_local', 'retain_as_published', 'retained_handling'],
    sortFields: 'any',
    filters: { tenant: contains('tenant'), name: contains('name') },
  },
};

const connectors: FamilyDef = {
  key: 'connector',
  paths: { create: '/api/cluster/connector/create', delete: '/api/cluster/connector/delete', list: '/api/cluster/connector/list' },
  create: {
    tenant: need(text(1, 256)),
    connector_name: need(text(1, 128)),
    connector_type: need(text(1, 50)),
    config: need(text(1, 4096)),
    topic_name: need(text(1, 256)),
    failure_strategy: { type: 'object', required: true },
  },
  remove: { tenant: need(text(1, 256)), connector_name: need(text(1, 128)) },
  identity: ['tenant', 'connector_name'],
  onDuplicate: 'refuse',
  record: (b, c) => {
    const type = connectorType(String(b.connector_type));
    checkConfig(type, String(b.config));
    checkFailureStrategy(b.failure_strategy as Body);
    const now = localTime(c.now());
    // Nothing runs connectors here: each stays Idle, with no node (States: Connector status).
    const { tenant, connector_name, config, topic_name } = b;
    return {
      tenant,
      connector_name,
      connector_type: type,
      config,
      topic_name,
      status: 'Idle',
      broker_id: null,
      create_time: now,
      update_time: now,
    };
  },
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'connector_name', 'connector_type', 'config', 'topic_name', 'status', 'create_time', 'update_time'],
    sortFields: ['connector_name', 'tenant'],
    filters: { tenant: exact('tenant'), connector_name: contains('connector_name') },
  },
};

const schemas: FamilyDef = {
  key: 'schema',
  paths: { create: '/api/cluster/schema/create', delete: '/api/cluster/schema/delete', list: '/api/cluster/schema/list' },
  create: {
    tenant: need(text(1, 128)),
    schema_name: need(text(1, 128)),
    schema_type: need(oneOf('json', 'avro', 'protobuf')),
    schema: need(text(1, 8192)),
    desc: text(0, 500),
  },
  remove: { tenant: need(text(1, 128)), schema_name: need(text(1, 128)) },
  identity: ['tenant', 'schema_name'],
  onDuplicate: 'refuse',
  record: (b) => ({ tenant: b.tenant, name: b.schema_name, schema_type: b.schema_type, desc: str(b.desc), schema: b.schema }),
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'name', 'schema_type', 'desc', 'schema'],
    sortFields: ['tenant', 'name', 'schema_type'],
    filters: { tenant: contains('tenant'), name: contains('name') },
  },
};

const STORAGE_TYPES = ['EngineMemory', 'EngineSegment', 'EngineRocksDB'];
const SOURCES = ['MQTT', 'NATS', 'MQ9', 'Kafka', 'AMQP', 'SystemInner'];
const topics: FamilyDef = {
  key: 'topic',
  paths: { create: '/api/cluster/topic/create', delete: '/api/cluster/topic/delete', list: '/api/cluster/topic/list' },
  create: {
    tenant: need(text(1, 128)),
    topic_name: need(text(1, 256)),
    storage_type: need(oneOf(...STORAGE_TYPES)),
    source: oneOf(...SOURCES),
    // At most 1024 partitions: each names a storage entry in the record.
    partition: u32(1, 1024),
    replication: u32(1),
  },
  remove: { tenant: need(text(1)), topic_name: need(text(1, 256)) },
  identity: ['tenant', 'topic_name'],
  onDuplicate: 'refuse',
  answersRecord: true,
  record: (b, c) => {
    const topic_id = randomUUID();
    const partition = Number(b.partition ?? 1);
    return {
      topic_id,
      topic_name: b.topic_name,
      tenant: b.tenant,
      storage_type: b.storage_type,
      source: b.source ?? 'MQTT',
      partition,
      replication: b.replication ?? 1,
      storage_name_list: Array.from({ length: partition }, (_, i) => `${topic_id}-${i}`),
      create_time: seconds(c),
    };
  },
  list: {
    defaultLimit: GENERAL,
    fields: ['topic_id', 'topic_name', 'tenant', 'storage_type', 'source', 'partition', 'replication', 'create_time'],
    sortFields: ['topic_name', 'tenant'],
    filters: { tenant: exact('tenant'), topic_name: contains('topic_name') },
    select: (params) => {
      const type = params.topic_type ?? 'all';
      if (type === 'all') return undefined;
      if (type !== 'normal' && type !== 'system') refuse('topic_type must be all, normal or system');
      return (r) => String(r.topic_name).includes('$') === (type === 'system');
    },
  },
};

/** EngineShardConfig, the JSON text of a shard create's `config` (reference notes: storage engine). */
const SHARD_CONFIG: Rules = {
  replica_num: need(u32(1)),
  storage_type: need(oneOf(...STORAGE_TYPES)),
  retention_sec: need(u64()),
  max_segment_size: u64(1),
  max_record_num: u64(1),
  min_in_sync_replicas: u32(1),
  is_inner_topic: flag,
};

function shardConfig(textConfig: string): Row {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textConfig);
  } catch {
    refuse('config must be JSON text of the shard configuration');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) refuse('config must be JSON text of an object');
  const c = validate(parsed as Body, SHARD_CONFIG, 'config.');
  return { max_segment_size: 1_073_741_824, max_record_num: null, min_in_sync_replicas: 1, is_inner_topic: false, ...c };
}

const shards: FamilyDef = {
  key: 'shard',
  paths: { create: '/api/storage-engine/shard/create', delete: '/api/storage-engine/shard/delete', list: '/api/storage-engine/shard/list' },
  listMethod: 'POST',
  create: { shard_name: need(text(1)), topic_name: text(), desc: text(), config: need(text(1)) },
  remove: { shard_name: need(text(1)) },
  identity: ['shard_name'],
  onDuplicate: 'refuse',
  // The row is the reference server's `{shard_info: AdapterShardDetail}`; a new shard has segment 0 and no records.
  record: (b, c) => {
    const config = shardConfig(String(b.config));
    const names = { shard_name: b.shard_name, topic_name: str(b.topic_name), desc: str(b.desc) };
    const shard = {
      shard_uid: randomUUID(),
      ...names,
      start_segment_seq: 0,
      active_segment_seq: 0,
      last_segment_seq: 0,
      status: 'Run',
      config,
      create_time: seconds(c),
    };
    return { shard_info: { ...names, config, shard, offset: { start_offset: 0, end_offset: 0, high_watermark: 0 } } };
  },
  list: {
    defaultLimit: GENERAL,
    fields: ['shard_name', 'topic_name', 'desc'],
    sortFields: ['shard_name', 'topic_name'],
    filters: { shard_name: exact('shard_name'), topic_name: contains('topic_name') },
    view: (r) => r.shard_info as Row,
  },
};

export const FAMILIES: readonly FamilyDef[] = [
  tenants,
  users,
  acl,
  blacklist,
  topicRewrite,
  autoSubscribe,
  connectors,
  schemas,
  topics,
  shards,
];
