import { isUtf8 } from 'node:buffer';
import type { IConnectPacket, IPublishPacket, UserProperties } from 'mqtt-packet';
import type { ForwardedProperties, MessageExtras, OutgoingMessage } from '../../model/mqtt/delivery.ts';
import type { ProtocolVersion, QoS } from '../../model/mqtt/mqtt-labels.ts';
import type { LastWill } from '../../model/mqtt/mqtt-model.ts';
import { topicNameProblem } from '../../model/topic-filter/topic-filter.ts';
import { LOGIN_REFUSAL_CODES, type ConnackRefusal } from './reason-codes.ts';

/**
 * Between mqtt-packet's packet objects and the model's inputs and outputs: what a CONNECT asks for,
 * a PUBLISH's message, and the PUBLISH a delivered message becomes. No I/O, no state.
 */

/** 0xFFFFFFFF: a session that never expires (MQTT 5 §3.1.2.11.2); capped by the broker's maximum. */
const NEVER = 0xffff_ffff;

/** A CONNECT as the listener acts on it. */
export interface ConnectRequest {
  version: ProtocolVersion;
  /** Empty: the client asks the broker to assign one. */
  clientId: string;
  cleanStart: boolean;
  keepAlive: number;
  /** Seconds the session outlives the connection, before the broker's cap. */
  sessionExpiry: number;
  lastWill: LastWill | null;
  username?: string;
  password?: Buffer;
  /** MQTT 5 user property `tenant`. */
  tenantProperty?: string;
  /** How many QoS 1/2 messages the client takes in flight (MQTT 5 Receive Maximum; 65,535 otherwise). */
  receiveMaximum: number;
  /** Largest packet the client accepts (MQTT 5), undefined: no limit beyond the protocol's. */
  maximumPacketSize?: number;
  /** Topic aliases the client accepts from the broker (MQTT 5; this broker sends none). */
  topicAliasMaximum: number;
  /** MQTT 5 enhanced authentication, which this broker does not offer. */
  authenticationMethod?: string;
}

export type ConnectReading = { ok: true; request: ConnectRequest } | { ok: false; codes: ConnackRefusal; reason: string };

/** The bytes of a payload as the model's text plus, when the text would not give them back, the bytes. */
export function payloadOf(payload: Buffer | string): { text: string; bytes?: Uint8Array } {
  if (typeof payload === 'string') return { text: payload };
  const text = payload.toString('utf8');
  return isUtf8(payload) ? { text } : { text, bytes: payload };
}

/** mqtt-packet's user properties as the model's key/value list (repeated keys give several entries). */
export function userPropertyList(props: UserProperties | undefined): { key: string; value: string }[] {
  if (!props) return [];
  return Object.entries(props).flatMap(([key, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ key, value: String(value) })));
}

function forwardedOf(
  p: NonNullable<IPublishPacket['properties']> | NonNullable<NonNullable<IConnectPacket['will']>['properties']>,
): ForwardedProperties | undefined {
  const out: ForwardedProperties = {};
  if (p.payloadFormatIndicator !== undefined) out.payloadFormatIndicator = p.payloadFormatIndicator;
  if (p.messageExpiryInterval !== undefined) out.messageExpiryInterval = p.messageExpiryInterval;
  if (p.contentType !== undefined) out.contentType = p.contentType;
  if (p.responseTopic !== undefined) out.responseTopic = p.responseTopic;
  if (p.correlationData !== undefined) out.correlationData = p.correlationData;
  if (p.userProperties !== undefined) out.userProperties = { ...p.userProperties };
  return Object.keys(out).length > 0 ? out : undefined;
}

function extrasOf(bytes: Uint8Array | undefined, properties: ForwardedProperties | undefined): MessageExtras | undefined {
  if (!bytes && !properties) return undefined;
  return { ...(bytes ? { bytes } : {}), ...(properties ? { properties } : {}) };
}

function refuse(codes: ConnackRefusal, reason: string): ConnectReading {
  return { ok: false, codes, reason };
}

/**
 * Reads a CONNECT (already well-formed as far as mqtt-packet checks). `defaultSessionExpiry` is the
 * session expiry of an MQTT 3 client asking for a persistent session (MQTT 3 has no expiry of its own).
 */
