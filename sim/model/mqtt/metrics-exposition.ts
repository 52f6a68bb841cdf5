import type { Blacklist } from '../broker/blacklist.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import type { MqttBroker } from './mqtt-broker.ts';
import { CONNECTION_TYPES } from './mqtt-labels.ts';
import { PrometheusText } from './metrics-text.ts';
import { collectMqttStats, sortedEntries, type MqttStatsSources } from './mqtt-stats.ts';

/** What `/metrics` reads: the MQTT counts, the broker's detectors, the blacklist and the online nodes. */
export interface MetricsSources extends MqttStatsSources {
  mqtt: MqttBroker;
  blacklist: Pick<Blacklist, 'all'>;
  nodes: { online(): readonly SimNode[] };
  now(): number;
}

/**
 * `GET /metrics`: the cluster's MQTT counters in the Prometheus text format, from the same model and
 * the same counting as the overview (`mqtt_connection_num` equals the overview's connection_num).
 */
export function metricsText(cluster: MetricsSources): string {
  const stats = collectMqttStats(cluster);
  const broker = cluster.mqtt;
  const out = new PrometheusText();

  out.family('mqtt_connection_num', 'gauge', 'Live MQTT connections of the cluster, all tenants and types.');
  out.sample('mqtt_connection_num', stats.connections.total);
  out.family('mqtt_connections', 'gauge', 'Live MQTT connections by tenant and connection type.');
  for (const [tenant, byType] of sortedEntries(stats.connections.byTenantType)) {
    for (const type of CONNECTION_TYPES) out.sample('mqtt_connections', byType[type], { tenant, connection_type: type });
  }
  out.family('mqtt_sessions', 'gauge', 'MQTT sessions (connected or within their expiry) by tenant.');
  for (const [tenant, n] of sortedEntries(stats.sessions.byTenant)) out.sample('mqtt_sessions', n, { tenant });
  out.family('mqtt_topics', 'gauge', 'Topics by tenant.');
  for (const [tenant, n] of sortedEntries(stats.topics.byTenant)) out.sample('mqtt_topics', n, { tenant });
  out.family('mqtt_subscriptions', 'gauge', 'Subscriptions by tenant and kind (exclusive or shared).');
  for (const [tenant, s] of sortedEntries(stats.subscriptions.byTenant)) {
    out.sample('mqtt_subscriptions', s.exclusive, { tenant, kind: 'exclusive' });
    out.sample('mqtt_subscriptions', s.shared, { tenant, kind: 'shared' });
  }

  const byTenant = broker.counters.byTenant();
  out.family('mqtt_messages_received_total', 'counter', 'Messages published to the broker, by tenant.');
  for (const [tenant, t] of byTenant) out.sample('mqtt_messages_received_total', t.in, { tenant });
  out.family('mqtt_messages_sent_total', 'counter', 'Messages delivered to subscribers, by tenant.');
  for (const [tenant, t] of byTenant) out.sample('mqtt_messages_sent_total', t.out, { tenant });
  out.family('mqtt_messages_dropped_total', 'counter', 'Messages not delivered (no subscriber, or the subscriber offline), by tenant.');
  for (const [tenant, t] of byTenant) out.sample('mqtt_messages_dropped_total', t.dropped, { tenant });

  out.family('mqtt_slow_subscriptions', 'gauge', 'Slow subscription records (tenant, client, topic) held.');
  out.sample('mqtt_slow_subscriptions', broker.slowSubscriptions.size);
  out.family('mqtt_flapping_bans_total', 'counter', 'Clients banned for connection flapping since start.');
  out.sample('mqtt_flapping_bans_total', broker.flapping.banCount);
  out.family('mqtt_blacklist_entries', 'gauge', 'Blacklist entries in force, by tenant and source (api or flapping).');
  const now = cluster.now();
  const active = new Map<string, number>();
  for (const e of cluster.blacklist.all()) {
    if (e.endTimeMs <= now) continue;
    const k = `${e.tenant}\u0000${e.source}`;
    active.set(k, (active.get(k) ?? 0) + 1);
  }
  for (const [k, n] of sortedEntries(active)) {
    const [tenant, source] = k.split('\u0000');
    out.sample('mqtt_blacklist_entries', n, { tenant, source });
  }

  out.family('mqtt_node_cpu_usage', 'gauge', 'Simulated CPU usage of each online node, 0..1, as last sampled.');
  out.family('mqtt_node_memory_usage', 'gauge', 'Simulated memory usage of each online node, 0..1, as last sampled.');
  for (const node of cluster.nodes.online()) {
    const load = broker.alarms.currentLoad(node.id);
    if (!load) continue;
    out.sample('mqtt_node_cpu_usage', Math.round(load.cpu * 10_000) / 10_000, { node_id: node.id });
    out.sample('mqtt_node_memory_usage', Math.round(load.memory * 10_000) / 10_000, { node_id: node.id });
  }

  out.family('connector_count', 'gauge', 'Connectors by tenant and status.');
  const connectorStatus = new Map<string, number>();
  for (const c of stats.connectors) {
    const k = `${c.tenant}\u0000${c.status}`;
    connectorStatus.set(k, (connectorStatus.get(k) ?? 0) + 1);
  }
  for (const [k, n] of sortedEntries(connectorStatus)) {
    const [tenant, status] = k.split('\u0000');
    out.sample('connector_count', n, { tenant, status });
  }
  out.family('connector_send_success_total', 'counter', 'Messages a running connector delivered since it (re)started.');
  out.family('connector_send_failure_total', 'counter', 'Messages a running connector failed to deliver since it (re)started.');
  for (const c of stats.connectors) {
    out.sample('connector_send_success_total', c.stats?.sendSuccessTotal ?? 0, { tenant: c.tenant, connector: c.connector_name });
    out.sample('connector_send_failure_total', c.stats?.sendFailTotal ?? 0, { tenant: c.tenant, connector: c.connector_name });
  }
  return out.toString();
}
