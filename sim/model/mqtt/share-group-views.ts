import { unixSeconds } from '../api/time-format.ts';
import type { MqttBroker } from './mqtt-broker.ts';
import type { ShareGroup } from './subscriptions.ts';

/**
 * The real server's share-group records (reference notes §4.8, `metadata_struct::mqtt::share_group`)
 * computed from the broker's shared subscriptions. An MQTT share group is keyed by its full name
 * `<group>/<filter>` (the real `full_group_name`), one per `$share/<group>/<filter>` of a tenant,
 * which is how the simulator already groups members for round-robin delivery.
 */

/** `ShareGroupParams` serialized externally tagged; MQTT groups carry no parameters. */
const MQTT_SHARE_PARAMS = { MQTT: {} } as const;

export interface ShareGroupRow {
  uuid: string;
  tenant: string;
  group_name: string;
  leader_broker: number;
  sub_params: typeof MQTT_SHARE_PARAMS;
  /** Unix seconds (the real `now_second()` at creation). */
  create_time: number;
}

interface ShareGroupMemberRow {
  tenant: string;
  group_name: string;
  broker_id: number;
  sub_path: string;
  sid: string;
  params: typeof MQTT_SHARE_PARAMS;
  connect_id: number;
  create_time: number;
}

export interface ShareGroupDetail {
  group: ShareGroupRow;
  members: ShareGroupMemberRow[];
  /** NATS queue-group push subscribers: the simulator's groups are MQTT ones, which have none. */
  push_subscribers: never[];
  push_thread_info: { total_pushed: number; last_pull_time: number } | null;
}

/** The real `full_group_name(group, filter)`. */
function fullGroupName(g: ShareGroup): string {
  return `${g.group}/${g.filter}`;
}

function shareGroupRow(broker: MqttBroker, g: ShareGroup): ShareGroupRow {
  return {
    uuid: g.uuid,
    tenant: g.tenant,
    group_name: fullGroupName(g),
    // The same leader the subscribe detail shows for the group's members.
    leader_broker: broker.shareLeaderId(g.tenant, g.group) ?? 0,
    sub_params: MQTT_SHARE_PARAMS,
    create_time: unixSeconds(g.createdAt),
  };
}

/** Every share group with members, in the order the groups came to be. */
export function shareGroupRows(broker: MqttBroker): ShareGroupRow[] {
  return [...broker.subscriptions.shareGroups()].map((g) => shareGroupRow(broker, g));
}

/** The group of a tenant by its full name (`<group>/<filter>`; a share name has no `/`), if it has members. */
export function findShareGroup(broker: MqttBroker, tenant: string, groupName: string): ShareGroup | undefined {
  const slash = groupName.indexOf('/');
  if (slash <= 0) return undefined;
  return broker.subscriptions.shareGroup(tenant, groupName.slice(0, slash), groupName.slice(slash + 1));
}

/**
 * A group with its members: one per member subscription, `sid` the member's client id (the subscriber
 * inside its connection), `connect_id` its current connection (the last one while it is offline with
 * a session). `push_thread_info` sums what was pushed to the members and gives the last push run; null
 * until the group's first message.
 */
export function shareGroupDetail(broker: MqttBroker, g: ShareGroup): ShareGroupDetail {
  let totalPushed = 0;
  let lastRunMs: number | null = null;
  const members = g.members.map((sub): ShareGroupMemberRow => {
    totalPushed += sub.successTotal;
    for (const stats of sub.push.values()) if (lastRunMs === null || stats.lastRunAt > lastRunMs) lastRunMs = stats.lastRunAt;
    const client = broker.client(sub.tenant, sub.clientId);
    return {
      tenant: sub.tenant,
      group_name: fullGroupName(g),
      broker_id: sub.brokerId,
      sub_path: sub.path,
      sid: sub.clientId,
      params: MQTT_SHARE_PARAMS,
      connect_id: client?.connection?.connectionId ?? client?.last.connectionId ?? 0,
      create_time: unixSeconds(sub.createdAt),
    };
  });
  return {
    group: shareGroupRow(broker, g),
    members,
    push_subscribers: [],
    push_thread_info: lastRunMs === null ? null : { total_pushed: totalPushed, last_pull_time: unixSeconds(lastRunMs) },
  };
}
