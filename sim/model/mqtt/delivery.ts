import type { QoS } from './mqtt-labels.ts';

/**
 * How messages leave the broker for clients that really receive them: a network client (the MQTT
 * listener of `mqsim serve --mqtt-port`) gives its connection a delivery sink, and the broker hands
 * every message routed to that client to it. Simulated clients have no sink: for them delivery is
 * only counted, exactly as before sinks existed, so runs without network clients keep their trace.
 *
 * Everything here is data the model passes through without reading it (payload bytes, MQTT 5
 * properties), plus the small amount it does read: QoS, retain flag, expiry.
 */

/** MQTT 5 PUBLISH properties a broker forwards to subscribers unaltered (MQTT 5 §3.3.2.3). */
export interface ForwardedProperties {
  payloadFormatIndicator?: boolean;
  /** Seconds; the broker lowers it by the time the message waited (MQTT 5 §3.3.2.3.3). */
  messageExpiryInterval?: number;
  contentType?: string;
  responseTopic?: string;
  correlationData?: Uint8Array;
  userProperties?: Record<string, string | string[]>;
}

/** What a message carries besides its topic and its payload text. Opaque to the model. */
export interface MessageExtras {
  /** The payload's bytes when they are not the UTF-8 encoding of the payload text (a binary payload). */
  bytes?: Uint8Array;
  properties?: ForwardedProperties;
}

/** A message on its way to one subscriber, with the flags the subscription gives it. */
export interface OutgoingMessage {
  topic: string;
  payload: string;
  extras?: MessageExtras;
  /** min(subscription QoS, published QoS). */
  qos: QoS;
  /** The RETAIN flag to send: set for retained messages sent because of a subscribe, and with retain-as-published. */
  retain: boolean;
  /** MQTT 5 subscription identifier of the subscription it matched. */
  subscriptionIdentifier: number | null;
  /** Virtual ms after which it must not be delivered any more (MQTT 5 message expiry); null: never. */
  expiresAt: number | null;
}

/**
 * A QoS 1 or 2 message a session keeps for its client while no connection takes it: unacknowledged
 * when the connection dropped (it has a packet id and is resent with DUP), or routed while the client
 * was offline (MqttOfflineMessage).
 */
export interface PendingMessage extends OutgoingMessage {
  /** Packet id it was last sent with; absent when it was never sent. */
  packetId?: number;
  /** `pubrel`: the client acknowledged a QoS 2 message with PUBREC, so only the PUBREL is resent. */
  phase?: 'publish' | 'pubrel';
  /** Virtual ms it was queued, for MqttOfflineMessage.expire_ms. */
  queuedAt: number;
}

/** Why the broker closed a connection (the `why` of the trace's `mqtt.disconnect`). */
export type ConnectionCloseReason = 'disconnect' | 'connection-lost' | 'takeover' | 'node-offline';

/** Where the broker hands the messages of one live connection. */
export interface DeliverySink {
  /** A message for the client (a pending one carries its old packet id). Must not throw or call back into the broker. */
  deliver(message: OutgoingMessage | PendingMessage): void;
  /**
   * The broker closed the connection (another connection took the session over, the node went
   * offline, a schema failure, an operator): the receiver closes its socket. Not called back into the broker synchronously.
   */
  closed(why: ConnectionCloseReason): void;
  /** Unacknowledged QoS 1/2 messages per direction, for the client record's counters. */
  inflight?(): { sending: number; receiving: number };
  /** Topic aliases the client set on this connection (alias → topic), for the client record. */
  topicAliases?(): Record<string, string>;
}
