import fc from 'fast-check';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';
import { ackPacketId, plainAckKind, readEmptyPacket, readPlainConnect, readPlainPublish } from './fast-packets.ts';
import { FrameReader } from './frame-reader.ts';
import { PacketParsers } from './packet-parsers.ts';

/** What the connection acts on, from either reader: the fields it reads of each packet. */
function essentials(p: Packet, version: ProtocolVersion): unknown {
  switch (p.cmd) {
    case 'publish':
      return {
        cmd: p.cmd,
        topic: p.topic,
        payload: Buffer.from(p.payload).toString('hex'),
        qos: p.qos,
        retain: p.retain,
        dup: p.dup,
        messageId: p.messageId,
        properties: p.properties,
        length: p.length,
      };
    case 'puback':
    case 'pubrec':
    case 'pubrel':
    case 'pubcomp':
      return { cmd: p.cmd, messageId: p.messageId, reasonCode: p.reasonCode ?? (version === 5 ? 0 : undefined), properties: p.properties };
    case 'pingreq':
    case 'disconnect':
      return {
        cmd: p.cmd,
        reasonCode: 'reasonCode' in p ? p.reasonCode : undefined,
        properties: 'properties' in p ? p.properties : undefined,
      };
    default:
      return p;
  }
}

/** mqtt-packet's parser alone, fed the chunks as they come: the reference. Stops at its first error. */
function reference(chunks: Buffer[], version: ProtocolVersion): unknown[] {
  const parser = mqttPacket.parser({ protocolVersion: version });
  const out: unknown[] = [];
  let failed = false;
  parser.on('packet', (p: Packet) => out.push(essentials(p, version)));
  parser.on('error', () => (failed = true));
  for (const c of chunks) if (!failed) parser.parse(c);
  return out;
}

/**
 * The listener's way: frames, the plain packets read here (unless `fast` is false), the others given
 * whole to the shared mqtt-packet parsers. Stops at the first error, as the connection does.
 */
function framed(chunks: Buffer[], version: ProtocolVersion, fast = true): unknown[] {
  const parsers = new PacketParsers();
  const out: unknown[] = [];
  let failed = false;
  const reader = new FrameReader({
    maxRemaining: Infinity,
    frame(packet: Buffer, bodyAt: number, remaining: number): boolean {
      const publish = fast ? readPlainPublish(packet, bodyAt, remaining, version) : undefined;
      const ack = publish || !fast ? undefined : plainAckKind(packet, remaining);
      const empty = publish || ack || !fast ? undefined : readEmptyPacket(packet, version);
      if (publish) out.push(essentials(publish, version));
      else if (ack) out.push(essentials({ cmd: ack, messageId: ackPacketId(packet) }, version));
      else if (empty) out.push(essentials(empty, version));
      else {
        const outcome = parsers.parse(packet, version);
        if (outcome.ok) out.push(essentials(outcome.packet, version));
        else failed = true;
      }
      return !failed;
    },
    tooLarge: () => {
      throw new Error('no limit in this test');
    },
    unframeable: () => void (failed = true),
  });
  for (const c of chunks) if (!failed) reader.push(c);
  return out;
}

const version = fc.constantFrom<ProtocolVersion>(3, 4, 5);
const text = fc.constantFrom('a', 'sensors/t1', 'ü/日本', 'x'.repeat(300));
const payload = fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constant(new Uint8Array(20_000).fill(7)));
const id = fc.integer({ min: 1, max: 65_535 });

