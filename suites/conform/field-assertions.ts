import { assertionById } from '../../contract/assertions/index.ts';
import type { EndpointContract, JsonSchema } from '../../contract/core/types.ts';
import type { DataValidator } from './data-validator.ts';

/**
 * Where the fields of the spec's resource tables show in the answers: one entry per field-row
 * assertion, with the endpoints whose `data` carries the field and its path there (for a list, in
 * each record; `*` = every element of an array or value of a map; '' = the whole record). The
 * data-schema check validates the whole answer once and then says which of these rows its evidence
 * covered (`also`), and on a failure cites the row whose field is wrong, so a finding names the
 * sentence of the spec that was broken.
 */
interface FieldAssertion {
  assertion: string;
  endpoints: readonly string[];
  paths: readonly string[];
}

const f = (assertion: string, endpoints: string | readonly string[], ...paths: string[]): FieldAssertion => ({
  assertion,
  endpoints: typeof endpoints === 'string' ? [endpoints] : endpoints,
  paths,
});

const STATUS = ['cluster.status', 'cluster.info'];
const REPLICA = ['storage.segment.detail'];

const FIELD_ASSERTIONS: readonly FieldAssertion[] = [
  f('resources.tenant.name', 'cluster.tenant.list', 'tenant_name'),
  f('resources.tenant.max_connections_per_node', 'cluster.tenant.list', 'config.max_connections_per_node'),
  f('resources.tenant.max_create_connection_rate_per_second', 'cluster.tenant.list', 'config.max_create_connection_rate_per_second'),
  f('resources.tenant.max_topics', 'cluster.tenant.list', 'config.max_topics'),
  f('resources.tenant.max_sessions', 'cluster.tenant.list', 'config.max_sessions'),
  f('resources.tenant.max_publish_rate', 'cluster.tenant.list', 'config.max_publish_rate'),
  f('resources.tenant.create_time', 'cluster.tenant.list', 'create_time'),
  f('resources.topic.create_time', 'cluster.topic.list', 'create_time'),
  f('resources.topic-detail.topic_info', 'cluster.topic.detail', 'topic_info'),
  f('resources.topic-detail.retain_message_at', 'cluster.topic.detail', 'retain_message_at'),
  f('resources.topic-detail.sub_list', 'cluster.topic.detail', 'sub_list'),
  f('resources.rewrite.name', 'cluster.topic-rewrite.list', 'name'),
  f('resources.rewrite.action', 'cluster.topic-rewrite.list', 'action'),
  f('resources.client.network_connection', 'mqtt.client.list', 'network_connection'),
  f('resources.client.session', 'mqtt.client.list', 'session'),
  f('resources.client.heartbeat', 'mqtt.client.list', 'heartbeat'),
  f('resources.client.mqtt_connection', 'mqtt.client.list', 'mqtt_connection'),
  f('resources.client.network_connection-fields', 'mqtt.client.list', 'network_connection.connection_type', 'network_connection.protocol'),
  f('resources.client.heartbeat-fields', 'mqtt.client.list', 'heartbeat.protocol', 'heartbeat.keep_live'),
  f('resources.session.session_expiry', 'mqtt.session.list', 'session_expiry'),
  f('resources.session.last_will_delay_interval', 'mqtt.session.list', 'last_will_delay_interval'),
  f('resources.session.create_time', 'mqtt.session.list', 'create_time'),
  f('resources.session.connection_id', 'mqtt.session.list', 'connection_id'),
  f('resources.session.broker_id', 'mqtt.session.list', 'broker_id'),
  f('resources.session.reconnect_time', 'mqtt.session.list', 'reconnect_time'),
  f('resources.session.distinct_time', 'mqtt.session.list', 'distinct_time'),
  f('resources.session.last_will', 'mqtt.session.list', 'last_will'),
  f('resources.session.last_will-fields', 'mqtt.session.list', 'last_will.last_will', 'last_will.last_will_properties'),
  f('resources.subscription.record', 'mqtt.subscribe.list', ''),
  f('resources.subscription-detail.share_sub', 'mqtt.subscribe.detail', 'share_sub'),
  f('resources.subscription-detail.group_leader_info', 'mqtt.subscribe.detail', 'group_leader_info'),
  f('resources.subscription-detail.key', 'mqtt.subscribe.detail', 'sub_data.client_id', 'sub_data.path'),
  f('resources.subscription-detail.push_subscribe', 'mqtt.subscribe.detail', 'sub_data.push_subscribe'),
  f('resources.subscription-detail.push_thread', 'mqtt.subscribe.detail', 'sub_data.push_thread'),
  f('resources.subscription-detail.leader_id', 'mqtt.subscribe.detail', 'sub_data.leader_id'),
  f('resources.auto-subscribe.qos', 'mqtt.auto-subscribe.list', 'qos'),
  f('resources.auto-subscribe.retained_handling', 'mqtt.auto-subscribe.list', 'retained_handling'),
  f('resources.slow-subscription.record', 'mqtt.slow-subscribe.list', ''),
  f('resources.user.record', 'cluster.user.list', ''),
  f('resources.acl.name', 'cluster.acl.list', 'name'),
  f('resources.acl.resource_type', 'cluster.acl.list', 'resource_type'),
  f('resources.acl.action', 'cluster.acl.list', 'action'),
  f('resources.acl.permission', 'cluster.acl.list', 'permission'),
  f('resources.connector.connector_type', 'cluster.connector.list', 'connector_type'),
  f('resources.connector.config', 'cluster.connector.list', 'config'),
  f('resources.connector.broker_id', 'cluster.connector.list', 'broker_id'),
  f('resources.connector.times', 'cluster.connector.list', 'create_time', 'update_time'),
  f('states.connector.values', 'cluster.connector.list', 'status'),
  f('resources.connector.runtime-detail', 'cluster.connector.detail', ''),
  f('resources.mq9-mailbox.mail_address', 'mq9.mail.list', 'mail_address'),
  f('resources.mq9-mailbox.ttl', 'mq9.mail.list', 'ttl'),
  f('resources.mq9-mailbox.create_time', 'mq9.mail.list', 'create_time'),
  f('resources.mq9-agent.name', 'mq9.agent.list', 'name'),
  f('resources.mq9-agent.agent_info', 'mq9.agent.list', 'agent_info'),
  f('resources.mq9-agent.create_time', 'mq9.agent.list', 'create_time'),
  f('resources.segment.record', REPLICA, 'segment'),
  f('resources.replica.is_leader', REPLICA, 'replicas.*.is_leader'),
  f('resources.replica.in_isr', REPLICA, 'replicas.*.in_isr'),
  f('resources.replica.role', REPLICA, 'replicas.*.role'),
  f('resources.replica.leo', REPLICA, 'replicas.*.leo'),
  f('resources.replica.high_watermark', REPLICA, 'replicas.*.high_watermark'),
  f('resources.replica.log_start_offset', REPLICA, 'replicas.*.log_start_offset'),
  f('resources.replica.follower_progress', REPLICA, 'replicas.*.follower_progress'),
  f('resources.replica.fetch', REPLICA, 'replicas.*.fetch'),
  f('resources.replica.available', REPLICA, 'replicas.*.available'),
  f('resources.replica.error', REPLICA, 'replicas.*.error'),
  f('resources.overview.node_list', 'mqtt.overview', 'node_list'),
  f('resources.overview.message-rates', 'mqtt.overview', 'message_in_rate', 'message_out_rate'),
  f('resources.overview.connection_num', 'mqtt.overview', 'connection_num'),
  f('resources.overview.totals', 'mqtt.overview', 'session_num', 'topic_num', 'subscribe_num'),
  f(
    'resources.overview.per-type',
    'mqtt.overview',
    'tcp_connection_num',
    'tls_connection_num',
    'websocket_connection_num',
    'quic_connection_num',
  ),
  f('resources.overview.exclusive', 'mqtt.overview', 'exclusive_subscribe_num', 'exclusive_subscribe_thread_num'),
  f('resources.overview.share', 'mqtt.overview', 'share_subscribe_group_num', 'share_subscribe_num', 'share_subscribe_thread_num'),
  f('resources.overview.connectors', 'mqtt.overview', 'connector_num', 'connector_thread_num'),
  f('states.consensus.placement_status', 'mqtt.overview', 'placement_status'),
  f('resources.node.record', ['mqtt.overview', ...STATUS], 'node_list.*', 'broker_node_list.*'),
  f('resources.monitor-point', 'mqtt.monitor.data', '*'),
  f('resources.status.version', STATUS, 'version'),
  f('resources.status.cluster_name', STATUS, 'cluster_name'),
  f('resources.status.start_time', STATUS, 'start_time'),
  f('resources.status.broker_node_list', STATUS, 'broker_node_list'),
  f('resources.status.nodes', STATUS, 'nodes'),
  f('resources.status.meta', STATUS, 'meta'),
  f('resources.status.raft-state', STATUS, 'meta.current_term', 'meta.*.current_term'),
  f('states.consensus.state', STATUS, 'meta.state', 'meta.*.state'),
  ...[
    'prometheus',
    'log',
    'runtime',
    'network',
    'pprof',
    'meta_runtime',
    'rocksdb',
    'storage_runtime',
    'mqtt_server',
    'mqtt_keep_alive',
    'mqtt_runtime',
    'mqtt_offline_message',
    'mqtt_slow_subscribe',
    'mqtt_flapping_detect',
    'mqtt_protocol',
    'mqtt_schema',
    'mqtt_system_monitor',
    'cluster_limit',
    'mqtt_limit',
    'llm_client',
    'admin',
  ].map((section) => f(`config.read.${section}`, 'cluster.config.get', section)),
  f('config.read.top-level', 'cluster.config.get', 'cluster_name', 'broker_id', 'roles', 'grpc_port', 'http_port', 'meta_addrs'),
];

