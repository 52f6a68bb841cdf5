import { flag, need, oneOf, text } from './rules.ts';
import { contains, GENERAL, str, type FamilyDef } from './family.ts';

/** Rules on topics: topic-rewrite and auto-subscribe rules, and schemas (shapes from the reference notes). */

export const topicRewrite: FamilyDef = {
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

export const autoSubscribe: FamilyDef = {
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

export const schemas: FamilyDef = {
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