/** Packets a client sends, in the forms that take the fast readers and in those that do not. */
function packet(v: ProtocolVersion): fc.Arbitrary<Packet> {
  const props =
    v === 5
      ? fc.option(fc.record({ contentType: text, userProperties: fc.constant({ k: 'v' }) }), { nil: undefined })
      : fc.constant(undefined);
  // Reason codes each acknowledgement may carry (MQTT 5 §3.4.2.1, §3.7.2.1).
  const ackCode = (cmd: string) =>
    v === 5 ? fc.option(fc.constantFrom(...(cmd === 'pubcomp' ? [0, 0x92] : [0, 0x10, 0x80])), { nil: undefined }) : fc.constant(undefined);
  return fc.oneof(
    fc
      .record({
        topic: text,
        payload,
        qos: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
        retain: fc.boolean(),
        dup: fc.boolean(),
        id,
        props,
      })
      .map(({ topic, payload: body, qos, retain, dup, id: messageId, props: properties }): Packet => ({
        cmd: 'publish',
        topic,
        payload: Buffer.from(body),
        qos,
        retain,
        dup,
        ...(qos > 0 ? { messageId } : {}),
        ...(properties ? { properties } : {}),
      })),
    (fc.constantFrom('puback', 'pubrec', 'pubcomp') as fc.Arbitrary<'puback' | 'pubrec' | 'pubcomp'>)
      .chain((cmd) => fc.record({ cmd: fc.constant(cmd), id, code: ackCode(cmd) }))
      .map(({ cmd, id: messageId, code }): Packet => ({ cmd, messageId, ...(code !== undefined ? { reasonCode: code } : {}) })),
    fc.record({ id }).map(({ id: messageId }): Packet => ({ cmd: 'pubrel', messageId })),
    fc.constant<Packet>({ cmd: 'pingreq' }),
    fc.constant<Packet>({ cmd: 'disconnect' }),
    ...(v === 5 ? [fc.constant<Packet>({ cmd: 'disconnect', reasonCode: 0x04 })] : []),
    fc
      .record({ id, topic: text })
      .map(({ id: messageId, topic }): Packet => ({ cmd: 'subscribe', messageId, subscriptions: [{ topic, qos: 1 }] })),
  );
}

/** Bytes cut into chunks at random places. */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) out.push(bytes.subarray(from, c));
    from = c;
  }
  return out;
}

