import fc from 'fast-check';
import mqttPacket, { type IPublishPacket } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../model/mqtt/delivery.ts';
import type { ProtocolVersion, QoS } from '../../model/mqtt/mqtt-labels.ts';
import { encodeAck, encodeConnackV3, encodePublishSlow, PublishEncoder } from './publish-encoding.ts';

const NOW = 1_000_000;

/** A delivery as the connection asks for it: the message, the client's protocol, packet id and DUP. */
interface Delivery {
  message: OutgoingMessage;
  version: ProtocolVersion;
  packetId: number | undefined;
  dup: boolean;
}

// Few topics and payloads, so consecutive deliveries often share them (the fan-out the encoder reuses).
const topics = ['a', 'sensors/t1', 'ü/ñ/日本', 'x'.repeat(200)];
const payloads = ['', '21.5', 'héllo wörld', 'p'.repeat(130), 'q'.repeat(20_000)];
const binary = [new Uint8Array([0xff, 0x00, 0xfe]), new Uint8Array(300).fill(0xc3)];

const message: fc.Arbitrary<OutgoingMessage> = fc
  .record({
    topic: fc.constantFrom(...topics),
    payload: fc.constantFrom(...payloads),
    bytes: fc.option(fc.constantFrom(...binary), { freq: 4 }),
    properties: fc.option(fc.record({ contentType: fc.constantFrom('text/plain', 'bin'), payloadFormatIndicator: fc.boolean() }), {
      freq: 3,
    }),
    qos: fc.constantFrom<QoS>(0, 1, 2),
    retain: fc.boolean(),
    subscriptionIdentifier: fc.option(fc.integer({ min: 1, max: 268_435_455 }), { freq: 3 }),
    expiresAt: fc.option(fc.integer({ min: NOW - 5_000, max: NOW + 100_000 }), { freq: 4 }),
  })
  .map(({ bytes, properties, ...m }) => ({
    ...m,
    ...(bytes || properties ? { extras: { ...(bytes ? { bytes } : {}), ...(properties ? { properties } : {}) } } : {}),
  }));

const delivery: fc.Arbitrary<Delivery> = fc
  .record({ message, version: fc.constantFrom<ProtocolVersion>(3, 4, 5), id: fc.integer({ min: 1, max: 65_535 }), dup: fc.boolean() })
  .map(({ message: m, version, id, dup }) => ({ message: m, version, packetId: m.qos > 0 ? id : undefined, dup: m.qos > 0 && dup }));

/** Runs of the same message to several subscribers, as a publish fans out, mixed with single deliveries. */
const fanOut: fc.Arbitrary<Delivery[]> = fc
  .tuple(delivery, fc.array(fc.record({ id: fc.integer({ min: 1, max: 65_535 }), version: fc.constantFrom<ProtocolVersion>(3, 4, 5) })))
  .map(([first, others]) => [
    first,
    ...others.map(({ id, version }) => ({
      ...first,
      message: { ...first.message },
      version,
      packetId: first.packetId === undefined ? undefined : id,
    })),
  ]);

describe('PUBLISH encoding', () => {
  it('gives the bytes of mqtt-packet over long random sequences, shared encodings included, and never alters bytes handed out', () => {
    fc.assert(
      fc.property(fc.array(fanOut, { minLength: 1, maxLength: 40 }), (runs) => {
        const encoder = new PublishEncoder();
        const handedOut: [Buffer, Buffer][] = [];
        for (const d of runs.flat()) {
          const fast = encoder.encode(d.message, d.version, NOW, d.packetId, d.dup);
          const slow = encodePublishSlow(d.message, d.version, NOW, d.packetId, d.dup);
          expect(fast === undefined).toBe(slow === undefined);
          if (fast && slow) {
            expect(fast.equals(slow)).toBe(true);
            handedOut.push([fast, Buffer.from(fast)]);
          }
        }
        for (const [buffer, snapshot] of handedOut) expect(buffer.equals(snapshot)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('encodes a message routed to many subscribers once: QoS 0 shares the buffer, QoS 1 copies it with each packet id', () => {
    const encoder = new PublishEncoder();
    const m: OutgoingMessage = { topic: 't', payload: 'x', qos: 0, retain: false, subscriptionIdentifier: null, expiresAt: null };
    const first = encoder.encode(m, 4, NOW, undefined, false);
    expect(encoder.encode({ ...m }, 4, NOW, undefined, false)).toBe(first);
    const q1 = { ...m, qos: 1 as QoS };
    const a = encoder.encode(q1, 4, NOW, 7, false)!;
    const b = encoder.encode({ ...q1 }, 4, NOW, 9, false)!;
    expect(b).not.toBe(a);
    const ids = [a, b].map((buf) => {
      let got: IPublishPacket | undefined;
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on('packet', (p) => (got = p as IPublishPacket));
      parser.parse(buf);
      return got?.messageId;
    });
    expect(ids).toEqual([7, 9]);
    expect(encoder.reused).toBe(2);
  });

  it('encodes large remaining lengths (several length bytes) as mqtt-packet does', () => {
    const encoder = new PublishEncoder();
    for (const size of [0, 120, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const m: OutgoingMessage = {
        topic: 'big',
        payload: 'z'.repeat(size),
        qos: 1,
        retain: true,
        subscriptionIdentifier: null,
        expiresAt: null,
      };
      expect(encoder.encode(m, 4, NOW, 3, true)!.equals(encodePublishSlow(m, 4, NOW, 3, true)!)).toBe(true);
    }
  });
});

describe('acknowledgement encoding', () => {
  it('gives the bytes of mqtt-packet for every kind, protocol version and packet id', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('puback', 'pubrec', 'pubrel', 'pubcomp') as fc.Arbitrary<'puback' | 'pubrec' | 'pubrel' | 'pubcomp'>,
        fc.integer({ min: 1, max: 65_535 }),
        fc.constantFrom<ProtocolVersion>(3, 4, 5),
        (kind, messageId, version) => {
          expect(
            encodeAck(kind, messageId, version).equals(mqttPacket.generate({ cmd: kind, messageId }, { protocolVersion: version })),
          ).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('CONNACK encoding (MQTT 3)', () => {
  it('gives the bytes of mqtt-packet for every return code and session flag', () => {
    for (const version of [3, 4] as const)
      for (const sessionPresent of [false, true])
        for (const returnCode of [0, 1, 2, 3, 4, 5])
          expect(
            encodeConnackV3(sessionPresent, returnCode).equals(
              mqttPacket.generate({ cmd: 'connack', returnCode, sessionPresent }, { protocolVersion: version }),
            ),
          ).toBe(true);
  });
});
