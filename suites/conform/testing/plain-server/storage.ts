import { randomUUID } from 'node:crypto';
import { refuse } from './answers.ts';
import type { Row } from './list-query.ts';
import { flag, need, oneOf, text, u32, u64, validate, type Body, type Rules } from './rules.ts';
import { contains, exact, GENERAL, seconds, str, type FamilyDef } from './family.ts';

/** Topics and storage shards (shard shapes from the reference notes: storage engine). */

const STORAGE_TYPES = ['EngineMemory', 'EngineSegment', 'EngineRocksDB'];
const SOURCES = ['MQTT', 'NATS', 'MQ9', 'Kafka', 'AMQP', 'SystemInner'];
export const topics: FamilyDef = {
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

export const shards: FamilyDef = {
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
