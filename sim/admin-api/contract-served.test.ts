import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { COMMON_LIST_PARAMS } from '../../contract/core/common.ts';
import { CONTRACT } from '../../contract/index.ts';
import type { EndpointContract, JsonSchema, ParamSpec } from '../../contract/core/types.ts';
import { InProcessSim } from './in-process-client.ts';

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);

/** A value that satisfies a parameter's declared rules. */
function validValue(p: ParamSpec): unknown {
  if (p.default !== undefined) return p.default;
  if (p.enum) return p.enum[0];
  switch (p.type) {
    case 'string':
      return 'sample'.slice(0, p.maxLength ?? 6).padEnd(p.minLength ?? 1, 's');
    case 'bool':
      return false;
    case 'object':
      return Object.fromEntries((p.properties ?? []).filter((q) => q.required).map((q) => [q.name, validValue(q)]));
    case 'array':
    case 'string-array':
      return p.items ? [validValue(p.items)] : [];
    default:
      return Math.max(p.minimum ?? 1, 1);
  }
}

/** Bodies and queries that need real resources or type-specific content. */
function overrides(sim: InProcessSim): Record<string, Record<string, unknown>> {
  const c = sim.cluster;
  const topic = c.topics.all()[0] as any;
  const shard = topic ? String((topic.storage_name_list ?? topic.storageNameList ?? [])[0] ?? '') : '';
  const sub = (c.mqtt as any).subscriptionsList?.()?.[0];
  const connector = (c.connectors as any).all?.().find((x: any) => x.status === 'Running');
  return {
    'auth.login': { username: 'admin', password: 'admin' },
    'cluster.config.set': {
      config_type: 'MqttSlowSubscribeConfig',
      config: JSON.stringify({ enable: false, record_time: 1000, delay_type: 'CreateTime' }),
    },
    'cluster.node.leave': { node_id: 3 },
    'cluster.tenant.update': { tenant_name: 'acme' },
    'cluster.tenant.delete': { tenant_name: 'initech' },
    'cluster.topic.detail': { tenant: topic?.tenant, topic_name: topic?.topic_name ?? topic?.name },
    'cluster.topic.create': { tenant: 'default', topic_name: 'sample/created', storage_type: 'EngineMemory', source: 'MQTT' },
    'cluster.topic.delete': { tenant: 'default', topic_name: 'sample/created' },
    'cluster.user.delete': { tenant: 'acme', username: 'ops' },
    'cluster.acl.create': {
      tenant: 'default',
      name: 'sample-acl',
      resource_type: 'ClientId',
      resource_name: 'c1',
      action: 'Publish',
      permission: 'Deny',
    },
    'cluster.acl.delete': { tenant: 'default', name: 'sample-acl' },
    'cluster.blacklist.delete': { tenant: 'acme', name: 'block-rogue-sensor' },
    'cluster.schema.create': { tenant: 'default', schema_name: 's1', schema_type: 'json', schema: '{"type":"object"}' },
    'cluster.schema.delete': { tenant: 'default', schema_name: 's1' },
    'cluster.schema-bind.create': { tenant: 'acme', schema_name: 'temperature-reading', resource_name: 'extra/topic' },
    'cluster.schema-bind.delete': { tenant: 'acme', schema_name: 'temperature-reading', resource_name: 'extra/topic' },
    'cluster.topic-rewrite.delete': { tenant: 'acme', name: 'legacy-sensor-path' },
    'mqtt.auto-subscribe.create': {
      tenant: 'default',
      name: 'as1',
      topic: 'a/b',
      qos: 1,
      no_local: false,
      retain_as_published: false,
      retained_handling: 0,
    },
    'mqtt.auto-subscribe.delete': { tenant: 'default', name: 'as1' },
    'cluster.connector.create': {
      tenant: 'default',
      connector_name: 'sample-file',
      connector_type: 'file',
      config: '{"local_file_path":"/tmp/sample.log"}',
      topic_name: 'x/#',
      failure_strategy: { strategy: 'discard' },
    },
    'cluster.connector.detail': { tenant: connector?.tenant, connector_name: connector?.connector_name },
    'cluster.connector.delete': { tenant: 'default', connector_name: 'sample-file' },
    'mqtt.subscribe.detail': { tenant: sub?.tenant, client_id: sub?.client_id ?? sub?.clientId, path: sub?.path },
    'mqtt.monitor.data': { data_type: 'connection_num' },
    'mqtt.message.send': { tenant: 'default', topic: 'sample/msg', payload: 'hello' },
    'mqtt.message.read': { tenant: 'default', topic: 'sample/msg', offset: 0 },
    'cluster.offset.timestamp': { shard_name: shard, timestamp: 1, strategy: 'earliest' },
    'cluster.offset.commit': {
      tenant: 'default',
      group_name: 'g1',
      offsets: [{ shard_name: shard, topic_name: 't', partition: 0, offset: 1 }],
    },
    'storage.shard.create': {
      shard_name: 'sample-shard',
      config: JSON.stringify({ replica_num: 1, storage_type: 'EngineMemory', retention_sec: 60 }),
    },
    'storage.shard.delete': { shard_name: 'sample-shard' },
    'storage.segment.list': { shard_name: shard },
    'storage.segment.detail': { shard_name: shard, segment_seq: 0 },
    'storage.segment.replica-state': { shard_name: shard, segment_seq: 0 },
  };
}

function requestFor(e: EndpointContract, extra: Record<string, unknown> | undefined): Record<string, unknown> {
  const req: Record<string, unknown> = {};
  for (const p of e.params) if (p.required) req[p.name] = validValue(p);
  return { ...req, ...(extra ?? {}) };
}