describe('plain packets read without mqtt-packet, framing', () => {
  it('give the packets mqtt-packet gives, over random packet streams cut into random chunks', () => {
    fc.assert(
      fc.property(
        version.chain((v) =>
          fc.tuple(fc.constant(v), fc.array(packet(v), { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 20 })),
        ),
        ([v, packets, cuts]) => {
          const bytes = Buffer.concat(packets.map((p) => mqttPacket.generate(p, { protocolVersion: v })));
          const chunks = cut(bytes, cuts);
          const expected = reference(chunks, v);
          expect(expected).toHaveLength(packets.length);
          expect(framed(chunks, v)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  // On malformed input mqtt-packet, fed a stream, reads fields a packet is too short for from the
  // next packet's bytes; given the packet alone (as the listener now does) it finds them missing. So
  // fuzzed input is compared packet by packet, the plain readers against mqtt-packet on the same packets.
  it('give what mqtt-packet gives, packet by packet, up to its first error on fuzzed bytes', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }),
      // Mostly well-formed headers of the fast kinds with random bodies.
      fc
        .tuple(
          fc.constantFrom(0x30, 0x32, 0x34, 0x36, 0x3b, 0x40, 0x50, 0x62, 0x70, 0x60, 0xc0, 0xc1, 0xe0, 0xe2),
          fc.uint8Array({ maxLength: 60 }),
        )
        .map(([first, body]) => new Uint8Array([first, body.length, ...body])),
    );
    fc.assert(
      fc.property(version, fc.array(bytes, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (v, parts, cuts) => {
        const chunks = cut(Buffer.concat(parts.map((p) => Buffer.from(p))), cuts);
        expect(framed(chunks, v)).toEqual(framed(chunks, v, false));
      }),
      { numRuns: 1_000 },
    );
  });

  it('read a CONNECT as mqtt-packet does, and leave it the ones with a will, properties, MQTT 3.1 or trailing bytes', () => {
    const short = fc.constantFrom('c', 'client-7', 'ü日');
    const rarely = <T>(arb: fc.Arbitrary<T>, none: T): fc.Arbitrary<T> =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(none) }, { weight: 1, arbitrary: arb });
    const connect = fc.record({
      v: version,
      clientId: fc.oneof(fc.constant(''), short),
      clean: fc.boolean(),
      keepalive: fc.integer({ min: 0, max: 65_535 }),
      username: fc.option(short, { nil: undefined }),
      password: fc.option(fc.uint8Array({ maxLength: 30 }), { nil: undefined }),
      will: rarely(fc.record({ topic: short, payload: fc.uint8Array({ maxLength: 10 }), qos: fc.constantFrom(0, 1, 2) }), undefined),
      sessionExpiry: rarely(fc.integer({ min: 0, max: 1_000 }), undefined),
      // Bytes changed after generating: fuzzed flags, lengths, protocol names, extra bytes.
      mutations: rarely(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), []),
      extra: rarely(fc.uint8Array({ minLength: 1, maxLength: 2 }), new Uint8Array(0)),
    });
    let byHand = 0;
    fc.assert(
      fc.property(connect, (c) => {
        const generated = mqttPacket.generate(
          {
            cmd: 'connect',
            protocolId: c.v === 3 ? 'MQIsdp' : 'MQTT',
            protocolVersion: c.v,
            clientId: c.clientId === '' && (c.v === 3 || !c.clean) ? 'c' : c.clientId, // what mqtt-packet agrees to write
            clean: c.clean,
            keepalive: c.keepalive,
            ...(c.username !== undefined ? { username: c.username } : {}),
            ...(c.username !== undefined && c.password !== undefined ? { password: Buffer.from(c.password) } : {}),
            ...(c.will ? { will: { ...c.will, payload: Buffer.from(c.will.payload), qos: c.will.qos as 0 | 1 | 2, retain: false } } : {}),
            ...(c.v === 5 && c.sessionExpiry !== undefined ? { properties: { sessionExpiryInterval: c.sessionExpiry } } : {}),
          },
          { protocolVersion: c.v },
        );
        const bytes = Buffer.concat([generated, Buffer.from(c.extra)]);
        bytes[1] += c.extra.length; // still framed as one packet (remaining lengths stay under 128 here)
        for (const [at, value] of c.mutations) if (at % bytes.length > 1) bytes[at % bytes.length] = value;
        if (bytes[1] >= 128) return;
        const fast = readPlainConnect(bytes, 2, bytes.length - 2);
        if (!fast) return;
        byHand++;
        const outcome = new PacketParsers().parse(bytes, 4);
        expect(outcome.ok).toBe(true);
        if (outcome.ok) expect(fast).toEqual(outcome.packet);
      }),
      { numRuns: 2_000 },
    );
    // The generator makes plain CONNECTs often enough for the comparison to mean something.
    expect(byHand).toBeGreaterThan(200);
  });

  it('refuses a packet by its announced length before its body, and hands on a stream it cannot split', () => {
    const calls: string[] = [];
    const sink = (maxRemaining: number) => ({
      maxRemaining,
      frame: () => (calls.push('frame'), true),
      tooLarge: (n: number) => void calls.push(`too large ${n}`),
      unframeable: () => void calls.push('unframeable'),
    });
    new FrameReader(sink(100)).push(Buffer.from([0x30, 0xe5, 0x00])); // 101 announced, no body yet
    new FrameReader(sink(100)).push(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]));
    const reader = new FrameReader(sink(100));
    reader.push(Buffer.from([0x30]));
    reader.push(Buffer.from([0x03, 0x00]));
    expect(reader.heldBytes).toBe(3);
    reader.push(Buffer.from([0x01, 0x61, 0xc0])); // the rest of one PUBLISH, and a byte of the next packet
    expect(calls).toEqual(['too large 101', 'unframeable', 'frame']);
    expect(reader.heldBytes).toBe(1);
  });
});
