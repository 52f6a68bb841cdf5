/**
 * Record layouts of the real server that a client written against it reads, served next to the
 * spec's layout (both forms): the RobustMQ dashboard (socutes/robustmq-copilot) was written against a
 * slightly older server than the reference notes' snapshot, so it reads the older keys (config get's
 * top-level `mqtt_*` sections and `broker_network`, shard records' `extend.StorageEngine`) where the
 * snapshot has moved them. Adding keys breaks no rule of the spec, so these switches are `allows`.
 */
import type { SwitchCluster } from '../../admin-api/hooks/deviation.ts';
import { DEFAULT_MAILBOX_TTL_SECONDS } from '../../model/mq9/mq9.ts';
import type { Deviation } from '../../admin-api/hooks/deviation.ts';
import { aroundOn } from '../../admin-api/hooks/hook-helpers.ts';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** `Network` of the real config (src/common/config/src/config.rs): the handler pool of a listener. */
const REAL_NETWORK = { accept_thread_num: 1, handler_thread_num: 32, queue_size: 5000 };

/**
 * The sections of the real BrokerConfig the spec's read view lacks, with the real defaults
 * (robustmq src/common/config/src/config.rs and default.rs; notes §4.1). Values the simulator keeps
 * (ports, paths, the dynamic sections) are taken from the spec's view, so the two layouts always agree.
 */
function realConfigLayout(view: Obj, cluster: SwitchCluster): Obj {
  const node = cluster.nodes.get(Number(view.broker_id));
  const network = { ...REAL_NETWORK, ...obj(view.network) };
  const mqttRuntime = obj(view.mqtt_runtime);
  const storage = obj(view.storage_runtime);
  const meta = obj(view.meta_runtime);
  return {
    ...view,
    // The older server (the dashboard's) and the snapshot both have these at the top level.
    broker_network: network,
    data_path: node ? `./data/node-${node.id}` : './data',
    delay_task: { delay_task_queue_num: 0, delay_task_handler_concurrency: 0 },
    runtime: { ...obj(view.runtime), pprof_enable: obj(view.pprof).enable === true },
    meta_runtime: { group_offset_expire_sec: 604_800, ...meta },
    storage_runtime: { expire_scan_task_num: 1, network, ...storage },
    kafka_runtime: { tcp_port: 9092 },
    amqp_runtime: { tcp_port: 5672 },
    nats_runtime: {
      tcp_port: 4222,
      tls_port: 4223,
      ws_port: 4080,
      wss_port: 4443,
      max_payload: 1_048_576,
      auth_required: false,
      ping_interval: 60,
      ping_max: 3,
      ping_send_chunk: 10_000,
      core_shard_num: 10,
      push_thread_num: 1,
      push_queue_thread_num: 10,
      mq9_mailbox_default_ttl: DEFAULT_MAILBOX_TTL_SECONDS,
    },
    // The snapshot's layout (notes §4.1): the MQTT sections nested under mqtt_runtime. Its `auth`
    // section is left out: the notes name it without its fields.
    mqtt_runtime: {
      ...mqttRuntime,
      network,
      server: view.mqtt_server,
      keep_alive: view.mqtt_keep_alive,
      offline_message: view.mqtt_offline_message,
      slow_subscribe: view.mqtt_slow_subscribe,
      flapping_detect: view.mqtt_flapping_detect,
      protocol: view.mqtt_protocol,
      schema: view.mqtt_schema,
      system_monitor: view.mqtt_system_monitor,
      limit: view.mqtt_limit,
      broker_worker_threads: obj(view.runtime).broker_worker_threads ?? 0,
    },
  };
}

export const REAL_SERVER_LAYOUTS: readonly Deviation[] = [
  {
    id: 'config-get-real-layout',
    spec: 'allows',
    notes: 'notes §4.1 (config get: top-level keys, MQTT sections under mqtt_runtime); the dashboard reads the older top-level layout',
    rule: "Resources, Broker configuration: the read view lists its keys without forbidding others; the spec's keys all stay",
    endpoint: 'cluster.config.get',
    description:
      "config get also carries the real BrokerConfig sections: broker_network, runtime.pprof_enable, data_path, llm_client, delay_task, kafka/amqp/nats_runtime, storage_runtime.network, and the snapshot's mqtt_runtime.{server, keep_alive, offline_message, slow_subscribe, flapping_detect, protocol, schema, system_monitor, limit, network} beside the spec's top-level mqtt_* sections (secrets stay redacted)",
    checks: [],
    caught: false,
    reason: 'allowed by the spec: extra keys next to every key the spec lists',
    hooks: {
      around: aroundOn('cluster.config.get', async (params, next, cx) => {
        const data = await next(params);
        // A forwarded config get answers the other node's body; it went through this hook there.
        return data !== null && typeof data === 'object' && !Array.isArray(data) && 'broker_id' in data
          ? realConfigLayout(data as Obj, cx.cluster)
          : data;
      }),
    },
  },
  {
    id: 'shard-extend-storage-engine',
    spec: 'allows',
    notes:
      'notes §7 (shard list record {shard_info: AdapterShardDetail}, EngineShard); the dashboard reads shard_info.extend.StorageEngine of an older server',
    rule: 'Endpoints that exist but whose request and response shapes are given only by method and path: POST /api/storage-engine/shard/list — its records are "not shown"',
    endpoint: 'storage.shard.list',
    description:
      'shard list records carry the EngineShard both as shard_info.shard (the snapshot) and as shard_info.extend.StorageEngine (the older server the dashboard reads)',
    checks: [],
    caught: false,
    reason: "allowed by the spec: the shard record is not shown; the snapshot's fields all stay",
    hooks: {
      around: aroundOn('storage.shard.list', async (params, next) => {
        const page = (await next(params)) as { data: Obj[]; total_count: number };
        return {
          ...page,
          data: page.data.map((row) => {
            const info = obj(row.shard_info);
            return info.shard === undefined ? row : { ...row, shard_info: { ...info, extend: { StorageEngine: info.shard } } };
          }),
        };
      }),
    },
  },
];
