import type { IConnectPacket, IPublishPacket, Packet, QoS } from 'mqtt-packet';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';

/**
 * The packets a busy connection mostly receives, read without mqtt-packet's parser: a PUBLISH with no
 * MQTT 5 property, the acknowledgements PUBACK, PUBREC, PUBREL, PUBCOMP without a reason code, an
 * empty PINGREQ or DISCONNECT, and the CONNECT of a reconnect storm (no will, no property).
 * Anything else, and anything these readers do not fully recognise, answers undefined and goes to
 * mqtt-packet (the obvious computation, kept beside this one); the differential test
 * (fast-packets.test.ts) holds the two to the same packets over random and fuzzed input.
 *
 * Each reader takes one complete packet as `FrameReader` hands it on.
 */

/** A PUBLISH as mqtt-packet would give it, or undefined when it must be read by mqtt-packet. */
export function readPlainPublish(packet: Buffer, bodyAt: number, remaining: number, version: ProtocolVersion): IPublishPacket | undefined {
  const first = packet[0];
  if (first >> 4 !== 3) return undefined;
  const qos = (first >> 1) & 0x03;
  if (qos === 3 || remaining < 3) return undefined;
  const topicLength = packet.readUInt16BE(bodyAt);
  if (topicLength === 0) return undefined;
  let at = bodyAt + 2 + topicLength;
  const fixed = at + (qos > 0 ? 2 : 0) + (version === 5 ? 1 : 0);
  if (fixed > packet.length) return undefined;
  const topic = packet.toString('utf8', bodyAt + 2, at);
  let messageId: number | undefined;
  if (qos > 0) {
    messageId = packet.readUInt16BE(at);
    at += 2;
  }
  if (version === 5) {
    if (packet[at] !== 0) return undefined; // properties: mqtt-packet reads them
    at += 1;
  }
  const out: IPublishPacket = {
    cmd: 'publish',
    retain: (first & 0x01) !== 0,
    qos: qos as QoS,
    dup: (first & 0x08) !== 0,
    length: remaining,
    topic,
    payload: packet.subarray(at),
  };
  if (messageId !== undefined) out.messageId = messageId;
  return out;
}

export type AckKind = 'puback' | 'pubrec' | 'pubrel' | 'pubcomp';

/** Fixed header byte of each acknowledgement (PUBREL's reserved flags are 0010). */
const ACK_OF_FIRST_BYTE: Record<number, AckKind> = { 0x40: 'puback', 0x50: 'pubrec', 0x62: 'pubrel', 0x70: 'pubcomp' };

/** The kind of a two-byte acknowledgement (packet id only), or undefined. Its packet id: `ackPacketId`. */
export function plainAckKind(packet: Buffer, remaining: number): AckKind | undefined {
  if (remaining !== 2 || packet.length !== 4) return undefined;
  return ACK_OF_FIRST_BYTE[packet[0]];
}

export const ackPacketId = (packet: Buffer): number => packet.readUInt16BE(2);

/** An empty PINGREQ or DISCONNECT (MQTT 5: reason code 0, as mqtt-packet reads it), or undefined. */
export function readEmptyPacket(packet: Buffer, version: ProtocolVersion): Packet | undefined {
  if (packet.length !== 2 || packet[1] !== 0) return undefined;
  if (packet[0] === 0xc0) return { cmd: 'pingreq' };
  if (packet[0] === 0xe0) return version === 5 ? { cmd: 'disconnect', reasonCode: 0 } : { cmd: 'disconnect' };
  return undefined;
}

/** The CONNECT flags a plain CONNECT may have: user name, password, clean session (no will, reserved bit 0). */
const PLAIN_CONNECT_FLAGS = 0x80 | 0x40 | 0x02;
/** Protocol name "MQTT" with its length: MQTT 3.1.1 and 5 (MQTT 3.1's "MQIsdp" goes to mqtt-packet). */
const MQTT_NAME = Buffer.from([0, 4, 0x4d, 0x51, 0x54, 0x54]);

/** A length-prefixed field ending at or before `end`: its start and end, or undefined. */
function lengthPrefixed(packet: Buffer, at: number, end: number): number | undefined {
  if (at + 2 > end) return undefined;
  const fieldEnd = at + 2 + packet.readUInt16BE(at);
  return fieldEnd <= end ? fieldEnd : undefined;
}

/**
 * A CONNECT as mqtt-packet would give it: MQTT 3.1.1 or 5 without properties, no will, with or
 * without user name and password, nothing after them. Anything else is undefined (mqtt-packet reads it).
 */
export function readPlainConnect(packet: Buffer, bodyAt: number, remaining: number): IConnectPacket | undefined {
  const end = bodyAt + remaining;
  if (packet[0] !== 0x10 || end !== packet.length || remaining < 12) return undefined;
  if (MQTT_NAME.compare(packet, bodyAt, bodyAt + 6) !== 0) return undefined;
  const protocolVersion = packet[bodyAt + 6];
  const flags = packet[bodyAt + 7];
  if ((protocolVersion !== 4 && protocolVersion !== 5) || (flags & ~PLAIN_CONNECT_FLAGS) !== 0) return undefined;
  const keepalive = packet.readUInt16BE(bodyAt + 8);
  let at = bodyAt + 10;
  if (protocolVersion === 5 && packet[at++] !== 0) return undefined; // properties: mqtt-packet reads them
  const clientIdEnd = lengthPrefixed(packet, at, end);
  if (clientIdEnd === undefined) return undefined;
  const out: IConnectPacket = {
    cmd: 'connect',
    retain: false,
    qos: 0,
    dup: false,
    length: remaining,
    topic: null,
    payload: null,
    protocolId: 'MQTT',
    protocolVersion,
    clean: (flags & 0x02) !== 0,
    keepalive,
    clientId: packet.toString('utf8', at + 2, clientIdEnd),
  } as IConnectPacket;
  at = clientIdEnd;
  if (flags & 0x80) {
    const userEnd = lengthPrefixed(packet, at, end);
    if (userEnd === undefined) return undefined;
    out.username = packet.toString('utf8', at + 2, userEnd);
    at = userEnd;
  }
  if (flags & 0x40) {
    const passwordEnd = lengthPrefixed(packet, at, end);
    if (passwordEnd === undefined) return undefined;
    out.password = packet.subarray(at + 2, passwordEnd);
    at = passwordEnd;
  }
  return at === end ? out : undefined;
}
