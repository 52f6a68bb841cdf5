import type { SimNode } from './node-registry.ts';

/**
 * The settings of one node that come from its configuration file and do not change at run time
 * (everything of config get that is not a `config_type` section). The spec names these fields but
 * gives few values; ports and paths come from the node, the rest are the real server's documented
 * defaults (decisions, listed in the config contract). Node-specific numbers are offset by the node's
 * index so several nodes on one host do not collide, as their listener ports do.
 */
export interface StaticNodeConfig {
  prometheus: { enable: boolean; port: number };
  log: { log_path: string; log_config: string };
  runtime: {
    runtime_worker_threads: number;
    server_worker_threads: number;
    meta_worker_threads: number;
    broker_worker_threads: number;
    channels_per_address: number;
    tls_cert: string;
    tls_key: string;
  };
  network: { accept_thread_num: number; handler_thread_num: number; queue_size: number };
  pprof: { enable: boolean; port: number; frequency: number };
  meta_runtime: {
    heartbeat_timeout_ms: number;
    heartbeat_check_time_ms: number;
    raft_write_timeout_sec: number;
    offset_raft_group_num: number;
    data_raft_group_num: number;
  };
  rocksdb: { data_path: string; max_open_files: number };
  storage_runtime: { tcp_port: number; max_segment_size: number; io_thread_num: number; data_path: string[]; offset_enable_cache: boolean };
  mqtt_server: { tcp_port: number; tls_port: number; websocket_port: number; websockets_port: number; quic_port: number };
  mqtt_keep_alive: { enable: boolean; default_time: number; max_time: number; default_timeout: number };
  mqtt_runtime: {
    default_user: string;
    /** A secret: config get redacts it. */
    default_password: string;
    durable_sessions_enable: boolean;
    secret_free_login: boolean;
    is_self_protection_status: boolean;
  };
}

/** Bytes in a storage segment before it rolls (1 GiB, the real server's default). */
const MAX_SEGMENT_SIZE = 1_073_741_824;

/** The `mqtt_runtime` login defaults of the real server (secret-free login off; the built-in user admin/robustmq). */
export const MQTT_RUNTIME_DEFAULTS = { default_user: 'admin', default_password: 'robustmq', secret_free_login: false } as const;

/**
 * `raftLayout`: the consensus-group counts the cluster was started with, so config and status agree.
 * `secretFreeLogin`: whether MQTT clients without a user name are let in (`mqsim serve --mqtt-port`
 * turns it on unless `--mqtt-login required`); default off, as on the real server.
 */
export function staticNodeConfig(
  node: SimNode,
  raftLayout: { offset_raft_group_num: number; data_raft_group_num: number },
  secretFreeLogin = false,
): StaticNodeConfig {
  const p = node.ports;
  const dataDir = `./data/node-${node.id}`;
  return {
    prometheus: { enable: true, port: p.prometheus },
    log: { log_path: `${dataDir}/logs`, log_config: './config/broker-tracing.toml' },
    // 0 = automatic (one per CPU core), as the spec describes it.
    runtime: {
      runtime_worker_threads: 0,
      server_worker_threads: 0,
      meta_worker_threads: 0,
      broker_worker_threads: 0,
      channels_per_address: 4,
      tls_cert: './config/certs/cert.pem',
      tls_key: './config/certs/key.pem',
    },
    network: { accept_thread_num: 8, handler_thread_num: 32, queue_size: 1000 },
    pprof: { enable: false, port: 6060 + node.id - 1, frequency: 100 },
    meta_runtime: {
      heartbeat_timeout_ms: 30_000,
      heartbeat_check_time_ms: 1000,
      raft_write_timeout_sec: 30,
      offset_raft_group_num: raftLayout.offset_raft_group_num,
      data_raft_group_num: raftLayout.data_raft_group_num,
    },
    rocksdb: { data_path: `${dataDir}/rocksdb`, max_open_files: 10_000 },
    storage_runtime: {
      tcp_port: p.storageTcp,
      max_segment_size: MAX_SEGMENT_SIZE,
      io_thread_num: 8,
      data_path: [...node.storageFold],
      offset_enable_cache: true,
    },
    mqtt_server: {
      tcp_port: p.mqttTcp,
      tls_port: p.mqttTls,
      websocket_port: p.mqttWebsocket,
      websockets_port: p.mqttWebsockets,
      quic_port: p.mqttQuic,
    },
    mqtt_keep_alive: { enable: true, default_time: 180, max_time: 3600, default_timeout: 2 },
    mqtt_runtime: {
      default_user: MQTT_RUNTIME_DEFAULTS.default_user,
      default_password: MQTT_RUNTIME_DEFAULTS.default_password,
      durable_sessions_enable: false,
      secret_free_login: secretFreeLogin,
      is_self_protection_status: false,
    },
  };
}