export function readConnect(packet: IConnectPacket, defaultSessionExpiry: number): ConnectReading {
  const version = (packet.protocolVersion ?? 4) as ProtocolVersion;
  const clean = packet.clean ?? true;
  const clientId = packet.clientId ?? '';
  // MQTT 3.1.1 §3.1.3.1: an empty client id only with a clean session; MQTT 3.1 has no empty ids.
  if (clientId === '' && version !== 5 && (!clean || version === 3))
    return refuse(LOGIN_REFUSAL_CODES.identifierRejected, 'an empty client id needs a clean session (MQTT 3.1.1 §3.1.3.1)');
  const props = packet.properties ?? {};
  if (props.receiveMaximum === 0) return refuse(LOGIN_REFUSAL_CODES.protocolError, 'Receive Maximum must not be 0 (MQTT 5 §3.1.2.11.3)');
  if (props.maximumPacketSize === 0)
    return refuse(LOGIN_REFUSAL_CODES.protocolError, 'Maximum Packet Size must not be 0 (MQTT 5 §3.1.2.11.4)');
  let lastWill: LastWill | null = null;
  if (packet.will) {
    const w = packet.will;
    const problem = topicNameProblem(w.topic);
    if (problem) return refuse(LOGIN_REFUSAL_CODES.topicNameInvalid, `will topic: ${problem}`);
    const { text, bytes } = payloadOf(w.payload);
    const wp = w.properties;
    const forwarded = version === 5 && wp ? forwardedOf(wp) : undefined;
    const extras = extrasOf(bytes, forwarded);
    lastWill = {
      topic: w.topic,
      message: text,
      qos: (w.qos ?? 0) as QoS,
      retain: w.retain ?? false,
      properties:
        version === 5
          ? {
              delay_interval: wp?.willDelayInterval ?? 0,
              payload_format_indicator: wp?.payloadFormatIndicator ? 1 : 0,
              message_expiry_interval: wp?.messageExpiryInterval ?? 0,
              content_type: wp?.contentType ?? '',
              response_topic: wp?.responseTopic ?? '',
              correlation_data: wp?.correlationData ? Buffer.from(wp.correlationData).toString('base64') : '',
              user_properties: userPropertyList(wp?.userProperties),
            }
          : null,
      ...(extras ? { extras } : {}),
    };
  }
  const tenantProperty = props.userProperties?.tenant;
  const sessionExpiry =
    version === 5
      ? props.sessionExpiryInterval === NEVER
        ? Number.MAX_SAFE_INTEGER
        : (props.sessionExpiryInterval ?? 0)
      : clean
        ? 0
        : defaultSessionExpiry;
  return {
    ok: true,
    request: {
      version,
      clientId,
      cleanStart: clean,
      keepAlive: packet.keepalive ?? 0,
      sessionExpiry,
      lastWill,
      ...(packet.username !== undefined ? { username: packet.username } : {}),
      ...(packet.password !== undefined ? { password: Buffer.from(packet.password) } : {}),
      ...(tenantProperty !== undefined ? { tenantProperty: Array.isArray(tenantProperty) ? tenantProperty[0] : tenantProperty } : {}),
      receiveMaximum: props.receiveMaximum ?? 65_535,
      topicAliasMaximum: props.topicAliasMaximum ?? 0,
      ...(props.maximumPacketSize !== undefined ? { maximumPacketSize: props.maximumPacketSize } : {}),
      ...(props.authenticationMethod !== undefined ? { authenticationMethod: props.authenticationMethod } : {}),
    },
  };
}

/** A client's PUBLISH as the model's message: payload text (and bytes when binary), MQTT 5 properties to forward. */
export function readPublish(packet: IPublishPacket, version: ProtocolVersion): { payload: string; extras?: MessageExtras } {
  const { text, bytes } = payloadOf(packet.payload);
  const p = packet.properties;
  const forwarded = version === 5 && p ? forwardedOf(p) : undefined;
  const extras = extrasOf(bytes, forwarded);
  return { payload: text, ...(extras ? { extras } : {}) };
}

/** Whether a PUBLISH claims UTF-8 text (MQTT 5 Payload Format Indicator 1) and is not. */
export function payloadFormatBroken(packet: IPublishPacket): boolean {
  return packet.properties?.payloadFormatIndicator === true && typeof packet.payload !== 'string' && !isUtf8(packet.payload);
}

/**
 * The PUBLISH a delivered message becomes. MQTT 5 properties are forwarded, with the message expiry
 * lowered by the time the message waited; undefined when it has expired (it must not be sent then).
 */
export function publishPacketOf(
  message: OutgoingMessage,
  version: ProtocolVersion,
  nowMs: number,
  packetId: number | undefined,
  dup: boolean,
): IPublishPacket | undefined {
  const payload = message.extras?.bytes ? Buffer.from(message.extras.bytes) : Buffer.from(message.payload, 'utf8');
  const packet: IPublishPacket = { cmd: 'publish', topic: message.topic, payload, qos: message.qos, retain: message.retain, dup };
  if (packetId !== undefined) packet.messageId = packetId;
  if (version === 5) {
    const f = message.extras?.properties;
    const properties: NonNullable<IPublishPacket['properties']> = {};
    if (f?.payloadFormatIndicator !== undefined) properties.payloadFormatIndicator = f.payloadFormatIndicator;
    if (f?.contentType !== undefined) properties.contentType = f.contentType;
    if (f?.responseTopic !== undefined) properties.responseTopic = f.responseTopic;
    if (f?.correlationData !== undefined) properties.correlationData = Buffer.from(f.correlationData);
    if (f?.userProperties !== undefined) properties.userProperties = f.userProperties;
    if (message.expiresAt !== null) {
      const left = Math.ceil((message.expiresAt - nowMs) / 1000);
      if (left <= 0) return undefined;
      properties.messageExpiryInterval = left;
    }
    if (message.subscriptionIdentifier !== null) properties.subscriptionIdentifier = message.subscriptionIdentifier;
    if (Object.keys(properties).length > 0) packet.properties = properties;
  } else if (message.expiresAt !== null && message.expiresAt <= nowMs) {
    return undefined;
  }
  return packet;
}
