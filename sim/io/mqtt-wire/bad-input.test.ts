import fc from 'fast-check';
import { connect } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './testing/raw-client.ts';
import { RC, V3_CONNACK } from './reason-codes.ts';
import { connectClient, eventually, nextMessages, startTestBroker, type TestBroker } from './testing/test-broker.ts';

/**
 * Bad input never crashes the listener: each case gets the answer MQTT prescribes (a CONNACK code,
 * an MQTT 5 DISCONNECT reason) or a closed socket, and clients that behave keep being served.
 * The broker's internal-error hook must stay silent: an exception inside it would be a bug.
 */

let broker: TestBroker;
const internalErrors: unknown[] = [];
beforeAll(async () => {
  broker = await startTestBroker({ mqttConnectTimeoutMs: 300, onInternalError: (e) => internalErrors.push(e) });
});
afterAll(async () => {
  await broker?.close();
  expect(internalErrors).toEqual([]);
});

/** Sends bytes on a fresh socket; resolves with what came back once the broker closed it (or after `waitMs`). */
function exchange(bytes: Uint8Array, waitMs = 1_000, halfClose = false): Promise<{ closedByBroker: boolean; reply: Buffer }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: broker.port() });
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (closedByBroker: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ closedByBroker, reply: Buffer.concat(chunks) });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => done(true));
    socket.on('close', () => done(true));
    socket.on('connect', () => {
      socket.write(bytes);
      if (halfClose) socket.end();
    });
  });
}

const parse = (bytes: Buffer, protocolVersion: 4 | 5): any[] => {
  const out: any[] = [];
  const parser = mqttPacket.parser({ protocolVersion });
  parser.on('packet', (p) => out.push(p));
  parser.parse(bytes);
  return out;
};

const connectBytes = (clientId: string, version: 4 | 5 = 4) =>
  mqttPacket.generate(
    { cmd: 'connect', protocolId: 'MQTT', protocolVersion: version, clientId, clean: true, keepalive: 30 },
    { protocolVersion: version },
  );

