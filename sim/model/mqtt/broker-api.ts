/**
 * The MQTT broker's operations as its callers see them: the inputs and outcomes of connect, subscribe
 * and publish, and its events. A leaf module, so callers (the wire listener, the auto-subscribe rules,
 * the demo population) depend on these shapes, not on the broker.
 */
import type { DeliverySink, MessageExtras } from './delivery.ts';
import type { ConnectionType, ProtocolVersion, QoS, RetainHandling } from './mqtt-labels.ts';
import type { LastWill } from './mqtt-model.ts';

export interface ConnectInput {
  tenant: string;
  clientId: string;
  username?: string;
  ip?: string;
  /** Client source port; drawn when absent. */
  port?: number;
  connectionType?: ConnectionType;
  protocol?: ProtocolVersion;
  /** Discard any existing session; the session also ends at disconnect. */
  cleanStart?: boolean;
  /** Seconds the session outlives a disconnect; default MqttProtocol.default_session_expiry_interval. */
  sessionExpiry?: number;
  lastWill?: LastWill | null;
  /** Seconds; default 60. */
  keepAlive?: number;
  /** Node to connect to; drawn among online nodes when absent. */
  nodeId?: number;
  /**
   * A real network client (the MQTT listener): its session keeps QoS 1/2 messages while it is offline
   * and its connection gets no simulated heartbeats. Journaled with the connect, so a replay knows it.
   */
  networkClient?: boolean;
  /** Where this connection's messages go (a network client's socket); absent while a journal is replayed. */
  sink?: DeliverySink;
  /** MQTT 5 session rules: clean start discards an existing session, and the new one still lives `sessionExpiry` after a disconnect. */
  mqtt5Session?: boolean;
  /** What the client announced in its CONNECT (MQTT 5), shown in its record; default: the broker's MqttProtocol values. */
  receiveMaximum?: number;
  maxPacketSize?: number;
  topicAliasMax?: number;
}

/** Why a connect was refused, for the CONNACK reason code a network client gets. */
export type ConnectRefusal = 'invalid-client-id' | 'invalid' | 'unavailable' | 'banned' | 'rate' | 'quota';

export type ConnectResult =
  { ok: true; connectionId: number; nodeId: number; sessionPresent: boolean } | { ok: false; reason: string; refusal: ConnectRefusal };

export interface SubscribeInput {
  tenant: string;
  clientId: string;
  path: string;
  qos?: QoS;
  noLocal?: boolean;
  /** Retain as published. */
  preserveRetain?: boolean;
  retainHandling?: RetainHandling;
  subscriptionIdentifier?: number | null;
  userProperties?: { key: string; value: string }[];
}

/** Why a subscribe was refused, for the SUBACK reason code a network client gets. */
export type SubscribeRefusal = 'not-connected' | 'invalid-filter' | 'invalid' | 'not-authorized';

export type SubscribeResult = { ok: true; created: boolean; pkId: number } | { ok: false; reason: string; refusal: SubscribeRefusal };

export interface PublishInput {
  tenant: string;
  topic: string;
  payload: string;
  qos: QoS;
  retain: boolean;
  /** Publishing client; it must be connected. Absent for messages injected by the broker or the API. */
  clientId?: string;
  /** Message key, kept with the stored record (the API's message send can give one). */
  key?: string;
  /** Payload bytes and MQTT 5 properties of a network client's message, passed on to its receivers. */
  extras?: MessageExtras;
}

/** Why a publish was refused, for the PUBACK reason code a network client gets. */
export type PublishRefusal = 'invalid-topic' | 'invalid' | 'not-connected' | 'not-authorized' | 'payload-format' | 'quota' | 'rejected';

/** `offset`: where storage appended the message (null if the storage part returned none). */
export type PublishResult =
  { ok: true; delivered: number; dropped: number; offset: number | null } | { ok: false; reason: string; refusal: PublishRefusal };

/** What a connect listener hears about an admitted connection. */
export interface ConnectedEvent {
  tenant: string;
  clientId: string;
  username: string;
  ip: string;
  nodeId: number;
  sessionPresent: boolean;
}

/** A subscriber of a topic, as the topic detail's `sub_list` shows it. */
export interface TopicSubscriber {
  client_id: string;
  path: string;
}
