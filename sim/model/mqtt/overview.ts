import type { ResolvedClusterOptions } from '../nodes/cluster-options.ts';
import type { NodeRegistry } from '../nodes/node-registry.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import { collectMqttStats, type MqttStatsSources } from './mqtt-stats.ts';

/** What the overview reads besides the MQTT counts: the nodes, the cluster name, the monitor's rates and the meta leader. */
export interface OverviewSources extends MqttStatsSources {
  nodes: Pick<NodeRegistry, 'online' | 'view'>;
  options: Pick<ResolvedClusterOptions, 'clusterName'>;
  monitor: { readonly messageInRate: number; readonly messageOutRate: number };
  raft: { metaLeaderId(): number | null };
}

/**
 * The spec's cluster overview, answered by `node`. Connection counts by type: `websocket_connection_num`
 * counts both Websocket and Websockets (the overview has no separate secure-websocket field).
 * Message rates are per second over the monitor's last sampling interval (0 before the first sample).
 */
export function clusterOverview(cluster: OverviewSources, node: SimNode) {
  const stats = collectMqttStats(cluster);
  const t = stats.connections.byType;
  return {
    node_list: cluster.nodes.online().map((n) => cluster.nodes.view(n)),
    cluster_name: cluster.options.clusterName,
    message_in_rate: cluster.monitor.messageInRate,
    message_out_rate: cluster.monitor.messageOutRate,
    connection_num: stats.connections.total,
    session_num: stats.sessions.total,
    topic_num: stats.topics.total,
    subscribe_num: stats.subscriptions.total,
    placement_status: node.id === cluster.raft.metaLeaderId() ? 'Leader' : 'Follower',
    tcp_connection_num: t.Tcp,
    tls_connection_num: t.Tls,
    websocket_connection_num: t.Websocket + t.Websockets,
    quic_connection_num: t.Quic,
    exclusive_subscribe_num: stats.subscriptions.exclusive,
    exclusive_subscribe_thread_num: stats.subscriptions.exclusiveThreads,
    share_subscribe_group_num: stats.subscriptions.shareGroups,
    share_subscribe_num: stats.subscriptions.shared,
    share_subscribe_thread_num: stats.subscriptions.sharedThreads,
    connector_num: stats.connectors.length,
    connector_thread_num: stats.connectors.filter((c) => c.status === 'Running').length,
  };
}