describe('MQTT listener: bad input', () => {
  it('closes a connection whose first packet is not CONNECT, and one that sends no CONNECT in time', async () => {
    const publishFirst = mqttPacket.generate({ cmd: 'publish', topic: 'x', payload: Buffer.from('y'), qos: 0, retain: false, dup: false });
    expect(await exchange(publishFirst)).toEqual({ closedByBroker: true, reply: Buffer.alloc(0) });
    const started = Date.now();
    expect((await exchange(Buffer.alloc(0), 3_000)).closedByBroker).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('answers an unsupported protocol level with CONNACK return code 1, and an empty client id without clean session with 2', async () => {
    const v6 = Buffer.from(connectBytes('v6'));
    v6[8] = 6; // protocol level byte of the variable header (after 0x10, length, 0x00 0x04 "MQTT")
    const answer = await exchange(v6);
    expect(answer.closedByBroker).toBe(true);
    expect(parse(answer.reply, 4)).toMatchObject([{ cmd: 'connack', returnCode: V3_CONNACK.unacceptableProtocolVersion }]);
    // mqtt-packet will not even generate this one: CONNECT, "MQTT" level 4, flags 0 (no clean session), keep alive 30, client id "".
    const emptyId = await exchange(Buffer.from([0x10, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x00, 0x00, 0x1e, 0x00, 0x00]));
    expect(emptyId.closedByBroker).toBe(true);
    expect(parse(emptyId.reply, 4)).toMatchObject([{ cmd: 'connack', returnCode: V3_CONNACK.identifierRejected }]);
  });

  it('refuses a packet whose announced length exceeds max_packet_size before its body arrives (MQTT 5: DISCONNECT 0x95)', async () => {
    const raw = await RawClient.open(broker.port(), 5);
    await raw.connect({ clientId: 'huge' });
    // A PUBLISH header announcing 200 MB, and not one byte of it.
    raw.sendBytes(Buffer.from([0x30, 0x80, 0x80, 0xe8, 0x5f]));
    expect((await raw.next('disconnect')).reasonCode).toBe(RC.packetTooLarge);
    await raw.closed;
  });

  it('closes on a malformed remaining length, a second CONNECT (MQTT 5: 0x82), a wildcard topic name (0x90) and bad header flags', async () => {
    expect(
      (await exchange(Buffer.concat([connectBytes('bad-len'), Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x7f])]))).closedByBroker,
    ).toBe(true);
    const twice = await RawClient.open(broker.port(), 5);
    await twice.connect({ clientId: 'twice' });
    twice.send({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 5, clientId: 'twice', clean: true, keepalive: 30 });
    expect((await twice.next('disconnect')).reasonCode).toBe(RC.protocolError);
    await twice.closed;
    const wildcard = await RawClient.open(broker.port(), 5);
    await wildcard.connect({ clientId: 'wild' });
    wildcard.send({ cmd: 'publish', topic: 'a/+/b', payload: Buffer.from('x'), qos: 1, messageId: 1, retain: false, dup: false });
    expect((await wildcard.next('disconnect')).reasonCode).toBe(RC.topicNameInvalid);
    await wildcard.closed;
    // SUBSCRIBE must have header flags 0010 (MQTT-3.8.1-1); 0x80 has 0000.
    expect(
      (await exchange(Buffer.concat([connectBytes('flags'), Buffer.from([0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x00])])))
        .closedByBroker,
    ).toBe(true);
  });

  it('treats a half-closed socket (FIN after CONNECT) as a lost connection', async () => {
    const answer = await exchange(connectBytes('half-open'), 2_000, true);
    expect(answer.closedByBroker).toBe(true);
    expect(parse(answer.reply, 4)[0]).toMatchObject({ cmd: 'connack', returnCode: 0 });
    await eventually(
      () => broker.api('/api/mqtt/client/list?client_id=half-open'),
      (r) => r.data.total_count === 0,
    );
  });

  it('survives fuzzed bytes (random, and after a valid CONNECT) while a subscriber keeps getting messages', async () => {
    const watcher = await connectClient(broker.port(2), { clientId: 'fuzz-watch', protocolVersion: 5 });
    await watcher.subscribeAsync('fuzz/ok', { qos: 1 });
    const healthy = await connectClient(broker.port(3), { clientId: 'fuzz-pub', protocolVersion: 4 });
    const garbage = fc.uint8Array({ minLength: 1, maxLength: 300 });
    // Packets with a valid header byte of every type and random bodies hit deeper parser paths than pure noise.
    const framed = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 120 }))
      .map(([first, body]) => Uint8Array.from([first, body.length, ...body]));
    // Well-formed packets with hostile fields (wildcards, empty topics, unknown ids, odd options) reach the handlers.
    const topic = fc.oneof(
      fc.constantFrom('', '#', '+', 'a/#/b', '$share/g/x', '$SYS/x', 'fuzz/ok', 'a\u0000b'),
      fc.string({ maxLength: 20 }),
    );
    const id = fc.integer({ min: 1, max: 65_535 });
    const qos = fc.constantFrom(0 as const, 1 as const, 2 as const);
    const packetOf = (v: 4 | 5) =>
      fc
        .oneof(
          fc.record({ topic, payload: fc.uint8Array({ maxLength: 40 }), qos, id, retain: fc.boolean(), dup: fc.boolean() }).map((r) => ({
            cmd: 'publish' as const,
            topic: r.topic,
            payload: Buffer.from(r.payload),
            qos: r.qos,
            retain: r.retain,
            dup: r.dup,
            ...(r.qos > 0 ? { messageId: r.id } : {}),
          })),
          fc
            .record({
              id,
              filters: fc.array(fc.record({ topic, qos, nl: fc.boolean(), rap: fc.boolean(), rh: fc.constantFrom(0, 1, 2) }), {
                minLength: 1,
                maxLength: 3,
              }),
            })
            .map((r) => ({
              cmd: 'subscribe' as const,
              messageId: r.id,
              subscriptions: r.filters.map((f) => (v === 5 ? f : { topic: f.topic, qos: f.qos })),
            })),
          fc
            .record({ id, topics: fc.array(topic, { minLength: 1, maxLength: 3 }) })
            .map((r) => ({ cmd: 'unsubscribe' as const, messageId: r.id, unsubscriptions: r.topics })),
          fc.record({ cmd: fc.constantFrom('puback' as const, 'pubrec' as const, 'pubrel' as const, 'pubcomp' as const), messageId: id }),
          fc.constantFrom({ cmd: 'pingreq' as const }, { cmd: 'disconnect' as const }),
        )
        .map((p) => {
          try {
            return mqttPacket.generate(p as never, { protocolVersion: v });
          } catch {
            return Buffer.from([0xc0, 0x00]); // a field mqtt-packet refuses to encode: send a PINGREQ instead
          }
        });
    const session = fc.constantFrom(4 as const, 5 as const).chain((v) =>
      fc
        .array(fc.oneof({ weight: 3, arbitrary: packetOf(v) }, { weight: 1, arbitrary: framed }, { weight: 1, arbitrary: garbage }), {
          minLength: 1,
          maxLength: 6,
        })
        .map((parts) => Buffer.concat([connectBytes(`fz-${v}`, v), ...parts])),
    );
    const input = fc.oneof(garbage, framed, session);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(input, async (bytes) => {
        await exchange(bytes, 150);
        if (++round % 25 === 0) {
          const got = nextMessages(watcher, 1);
          await healthy.publishAsync('fuzz/ok', `still here ${round}`, { qos: 1 });
          expect((await got)[0].payload.toString()).toBe(`still here ${round}`);
        }
      }),
      { numRuns: 200, seed: 12 },
    );
    await Promise.all([watcher.endAsync(), healthy.endAsync()]);
  });
});