function dataSchema(e: EndpointContract): JsonSchema | undefined {
  const d = e.response.data;
  if (!d) return undefined;
  return e.list
    ? {
        type: 'object',
        required: ['data', 'total_count'],
        properties: { data: { type: 'array', items: d }, total_count: { type: 'integer', minimum: 0 } },
      }
    : d;
}

/** Creates come before reads and deletes, so every read has something to read. */
function order(e: EndpointContract): number {
  if (/\.(create|send|commit|set)$/.test(e.id)) return 0;
  if (/\.(delete|leave)$/.test(e.id)) return 2;
  return 1;
}

describe('every contract endpoint is served', () => {
  it('answers a valid sample request of each endpoint with data matching its schema', async () => {
    const sim = new InProcessSim({ workload: 'demo', seed: 3 });
    sim.advance(120_000); // let connectors start and monitor samples accumulate
    (sim.cluster.nodes as any).stop?.(3);
    const extra = overrides(sim);
    const problems: string[] = [];
    for (const e of [...CONTRACT].sort((a, b) => order(a) - order(b))) {
      sim.advance(100);
      const fields = requestFor(e, extra[e.id]);
      const query = new URLSearchParams(
        Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]): [string, string] => [k, String(v)]),
      ).toString();
      const res = e.method === 'GET' ? await sim.get(query ? `${e.path}?${query}` : e.path) : await sim.post(e.path, fields);
      if (res.status >= 500) problems.push(`${e.id}: HTTP ${res.status}`);
      if (e.response.kind !== 'envelope') {
        if (res.status !== 200) problems.push(`${e.id}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      if (res.json?.code !== 0) {
        problems.push(`${e.id}: code ${res.json?.code} ${res.json?.message}`);
        continue;
      }
      const schema = dataSchema(e);
      if (schema) {
        const validate = ajv.compile(schema);
        if (!validate(res.json.data)) problems.push(`${e.id}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares every list endpoint with the common list parameters it is validated with', () => {
    for (const e of CONTRACT.filter((x) => x.list)) {
      for (const p of COMMON_LIST_PARAMS)
        expect(
          e.params.some((q) => q.name === p.name),
          `${e.id} redeclares ${p.name}`,
        ).toBe(false);
      for (const f of e.list!.sortFields) {
        const props = (e.response.data as any)?.properties ?? {};
        expect(Object.keys(props), `${e.id} sorts by ${f}, which its records lack`).toContain(f);
      }
    }
  });

  it("covers the spec's Index table and its table of endpoints given only by method and path", () => {
    const paths = new Set(CONTRACT.map((e) => `${e.method} ${e.path}`));
    const expected = [
      'POST /api/v1/login',
      'GET /',
      'GET /api/status',
      'GET /api/info',
      'GET /api/cluster/config/get',
      'POST /api/cluster/config/set',
      'POST /api/cluster/node/leave',
      'GET /api/cluster/tenant/list',
      'POST /api/cluster/tenant/create',
      'POST /api/cluster/tenant/update',
      'POST /api/cluster/tenant/delete',
      'GET /api/cluster/topic/list',
      'GET /api/cluster/topic/detail',
      'POST /api/cluster/topic/delete',
      'GET /api/cluster/topic-rewrite/list',
      'POST /api/cluster/topic-rewrite/create',
      'POST /api/cluster/topic-rewrite/delete',
      'GET /api/cluster/user/list',
      'POST /api/cluster/user/create',
      'POST /api/cluster/user/delete',
      'GET /api/cluster/acl/list',
      'POST /api/cluster/acl/create',
      'POST /api/cluster/acl/delete',
      'GET /api/cluster/connector/list',
      'GET /api/cluster/connector/detail',
      'POST /api/cluster/connector/create',
      'POST /api/cluster/connector/delete',
      'GET /api/mqtt/overview',
      'GET /api/mqtt/monitor/data',
      'GET /api/mqtt/client/list',
      'GET /api/mqtt/session/list',
      'GET /api/mqtt/subscribe/list',
      'GET /api/mqtt/subscribe/detail',
      'GET /api/mqtt/auto-subscribe/list',
      'POST /api/mqtt/auto-subscribe/create',
      'POST /api/mqtt/auto-subscribe/delete',
      'GET /api/mqtt/slow-subscribe/list',
      'GET /api/mq9/mail/list',
      'GET /api/mq9/agent/list',
      'POST /api/storage-engine/segment/detail',
      'POST /api/storage-engine/segment/replica-state',
      'GET /health/ready',
      'GET /health/node',
      'GET /health/cluster',
      'GET /api/cluster/healthy',
      'POST /api/cluster/topic/create',
      'GET /api/cluster/blacklist/list',
      'POST /api/cluster/blacklist/create',
      'POST /api/cluster/blacklist/delete',
      'GET /api/cluster/schema/list',
      'GET /api/cluster/schema-bind/list',
      'POST /api/cluster/schema/create',
      'POST /api/cluster/schema/delete',
      'POST /api/cluster/schema-bind/create',
      'POST /api/cluster/schema-bind/delete',
      'POST /api/cluster/offset/timestamp',
      'POST /api/cluster/offset/group',
      'POST /api/cluster/offset/commit',
      'GET /api/mqtt/flapping_detect/list',
      'GET /api/mqtt/system-alarm/list',
      'GET /api/mqtt/ban-log/list',
      'POST /api/mqtt/message/send',
      'POST /api/mqtt/message/read',
      'POST /api/storage-engine/shard/list',
      'POST /api/storage-engine/shard/create',
      'POST /api/storage-engine/shard/delete',
      'POST /api/storage-engine/segment/list',
      'GET /metrics',
    ];
    expect(expected.filter((p) => !paths.has(p))).toEqual([]);
  });
});
