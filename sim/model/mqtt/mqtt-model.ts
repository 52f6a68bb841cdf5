import type { DeliverySink, MessageExtras, PendingMessage } from './delivery.ts';
import type { ConnectionType, ProtocolVersion, QoS, RetainHandling } from './mqtt-labels.ts';

/**
 * The state the MQTT broker keeps: clients (with their current network connection, if any),
 * sessions and subscriptions. Times are virtual Unix ms; views convert them to the spec's forms.
 */

/** MQTT 5 will properties (null for MQTT 3/4 clients). */
interface LastWillProperties {
  delay_interval: number;
  payload_format_indicator: number;
  message_expiry_interval: number;
  content_type: string;
  response_topic: string;
  correlation_data: string;
  user_properties: { key: string; value: string }[];
}

export interface LastWill {
  topic: string;
  message: string;
  qos: QoS;
  retain: boolean;
  properties: LastWillProperties | null;
  /** Payload bytes and MQTT 5 properties of a network client's will, published with it. */
  extras?: MessageExtras;
}

/** Protocol-layer parameters a client negotiated at its last CONNECT; kept after it disconnects. */
export interface ConnectParams {
  connectionId: number;
  username: string;
  ip: string;
  port: number;
  connectionType: ConnectionType;
  protocol: ProtocolVersion;
  keepAlive: number;
  cleanStart: boolean;
  receiveMaximum: number;
  maxPacketSize: number;
  topicAliasMax: number;
  requestProblemInfo: 0 | 1;
  nodeId: number;
  connectedAt: number;
}

/** A live network connection. */
export interface LiveConnection {
  connectionId: number;
  nodeId: number;
  lastHeartbeatAt: number;
  /**
   * Set when the connection closes (the client's `connection` is then no longer this one): the
   * heartbeat wheel tells its stale entries by this flag on the connection it reads anyway, instead
   * of reading the client too (`heartbeatEntryStale` is the obvious test; heartbeat-wheel.test.ts
   * compares the two).
   */
  closed?: true;
  /** Where messages for a network client's connection go (none for simulated clients, and while a journal is replayed). */
  sink?: DeliverySink;
}

export interface SessionState {
  /** Seconds the session outlives a disconnect. */
  sessionExpiry: number;
  createdAt: number;
  reconnectAt: number | null;
  disconnectAt: number | null;
  /** Node hosting the session (where the client last connected). */
  brokerId: number;
  lastWill: LastWill | null;
  /**
   * Network clients only: QoS 1/2 messages kept for the client while no connection takes them
   * (unacknowledged at the last disconnect, or routed while offline), delivered at the next connect.
   */
  pending?: PendingMessage[];
  /** MQTT 5 rules: clean start only discards an existing session; this one lives on for `sessionExpiry` after a disconnect. */
  survivesCleanStart?: boolean;
}

/** A client the broker knows: connected now, or disconnected with a session that has not expired. */
export interface ClientState {
  tenant: string;
  clientId: string;
  last: ConnectParams;
  connection: LiveConnection | null;
  session: SessionState | null;
  /** Messages the client published (session_in) and received (session_out). */
  messagesIn: number;
  messagesOut: number;
  /** Packet id of the client's next SUBSCRIBE (1..65535, wraps). */
  nextPkId: number;
  /** Bumped on every connect and disconnect, so a scheduled will or expiry can tell it is stale. */
  generation: number;
  /** Connected last through the MQTT listener (a real client): its session keeps messages for it while offline. */
  networkClient?: boolean;
  /** The monitor's series row of this client's client_id, cached by the monitor (see monitor.ts). */
  monitorRow?: number;
}

/** Delivery counters of one subscription for one concrete topic (the detail's push_thread). */
export interface PushStats {
  success: number;
  failure: number;
  lastPushAt: number | null;
  lastRunAt: number;
  createdAt: number;
  /** The monitor's series row of (client_id, path, topic), cached by the monitor (see monitor.ts). */
  monitorRow?: number;
}

export interface Subscription {
  tenant: string;
  clientId: string;
  /** The path as subscribed: a filter, or `$share/<group>/<filter>`. */
  path: string;
  filter: string;
  /** Share group name; null for an exclusive subscription. */
  group: string | null;
  qos: QoS;
  noLocal: boolean;
  preserveRetain: boolean;
  retainHandling: RetainHandling;
  subscriptionIdentifier: number | null;
  userProperties: { key: string; value: string }[];
  /** The path after the topic rewrite rules, when they changed it (routing uses its filter). */
  rewritePath?: string;
  protocol: ProtocolVersion;
  brokerId: number;
  pkId: number;
  createdAt: number;
  /** Per concrete topic delivered to (bounded: see MAX_PUSH_TOPICS in subscriptions.ts). */
  push: Map<string, PushStats>;
  /**
   * Whether `push` ever held a topic (it never empties again: a topic only makes way for another). The
   * monitor visits every subscription each sample and most never pushed: this field, read with the
   * others, spares it a read of the map itself.
   */
  pushedAny: boolean;
  successTotal: number;
  failureTotal: number;
  /** The monitor's series row of (client_id, path), cached by the monitor (see monitor.ts). */
  monitorRow?: number;
}

export const clientKey = (tenant: string, clientId: string): string => `${tenant}\u0000${clientId}`;
