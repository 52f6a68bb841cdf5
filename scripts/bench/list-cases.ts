/**
 * The list endpoints of the list benchmark (scripts/bench-lists.ts): how each is filled with N records
 * through the model, and its three queries of one 100-record page (default order; sorted; filtered
 * and sorted). Every list endpoint of the contract has a case (a test checks it).
 */
import type { Cluster } from '../../sim/model/cluster/cluster.ts';
import { defaultShardConfig } from '../../sim/model/storage/storage-engine.ts';

export interface ListCase {
  /** The contract's endpoint id. */
  id: string;
  /** Adds `n` records to the list (through the model, as the API or the protocols would). */
  seed(cluster: Cluster, n: number): void;
  /** Field sorted by (descending) in the sorted queries; absent when the list has no sort field. */
  sortField?: string;
  /** `filter_field` and `filter_values` of the filtered query: a substring about a third of the records hold. */
  filter: { field: string; value: string };
  /** Fewer records than asked for: the model keeps at most this many (the cap, in words). */
  cap?: { records: number; why: string };
}

/** Tenants the records are spread over. */
const TENANTS = ['default', 'fleet-a', 'fleet-b', 'fleet-c'];
const tenantOf = (i: number): string => TENANTS[i % TENANTS.length];
/** A tenant no client connects to, for the auto-subscribe rules (each connect would apply them all). */
const RULES_TENANT = 'rules-only';
/** Far in the future (virtual ms): blacklist entries and bans that stay in force during the run. */
const FAR_END_MS = Date.UTC(2100, 0, 1);

