import type { IPublishPacket, Packet, QoS } from 'mqtt-packet';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';

/**
 * The packets a busy connection mostly receives, read without mqtt-packet's parser: a PUBLISH with no
 * MQTT 5 property, the acknowledgements PUBACK, PUBREC, PUBREL, PUBCOMP without a reason code, and an
 * empty PINGREQ or DISCONNECT.
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
