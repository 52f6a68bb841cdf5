import type { ClientRecord, SessionRecord, SubscriptionDetailRecord, SubscriptionRecord } from '../../../contract/records.ts';
import { localTimeString, unixSeconds } from '../api/time-format.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import { heartbeatProtocolLabel, protocolLabel, qosLabel, retainHandlingLabel } from './mqtt-labels.ts';
import type { ClientState, LastWill, SessionState, Subscription } from './mqtt-model.ts';

/**
 * The spec's records built from the broker's state: client (composite), session, subscription list
 * item and subscription detail. Times are Unix seconds unless the spec gives another form
 * (subscription list create_time: local-time string).
 */

const secondsOrNull = (ms: number | null): number | null => (ms === null ? null : unixSeconds(ms));

/** Session fields shared by the session record and the client record's `session`. */
function sessionFields(c: ClientState, s: SessionState) {
  return {
    client_id: c.clientId,
    session_expiry: s.sessionExpiry,
    is_contain_last_will: s.lastWill !== null,
    last_will_delay_interval: s.lastWill ? (s.lastWill.properties?.delay_interval ?? 0) : null,
    create_time: unixSeconds(s.createdAt),
    connection_id: c.connection?.connectionId ?? null,
    broker_id: s.brokerId,
    reconnect_time: secondsOrNull(s.reconnectAt),
    distinct_time: secondsOrNull(s.disconnectAt),
  };
}

function lastWillView(c: ClientState, will: LastWill) {
  return {
    client_id: c.clientId,
    last_will: { topic: will.topic, message: will.message, qos: qosLabel(will.qos), retain: will.retain },
    last_will_properties: will.properties
      ? { ...will.properties, user_properties: will.properties.user_properties.map((p) => ({ ...p })) }
      : null,
  };
}

export function sessionRecord(c: ClientState): SessionRecord {
  const s = c.session!;
  return { tenant: c.tenant, ...sessionFields(c, s), last_will: s.lastWill ? lastWillView(c, s.lastWill) : null };
}

export function clientRecord(c: ClientState): ClientRecord {
  const last = c.last;
  const conn = c.connection;
  const inflight = conn?.sink?.inflight?.();
  return {
    tenant: c.tenant,
    client_id: c.clientId,
    connection_id: last.connectionId,
    mqtt_connection: {
      connect_id: last.connectionId,
      client_id: c.clientId,
      tenant: c.tenant,
      is_login: conn !== null,
      source_ip_addr: `${last.ip}:${last.port}`,
      source_ip: last.ip,
      login_user: last.username,
      clean_session: last.cleanStart,
      keep_alive: last.keepAlive,
      topic_alias: conn?.sink?.topicAliases?.() ?? {},
      client_max_receive_maximum: last.receiveMaximum,
      max_packet_size: last.maxPacketSize,
      topic_alias_max: last.topicAliasMax,
      request_problem_info: last.requestProblemInfo,
      // A simulated client's deliveries complete within the event that makes them, so nothing is in
      // flight; a network client's connection counts its unacknowledged QoS 1/2 messages.
      receive_qos_message: inflight?.receiving ?? 0,
      sender_qos_message: inflight?.sending ?? 0,
      create_time: unixSeconds(last.connectedAt),
    },
    network_connection: conn
      ? {
          connection_type: last.connectionType,
          connection_id: conn.connectionId,
          protocol: protocolLabel(last.protocol),
          addr: `${last.ip}:${last.port}`,
          last_heartbeat_time: unixSeconds(conn.lastHeartbeatAt),
          create_time: unixSeconds(last.connectedAt),
        }
      : null,
    session: c.session ? sessionFields(c, c.session) : null,
    heartbeat: conn
      ? { protocol: heartbeatProtocolLabel(last.protocol), keep_live: last.keepAlive, heartbeat: unixSeconds(conn.lastHeartbeatAt) }
      : null,
  };
}

/** MQTT 5 subscription properties as the list's JSON string; `"null"` when there are none. */
function propertiesJson(sub: Subscription): string {
  if (sub.subscriptionIdentifier === null && sub.userProperties.length === 0) return 'null';
  return JSON.stringify({
    subscription_identifier: sub.subscriptionIdentifier,
    user_properties: sub.userProperties.map((p) => [p.key, p.value]),
  });
}

export type SubscriptionRecordView = SubscriptionRecord;
export type ClientRecordView = ClientRecord;
export type SessionRecordView = SessionRecord;

export function subscriptionRecord(sub: Subscription): SubscriptionRecord {
  return {
    tenant: sub.tenant,
    client_id: sub.clientId,
    path: sub.path,
    broker_id: sub.brokerId,
    protocol: protocolLabel(sub.protocol),
    qos: qosLabel(sub.qos),
    no_local: sub.noLocal ? 1 : 0,
    preserve_retain: sub.preserveRetain ? 1 : 0,
    retain_handling: retainHandlingLabel(sub.retainHandling),
    create_time: localTimeString(sub.createdAt),
    pk_id: sub.pkId,
    properties: propertiesJson(sub),
    is_share_sub: sub.group !== null,
  };
}

/**
 * Subscription detail. `push_subscribe` and `push_thread` have one entry per concrete topic the
 * subscription has pushed to (or tried to), keyed by that topic's path, as the real server does; a
 * subscription that has matched no message yet has empty maps.
 */
export function subscriptionDetail(
  cluster: { nodes: { get(id: number): SimNode | undefined } },
  broker: { shareLeaderId(tenant: string, group: string): number | undefined },
  sub: Subscription,
): SubscriptionDetailRecord {
  const leaderId = sub.group !== null ? (broker.shareLeaderId(sub.tenant, sub.group) ?? null) : null;
  const leader = leaderId !== null ? cluster.nodes.get(leaderId) : undefined;
  const pushSubscribe: SubscriptionDetailRecord['sub_data']['push_subscribe'] = {};
  const pushThread: SubscriptionDetailRecord['sub_data']['push_thread'] = {};
  for (const [topic, stats] of sub.push) {
    pushSubscribe[topic] = {
      client_id: sub.clientId,
      sub_path: sub.path,
      rewrite_sub_path: sub.rewritePath ?? null,
      tenant: sub.tenant,
      topic_name: topic,
      group_name: sub.group ?? '',
      protocol: protocolLabel(sub.protocol),
      qos: qosLabel(sub.qos),
      no_local: sub.noLocal,
      preserve_retain: sub.preserveRetain,
      retain_forward_rule: retainHandlingLabel(sub.retainHandling),
      subscription_identifier: sub.subscriptionIdentifier,
      create_time: unixSeconds(sub.createdAt),
    };
    pushThread[topic] = {
      push_success_record_num: stats.success,
      push_error_record_num: stats.failure,
      last_push_time: stats.lastPushAt === null ? 0 : unixSeconds(stats.lastPushAt),
      last_run_time: unixSeconds(stats.lastRunAt),
      create_time: unixSeconds(stats.createdAt),
      bucket_id: `${sub.tenant}/${sub.clientId}/${sub.path}`,
    };
  }
  return {
    share_sub: sub.group !== null,
    group_leader_info: leader
      ? { broker_id: leader.id, broker_addr: `${leader.ip}:${leader.ports.grpc}`, extend_info: JSON.stringify({ group_name: sub.group }) }
      : null,
    sub_data: {
      tenant: sub.tenant,
      client_id: sub.clientId,
      path: sub.path,
      push_subscribe: pushSubscribe,
      push_thread: pushThread,
      leader_id: leaderId,
    },
  };
}