type Json = unknown;

/** The values at a path (`*` = every element or map value), skipping what is absent. */
export function valuesAt(value: Json, path: string): Json[] {
  if (path === '') return value === undefined ? [] : [value];
  let current: Json[] = [value];
  for (const part of path.split('.')) {
    const next: Json[] = [];
    for (const v of current) {
      if (v === null || typeof v !== 'object') continue;
      if (part === '*') next.push(...(Array.isArray(v) ? v : Object.values(v)));
      else if (!Array.isArray(v) && part in v) next.push((v as Record<string, Json>)[part]);
    }
    current = next;
  }
  return current;
}

/** The part of a schema that describes the value at `path`, or undefined when the schema does not say. */
export function schemaAt(schema: JsonSchema | undefined, path: string): JsonSchema | undefined {
  if (path === '') return schema;
  let s: JsonSchema | undefined = schema;
  for (const part of path.split('.')) {
    if (!s) return undefined;
    const branches = [s, ...(((s.anyOf ?? s.oneOf ?? []) as JsonSchema[]) ?? [])];
    let found: JsonSchema | undefined;
    for (const b of branches) {
      if (part === '*')
        found =
          (b.items as JsonSchema | undefined) ??
          (typeof b.additionalProperties === 'object' ? (b.additionalProperties as JsonSchema) : undefined);
      else found = (b.properties as Record<string, JsonSchema> | undefined)?.[part];
      if (found) break;
    }
    s = found;
  }
  return s;
}