export const LIST_CASES: readonly ListCase[] = [
  // First: the engine runs forward to raise the alarms while the model is still small.
  {
    id: 'mqtt.system-alarm.list',
    seed: (c, n) => {
      // Alarms come from the monitor's samples (one a minute): a low watermark raises one per sample.
      c.config.set('MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.01, os_memory_high_watermark: 0.01 });
      c.engine.runUntil(c.now() + Math.ceil(Math.min(n, 1_000) / 2) * 60_000);
      c.config.set('MqttSystemMonitor', { enable: false });
    },
    sortField: 'create_time',
    filter: { field: 'name', value: 'Cpu' },
    cap: { records: 1_000, why: 'a node keeps its latest 1,000 alarms' },
  },
  {
    id: 'cluster.tenant.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) c.tenants.create({ tenant_name: `tenant-${i}`, desc: `desc ${i % 7}` });
    },
    sortField: 'create_time',
    filter: { field: 'tenant_name', value: '1' },
  },
  {
    id: 'cluster.user.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) c.users.create({ tenant: tenantOf(i), username: `user-${i}`, password: 'pw', is_superuser: i % 3 === 0 });
    },
    sortField: 'username',
    filter: { field: 'username', value: '1' },
  },
  {
    id: 'cluster.acl.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        c.acl.create({
          tenant: RULES_TENANT,
          name: `acl-${i}`,
          desc: '',
          resource_type: 'User',
          resource_name: `user-${i % 100}`,
          topic: `t/${i}/#`,
          ip: '',
          action: 'Publish',
          permission: i % 2 ? 'Allow' : 'Deny',
        });
      }
    },
    sortField: 'resource_name',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'cluster.blacklist.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        c.blacklist.add({
          tenant: RULES_TENANT,
          name: `ban-${i}`,
          blacklist_type: 'ClientId',
          resource_name: `client-${i}`,
          endTimeMs: FAR_END_MS,
          desc: '',
          source: 'api',
        });
      }
    },
    sortField: 'resource_name',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'cluster.schema.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        c.schemas.create({ tenant: tenantOf(i), name: `schema-${i}`, schema_type: 'json', schema: '{"type":"object"}', desc: '' });
      }
    },
    sortField: 'name',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'cluster.schema-bind.list',
    seed: (c, n) => {
      c.schemas.create({ tenant: RULES_TENANT, name: 'bound', schema_type: 'json', schema: '{"type":"object"}', desc: '' });
      for (let i = 0; i < n; i++) c.schemas.bind(RULES_TENANT, 'bound', `res/${i}`);
    },
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'cluster.topic-rewrite.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        c.rewriteRules.create({
          tenant: RULES_TENANT,
          name: `rw-${i}`,
          desc: '',
          action: 'All',
          source_topic: `src/${i}`,
          dest_topic: `dst/${i}`,
          regex: '^(.*)$',
        });
      }
    },
    sortField: 'source_topic',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'mqtt.auto-subscribe.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        c.autoSubscribe.create({
          tenant: RULES_TENANT,
          name: `rule-${i}`,
          desc: '',
          topic: `cmd/${i}`,
          qos: 1,
          no_local: false,
          retain_as_published: false,
          retained_handling: 0,
        });
      }
    },
    sortField: 'topic',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'cluster.connector.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        const name = `conn-${i}`;
        c.connectors.create({
          tenant: tenantOf(i),
          connector_name: name,
          connector_type: 'file',
          config: JSON.stringify({ local_file_path: `/tmp/mqsim-bench-${name}.log` }),
          topic_name: `data/${i}/#`,
          failure_strategy: { strategy: 'discard' },
        } as Parameters<Cluster['connectors']['create']>[0]);
        // Most stopped (no delivery threads running during the measurement), some left to run.
        if (i % 100 !== 0) c.connectors.stop(tenantOf(i), name);
      }
    },
    sortField: 'status',
    filter: { field: 'connector_name', value: '1' },
  },
  {
    id: 'cluster.topic.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) c.topics.create({ tenant: tenantOf(i), topic_name: `topic/${i}`, partition: 1, replication: 1 });
    },
    sortField: 'topic_name',
    filter: { field: 'topic_name', value: '1' },
  },
  {
    id: 'storage.shard.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++)
        c.storage.createShard({ shard_name: `shard-${i}`, topic_name: `shard/${i}`, config: defaultShardConfig(1) });
    },
    sortField: 'topic_name',
    filter: { field: 'shard_name', value: '1' },
  },
  {
    id: 'mq9.mail.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) c.mq9.createMailbox({ tenant: tenantOf(i), name: `box.${i}`, ttl: 0, desc: '' });
    },
    sortField: 'mail_address',
    filter: { field: 'mail_address', value: '1' },
  },
  {
    id: 'mq9.agent.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) c.mq9.registerAgent({ tenant: tenantOf(i), name: `agent-${i}`, agent_info: `{"n":${i}}` });
    },
    sortField: 'name',
    filter: { field: 'name', value: '1' },
  },
  {
    id: 'mqtt.client.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++)
        c.mqtt.connect({ tenant: tenantOf(i), clientId: `client-${i}`, cleanStart: false, sessionExpiry: 86_400 });
    },
    sortField: 'client_id',
    filter: { field: 'client_id', value: '1' },
    cap: { records: 100, why: 'the list samples at most 100 clients (spec), total_count counts them all' },
  },
  {
    id: 'mqtt.session.list',
    // The clients of mqtt.client.list have sessions.
    seed: () => {},
    sortField: 'client_id',
    filter: { field: 'client_id', value: '1' },
    cap: { records: 100, why: 'the list samples at most 100 sessions (spec), total_count counts them all' },
  },
  {
    id: 'mqtt.subscribe.list',
    seed: (c, n) => {
      for (let i = 0; i < n; i++) {
        const tenant = tenantOf(i);
        const clientId = `client-${i}`;
        if (!c.mqtt.isConnected(tenant, clientId)) c.mqtt.connect({ tenant, clientId, cleanStart: false, sessionExpiry: 86_400 });
        c.mqtt.subscribe({ tenant, clientId, path: `dev/${i}/cmd`, qos: 1 });
      }
    },
    sortField: 'client_id',
    filter: { field: 'path', value: '1' },
  },
  {
    id: 'mqtt.slow-subscribe.list',
    seed: (c, n) => {
      c.config.set('MqttSlowSubscribeConfig', { enable: true, record_time: 1 });
      for (let i = 0; i < n; i++) {
        c.mqtt.slowSubscriptions.observe({
          tenant: tenantOf(i),
          clientId: `client-${i}`,
          topic: `dev/${i}/cmd`,
          path: `dev/${i}/cmd`,
          nodeId: 1,
          internalMs: 5 + (i % 50),
          sendMs: 5,
        });
      }
      c.config.set('MqttSlowSubscribeConfig', { enable: false });
    },
    sortField: 'topic_name',
    filter: { field: 'client_id', value: '1' },
  },
  {
    id: 'mqtt.flapping-detect.list',
    seed: (c, n) => {
      // Two attempts within the window ban a client; the bans outlast the run.
      c.config.set('MqttFlappingDetect', { enable: true, max_client_connections: 1, window_time: 60, ban_time: 86_400 });
      for (let i = 0; i < n; i++) for (let k = 0; k < 2; k++) c.mqtt.flapping.onConnectAttempt(RULES_TENANT, `flapper-${i}`);
      c.config.set('MqttFlappingDetect', { enable: false });
    },
    sortField: 'client_id',
    filter: { field: 'client_id', value: '1' },
  },
  {
    id: 'mqtt.ban-log.list',
    // The bans of mqtt.flapping-detect.list are logged.
    seed: () => {},
    sortField: 'resource_name',
    filter: { field: 'resource_name', value: '1' },
  },
];
