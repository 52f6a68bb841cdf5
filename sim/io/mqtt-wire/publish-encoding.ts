import mqttPacket from 'mqtt-packet';
import type { OutgoingMessage } from '../../model/mqtt/delivery.ts';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';
import { publishPacketOf } from './packet-mapping.ts';

/**
 * The bytes of the PUBLISH a delivered message becomes, without mqtt-packet's object-to-stream
 * machinery for the usual message, and encoded once for all the subscribers that get the same bytes.
 *
 * `encodePublishSlow` is the obvious computation (publishPacketOf, then mqtt-packet's generate); the
 * fast path writes the same bytes by hand for messages that carry no MQTT 5 property (any MQTT 3
 * message; an MQTT 5 one without forwarded properties, expiry or subscription identifier: a property
 * length of 0). The differential property test (publish-encoding.test.ts) holds the two to the same
 * bytes over long random sequences, repeats and packet ids included.
 */

/** The bytes, or undefined when the message has expired (it must not be sent then). */
export function encodePublishSlow(
  message: OutgoingMessage,
  version: ProtocolVersion,
  nowMs: number,
  packetId: number | undefined,
  dup: boolean,
): Buffer | undefined {
  const packet = publishPacketOf(message, version, nowMs, packetId, dup);
  return packet ? mqttPacket.generate(packet, { protocolVersion: version }) : undefined;
}

/** Whether the fast path writes this message: no MQTT 5 property to send. */
function plain(message: OutgoingMessage, version: ProtocolVersion): boolean {
  if (version !== 5) return true;
  return message.extras?.properties === undefined && message.expiresAt === null && message.subscriptionIdentifier === null;
}

/** Bytes of an MQTT variable byte integer (remaining length). */
const varintLength = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x20_0000 ? 3 : 4);

/**
 * A PUBLISH laid out in one buffer with its packet id (QoS 1/2) at `idAt`, so a copy for another
 * subscriber differs only there.
 */
interface Encoded {
  bytes: Buffer;
  /** Offset of the two packet id bytes; -1 at QoS 0. */
  idAt: number;
}

function encodePlain(message: OutgoingMessage, version: ProtocolVersion, packetId: number | undefined, dup: boolean): Encoded {
  const topic = message.topic;
  const body = message.extras?.bytes;
  const topicBytes = Buffer.byteLength(topic, 'utf8');
  const payloadBytes = body ? body.byteLength : Buffer.byteLength(message.payload, 'utf8');
  const withId = packetId !== undefined;
  const remaining = 2 + topicBytes + (withId ? 2 : 0) + (version === 5 ? 1 : 0) + payloadBytes;
  const out = Buffer.allocUnsafe(1 + varintLength(remaining) + remaining);
  out[0] = 0x30 | (dup ? 0x08 : 0) | (message.qos << 1) | (message.retain ? 0x01 : 0);
  let at = 1;
  let n = remaining;
  do {
    let byte = n % 0x80;
    n = Math.floor(n / 0x80);
    if (n > 0) byte |= 0x80;
    out[at++] = byte;
  } while (n > 0);
  out.writeUInt16BE(topicBytes, at);
  at += 2;
  at += out.write(topic, at, topicBytes, 'utf8');
  let idAt = -1;
  if (withId) {
    idAt = at;
    out.writeUInt16BE(packetId, at);
    at += 2;
  }
  if (version === 5) out[at++] = 0; // no properties
  if (body) out.set(body, at);
  else out.write(message.payload, at, payloadBytes, 'utf8');
  return { bytes: out, idAt };
}

/**
 * The listener's PUBLISH encoder. A message routed to many subscribers reaches each connection as its
 * own copy with the same topic, payload and flags; the last encoding is kept and handed out again when
 * everything that goes into the bytes is equal, with the packet id patched into a copy at QoS 1/2
 * (the shared buffer itself is never written to again, since sockets may still hold it).
 */
export class PublishEncoder {
  private last: OutgoingMessage | undefined;
  private lastVersion: ProtocolVersion = 4;
  private lastDup = false;
  private lastEncoded: Encoded | undefined;
  /** Encodings handed out again (for the tests and the curious). */
  reused = 0;

  encode(
    message: OutgoingMessage,
    version: ProtocolVersion,
    nowMs: number,
    packetId: number | undefined,
    dup: boolean,
  ): Buffer | undefined {
    if (!plain(message, version)) return encodePublishSlow(message, version, nowMs, packetId, dup);
    // MQTT 3 has no expiry field, but an expired message is still not sent.
    if (message.expiresAt !== null && message.expiresAt <= nowMs) return undefined;
    const withId = packetId !== undefined;
    const last = this.last;
    const hit = this.lastEncoded;
    if (
      last !== undefined &&
      hit !== undefined &&
      hit.idAt >= 0 === withId &&
      this.lastVersion === version &&
      this.lastDup === dup &&
      last.qos === message.qos &&
      last.retain === message.retain &&
      last.extras?.bytes === message.extras?.bytes &&
      last.topic === message.topic &&
      last.payload === message.payload
    ) {
      this.reused++;
      if (!withId) return hit.bytes;
      const copy = Buffer.allocUnsafe(hit.bytes.length);
      hit.bytes.copy(copy);
      copy.writeUInt16BE(packetId, hit.idAt);
      return copy;
    }
    const encoded = encodePlain(message, version, packetId, dup);
    this.last = message;
    this.lastVersion = version;
    this.lastDup = dup;
    this.lastEncoded = encoded;
    return encoded.bytes;
  }
}

const ACK_TYPE = { puback: 0x40, pubrec: 0x50, pubrel: 0x62, pubcomp: 0x70 } as const;

/**
 * A PUBACK, PUBREC, PUBREL or PUBCOMP without a reason code, as mqtt-packet writes it (MQTT 5: reason
 * code 0 and an empty property length spelled out). The test holds it to mqtt-packet's bytes.
 */
export function encodeAck(kind: keyof typeof ACK_TYPE, packetId: number, version: ProtocolVersion): Buffer {
  const v5 = version === 5;
  const out = Buffer.allocUnsafe(v5 ? 6 : 4);
  out[0] = ACK_TYPE[kind];
  out[1] = v5 ? 4 : 2;
  out.writeUInt16BE(packetId, 2);
  if (v5) {
    out[4] = 0;
    out[5] = 0;
  }
  return out;
}

/** An MQTT 3.1/3.1.1 CONNACK, as mqtt-packet writes it (the test holds the two to the same bytes). */
export function encodeConnackV3(sessionPresent: boolean, returnCode: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out[0] = 0x20;
  out[1] = 2;
  out[2] = sessionPresent ? 1 : 0;
  out[3] = returnCode;
  return out;
}
