import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectPacket, encodeLength, PacketReader, wireMqttDriver } from './mqtt-wire-client.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A broker that answers CONNACK with `rc`, acknowledges SUBSCRIBE and QoS 1 PUBLISH, and records packet types. */
async function fakeBroker(rc = 0): Promise<{ port: number; seen: { type: number; body: Buffer }[] }> {
  const seen: { type: number; body: Buffer }[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const reader = new PacketReader();
    socket.on('data', (chunk: Buffer) => {
      for (const p of reader.push(chunk)) {
        seen.push({ type: p.type, body: Buffer.from(p.body) });
        if (p.type === 1) socket.write(Buffer.from([0x20, 0x02, 0x00, rc]));
        if (p.type === 8) socket.write(Buffer.from([0x90, 0x03, p.body[0], p.body[1], 0x01]));
        if (p.type === 3 && (p.flags & 0x06) !== 0) {
          const topicLength = p.body.readUInt16BE(0);
          socket.write(Buffer.from([0x40, 0x02, p.body[2 + topicLength], p.body[3 + topicLength]]));
        }
      }
    });
    socket.on('error', () => {});
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, seen };
}

describe('the MQTT 3.1.1 wire client', () => {
  it('encodes the remaining length and a CONNECT with a clean session', () => {
    expect([...encodeLength(0)]).toEqual([0]);
    expect([...encodeLength(127)]).toEqual([127]);
    expect([...encodeLength(128)]).toEqual([0x80, 0x01]);
    expect([...encodeLength(16_383)]).toEqual([0xff, 0x7f]);
    const p = connectPacket('c1', 60);
    expect(p[0]).toBe(0x10);
    expect(p.subarray(2, 8).toString('latin1')).toBe('\u0000\u0004MQTT');
    expect(p[8]).toBe(4); // protocol level 3.1.1
    expect(p[9]).toBe(0x02); // clean session
  });

  it('splits a byte stream into packets, also across chunks', () => {
    const reader = new PacketReader();
    expect(reader.push(Buffer.from([0x20, 0x02, 0x00]))).toEqual([]);
    const got = reader.push(Buffer.from([0x00, 0x90, 0x03, 0, 1, 1]));
    expect(got.map((p) => p.type)).toEqual([2, 9]);
  });

  it('connects, subscribes, publishes at QoS 0 and 1, and disconnects', async () => {
    const broker = await fakeBroker();
    const driver = wireMqttDriver({ host: '127.0.0.1', port: broker.port, timeoutMs: 1000 });
    expect(driver.via).toBe(`MQTT 3.1.1 over TCP at 127.0.0.1:${broker.port}`);
    const session = await driver.connect('conform-client');
    if ('ok' in session) throw new Error(session.reason);
    expect(await session.subscribe('a/+', 1)).toEqual({ ok: true });
    expect(await session.publish('a/b', 'hello', { qos: 1, retain: true })).toEqual({ ok: true });
    expect(await session.publish('a/b', 'again', { qos: 0, retain: false })).toEqual({ ok: true });
    await session.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(broker.seen.map((p) => p.type)).toEqual([1, 8, 3, 3, 14]);
  });

  it('reports a refused CONNECT and an unreachable port as reasons, not exceptions', async () => {
    const broker = await fakeBroker(5);
    expect(await wireMqttDriver({ host: '127.0.0.1', port: broker.port, timeoutMs: 1000 }).connect('c')).toEqual({
      ok: false,
      reason: 'CONNECT refused: return code 5 (not authorized)',
    });
    const closed = await fakeBroker();
    await new Promise((r) => servers.pop()!.close(r));
    const res = await wireMqttDriver({ host: '127.0.0.1', port: closed.port, timeoutMs: 1000 }).connect('c');
    expect(res).toMatchObject({ ok: false });
    expect((res as { reason: string }).reason).toMatch(/ECONNREFUSED/);
  });
});
