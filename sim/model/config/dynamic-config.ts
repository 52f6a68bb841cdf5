/**
 * The eight run-time configuration sections of `POST /api/cluster/config/set`, in their set form
 * (field names, units and enum values as the spec's config-set table gives them). Every part of the
 * model reads its settings from `cluster.config.current()`, so a change takes effect at once.
 * The field rules and defaults are data in `contract/core/config-types.ts`; the sections handed
 * out are frozen: change them with `cluster.config.set(...)`, which validates, traces and notifies.
 */

interface SlowSubscribeConfig {
  enable: boolean;
  /** Threshold in ms: a delivery slower than this is recorded as a slow subscription. */
  record_time: number;
  delay_type: 'CreateTime' | 'PublishTime';
}

interface FlappingDetectConfig {
  enable: boolean;
  /** Seconds. */
  window_time: number;
  max_client_connections: number;
  /** Seconds. */
  ban_time: number;
}

interface ProtocolConfig {
  max_session_expiry_interval: number;
  default_session_expiry_interval: number;
  topic_alias_max: number;
  /** u8, default 2: shown by the read view's mqtt_protocol, so a set accepts it too (a decision). */
  max_qos_flight_message: number;
  max_packet_size: number;
  receive_max: number;
  max_message_expiry_interval: number;
  client_pkid_persistent: boolean;
}

export interface OfflineMessageConfig {
  enable: boolean;
  expire_ms: number;
  max_messages_num: number;
}

interface SystemMonitorConfig {
  enable: boolean;
  /** Fraction 0..1 in the set form. */
  os_cpu_high_watermark: number;
  os_memory_high_watermark: number;
  system_topic_interval_ms: number;
}

interface SchemaConfig {
  enable: boolean;
  strategy: 'Forward' | 'Strict';
  failed_operation: 'Disconnect' | 'Ignore';
  echo_log: boolean;
  log_level: string;
}

interface LimitQuota {
  max_connections_per_node: number;
  max_connection_rate: number;
  max_topics: number;
  max_sessions: number;
  max_publish_rate: number;
}

interface MqttLimitConfig {
  cluster: LimitQuota;
  tenant: LimitQuota;
}

interface ClusterLimitConfig {
  max_network_connection: number;
  max_network_connection_rate: number;
  max_admin_http_uri_rate: number;
}

/** All run-time sections, keyed by their `config_type`. */
export interface DynamicConfig {
  MqttSlowSubscribeConfig: SlowSubscribeConfig;
  MqttFlappingDetect: FlappingDetectConfig;
  MqttProtocol: ProtocolConfig;
  MqttOfflineMessage: OfflineMessageConfig;
  MqttSystemMonitor: SystemMonitorConfig;
  MqttSchema: SchemaConfig;
  MqttLimit: MqttLimitConfig;
  ClusterLimit: ClusterLimitConfig;
}

export type ConfigType = keyof DynamicConfig;