export interface FieldEvidence {
  /** Field rows whose fields the answer carried, valid against the contract. */
  shown: string[];
  /** Field rows whose fields are present but do not match the contract, with the first problem. */
  broken: { assertion: string; problem: string }[];
}

/**
 * Which field rows an answer of `e` shows, and which of them it breaks. Only rows of the same level
 * as the check's own assertion are reported (a check has one level). `records` are the list's rows,
 * or `[data]` for an endpoint that answers one object.
 */
export function fieldEvidence(e: EndpointContract, records: readonly Json[], validator: DataValidator, level: string): FieldEvidence {
  const shown: string[] = [];
  const broken: (FieldEvidence['broken'][number] & { paths: readonly string[] })[] = [];
  const rowSchema = e.response.data;
  for (const fa of FIELD_ASSERTIONS) {
    if (!fa.endpoints.includes(e.id) || assertionById(fa.assertion).level !== level) continue;
    let seen = 0;
    let problem: string | undefined;
    for (const path of fa.paths) {
      const sub = schemaAt(rowSchema, path);
      // A field the schema requires, missing from an object that should hold it, breaks its row too.
      const cut = path.lastIndexOf('.');
      const parentPath = cut === -1 ? '' : path.slice(0, cut);
      const key = path.slice(cut + 1);
      const parentSchema = schemaAt(rowSchema, parentPath);
      const required =
        key !== '*' && key !== '' && Array.isArray(parentSchema?.required) && (parentSchema.required as string[]).includes(key);
      for (const record of records) {
        if (required && !problem) {
          for (const parent of valuesAt(record, parentPath)) {
            if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !(key in parent)) problem = `${path} is missing`;
          }
        }
        for (const v of valuesAt(record, path)) {
          seen++;
          if (!sub || problem) continue;
          const check = validator.checkSchema(`field:${e.id}:${path}`, sub, v);
          if (!check.ok) problem = `${path} ${check.errors[0]}`;
        }
      }
    }
    if (problem) broken.push({ assertion: fa.assertion, problem, paths: fa.paths });
    else if (seen > 0) shown.push(fa.assertion);
  }
  // A row broken only because a field inside it is wrong (node_list, when node_list.*'s extend is
  // wrong) is the same cause as that deeper row: keep the deepest, the sentence that was broken.
  const deeper = (outer: readonly string[], inner: readonly string[]) =>
    outer.some((o) => inner.some((i) => i.startsWith(`${o}.`) || (o === '' && i !== '')));
  const deepest = broken.filter((b) => !broken.some((other) => other !== b && deeper(b.paths, other.paths)));
  return { shown, broken: deepest.map(({ assertion, problem }) => ({ assertion, problem })) };
}
