import type { Cluster } from '../cluster/cluster.ts';
import type { DynamicConfig } from './dynamic-config.ts';

// Transitional: replaced by the full config implementation (validation, read view, set).
const DEFAULTS: DynamicConfig = {
  MqttSlowSubscribeConfig: { enable: false, record_time: 1000, delay_type: 'CreateTime' },
  MqttFlappingDetect: { enable: false, window_time: 60, max_client_connections: 5, ban_time: 300 },
  MqttProtocol: { max_session_expiry_interval: 2592000, default_session_expiry_interval: 3600, topic_alias_max: 65535, max_packet_size: 10485760, receive_max: 65535, max_message_expiry_interval: 86400, client_pkid_persistent: false },
  MqttOfflineMessage: { enable: false, expire_ms: 86400000, max_messages_num: 1000 },
  MqttSystemMonitor: { enable: false, os_cpu_high_watermark: 0.7, os_memory_high_watermark: 0.8, system_topic_interval_ms: 60000 },
  MqttSchema: { enable: false, strategy: 'Forward', failed_operation: 'Disconnect', echo_log: false, log_level: 'info' },
  MqttLimit: {
    cluster: { max_connections_per_node: 10000000, max_connection_rate: 10000, max_topics: 5000000, max_sessions: 50000000, max_publish_rate: 10000 },
    tenant: { max_connections_per_node: 10000000, max_connection_rate: 10000, max_topics: 5000000, max_sessions: 50000000, max_publish_rate: 10000 },
  },
  ClusterLimit: { max_network_connection: 100000000, max_network_connection_rate: 10000, max_admin_http_uri_rate: 50 },
};

export class ClusterConfig {
  private config: DynamicConfig = structuredClone(DEFAULTS);
  constructor(private readonly cluster: Cluster) {}
  current(): DynamicConfig {
    return this.config;
  }
}
