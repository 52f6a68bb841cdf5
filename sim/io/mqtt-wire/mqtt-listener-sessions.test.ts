import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './testing/raw-client.ts';
import { RC } from './reason-codes.ts';
import { connectClient, eventually, nextMessages, startTestBroker, type TestBroker } from './testing/test-broker.ts';

/**
 * Sessions over the MQTT listener: persistence and the offline queue, redelivery of unacknowledged
 * messages with DUP, QoS 2 in both directions across reconnects, takeover, wills, keep-alive.
 */

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker({ mqttConnectTimeoutMs: 400 });
});
afterAll(async () => {
  await broker?.close();
});

const sessionOf = async (clientId: string) =>
  (await broker.api(`/api/mqtt/session/list?client_id=${clientId}`)).data.data.find((s: any) => s.client_id === clientId);

describe('MQTT listener: persistent sessions', () => {
  it("keeps an MQTT 3.1.1 persistent session's subscriptions; QoS 1/2 messages wait for it only with MqttOfflineMessage enabled (mqtt.js)", async () => {
    const first = await connectClient(broker.port(), { clientId: 'persist', clean: false });
    await first.subscribeAsync('persist/#', { qos: 2 });
    await first.endAsync();
    const pub = await connectClient(broker.port(2), { clientId: 'persist-pub' });
    await pub.publishAsync('persist/a', 'while offline, queue off', { qos: 1 });
    await broker.config('MqttOfflineMessage', { enable: true, max_messages_num: 100, expire_ms: 0 });
    try {
      await pub.publishAsync('persist/b', 'queued 1', { qos: 1 });
      await pub.publishAsync('persist/c', 'queued 2', { qos: 2 });
      await pub.publishAsync('persist/d', 'qos 0 is not kept', { qos: 0 });
      // The handler must be in place before the CONNACK: queued messages follow it at once.
      const again = mqtt.connect(`mqtt://127.0.0.1:${broker.port(3)}`, {
        clientId: 'persist',
        clean: false,
        reconnectPeriod: 0,
        protocolVersion: 4,
      });
      const got = nextMessages(again, 2);
      const connack = await new Promise<any>((resolve) => again.once('connect', resolve));
      expect(connack.sessionPresent).toBe(true);
      expect((await got).map((m) => [m.topic, m.payload.toString(), m.packet.qos])).toEqual([
        ['persist/b', 'queued 1', 1],
        ['persist/c', 'queued 2', 2],
      ]);
      await again.endAsync();
    } finally {
      await broker.config('MqttOfflineMessage', { enable: false });
    }
    await pub.endAsync();
  });

  it('delivers the offline queue on reconnect, with session present, and ends a clean session at disconnect', async () => {
    await broker.config('MqttOfflineMessage', { enable: true, max_messages_num: 100, expire_ms: 0 });
    try {
      const raw = await RawClient.open(broker.port());
      expect(await raw.connect({ clientId: 'queue-1', clean: false })).toMatchObject({ sessionPresent: false, returnCode: 0 });
      raw.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'queue/#', qos: 2 }] });
      expect((await raw.next('suback')).granted).toEqual([2]);
      raw.send({ cmd: 'disconnect' });
      await raw.closed;
      const pub = await connectClient(broker.port(2), { clientId: 'queue-pub' });
      await pub.publishAsync('queue/a', 'one', { qos: 1 });
      await pub.publishAsync('queue/b', 'two', { qos: 2 });
      await pub.publishAsync('queue/c', 'zero', { qos: 0 });
      await pub.endAsync();
      const back = await RawClient.open(broker.port(3));
      expect(await back.connect({ clientId: 'queue-1', clean: false })).toMatchObject({ sessionPresent: true });
      const a = await back.next('publish');
      const b = await back.next('publish');
      expect([a.topic, a.payload.toString(), a.qos, b.topic, b.payload.toString(), b.qos]).toEqual([
        'queue/a',
        'one',
        1,
        'queue/b',
        'two',
        2,
      ]);
      back.send({ cmd: 'puback', messageId: a.messageId });
      back.send({ cmd: 'pubrec', messageId: b.messageId });
      expect((await back.next('pubrel')).messageId).toBe(b.messageId);
      back.send({ cmd: 'pubcomp', messageId: b.messageId });
      back.send({ cmd: 'pingreq' });
      await back.next('pingresp');
      expect(back.pending.filter((p) => p.cmd === 'publish')).toEqual([]);
      // The session now lives on node 3, where the client came back.
      expect((await sessionOf('queue-1')).broker_id).toBe(3);
      back.send({ cmd: 'disconnect' });
      await back.closed;
    } finally {
      await broker.config('MqttOfflineMessage', { enable: false });
    }
  });

  it("resends unacknowledged QoS 1 and 2 messages with DUP and their packet ids when a persistent session reconnects (PUBREL for a PUBREC'd one)", async () => {
    const raw = await RawClient.open(broker.port(), 5);
    await raw.connect({ clientId: 'dup-1', clean: false, properties: { sessionExpiryInterval: 600 } });
    raw.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'dup/#', qos: 2 }] });
    await raw.next('suback');
    const pub = await connectClient(broker.port(2), { clientId: 'dup-pub', protocolVersion: 5 });
    await pub.publishAsync('dup/q1', 'unacked', { qos: 1 });
    await pub.publishAsync('dup/q2', 'half done', { qos: 2 });
    const q1 = await raw.next('publish');
    const q2 = await raw.next('publish');
    raw.send({ cmd: 'pubrec', messageId: q2.messageId });
    await raw.next('pubrel');
    // Both still in flight towards the client, as its record counts them.
    await eventually(
      () => broker.api('/api/mqtt/client/list?client_id=dup-1'),
      (r) => r.data.data[0]?.mqtt_connection.sender_qos_message === 2,
    );
    raw.destroy(); // lost: no PUBACK for q1, no PUBCOMP for q2
    await raw.closed;
    await eventually(
      () => broker.api('/api/mqtt/client/list?client_id=dup-1'),
      (r) => r.data.data[0]?.network_connection === null,
    );

    const back = await RawClient.open(broker.port(), 5);
    expect(await back.connect({ clientId: 'dup-1', clean: false, properties: { sessionExpiryInterval: 600 } })).toMatchObject({
      sessionPresent: true,
    });
    const again = await back.next('publish');
    expect([again.topic, again.payload.toString(), again.dup, again.messageId]).toEqual(['dup/q1', 'unacked', true, q1.messageId]);
    expect((await back.next('pubrel')).messageId).toBe(q2.messageId);
    back.send({ cmd: 'puback', messageId: again.messageId });
    back.send({ cmd: 'pubcomp', messageId: q2.messageId });
    await pub.endAsync();
    back.send({ cmd: 'disconnect' });
    await back.closed;
  });

  it('takes a QoS 2 message once even when the client resends it, and releases it with PUBCOMP', async () => {
    const sub = await connectClient(broker.port(), { clientId: 'q2-sub', protocolVersion: 5 });
    await sub.subscribeAsync('q2in/#', { qos: 2 });
    let count = 0;
    sub.on('message', () => count++);
    const raw = await RawClient.open(broker.port(2));
    await raw.connect({ clientId: 'q2-pub', clean: false });
    raw.send({ cmd: 'publish', topic: 'q2in/x', payload: Buffer.from('once'), qos: 2, messageId: 7, dup: false, retain: false });
    expect((await raw.next('pubrec')).messageId).toBe(7);
    raw.destroy();
    await raw.closed;
    const back = await RawClient.open(broker.port(2));
    await back.connect({ clientId: 'q2-pub', clean: false });
    back.send({ cmd: 'publish', topic: 'q2in/x', payload: Buffer.from('once'), qos: 2, messageId: 7, dup: true, retain: false });
    expect((await back.next('pubrec')).messageId).toBe(7);
    back.send({ cmd: 'pubrel', messageId: 7 });
    expect((await back.next('pubcomp')).messageId).toBe(7);
    await eventually(
      () => count,
      (n) => n === 1,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(count).toBe(1);
    back.send({ cmd: 'disconnect' });
    await sub.endAsync();
  });

  it('hands the session to a second connection with the same client id and tells the first (MQTT 5 DISCONNECT 0x8E)', async () => {
    const first = await connectClient(broker.port(1), { clientId: 'twin', protocolVersion: 5 });
    const told = new Promise<number>((resolve) => first.once('disconnect', (p: any) => resolve(p.reasonCode)));
    const second = await connectClient(broker.port(2), { clientId: 'twin', protocolVersion: 5 });
    expect(await told).toBe(RC.sessionTakenOver);
    const list = (await broker.api('/api/mqtt/client/list?client_id=twin')).data.data;
    expect(
      list.map((c: any) => [c.client_id, c.session.broker_id, c.network_connection.addr.endsWith(`:${(second.stream as any).localPort}`)]),
    ).toEqual([['twin', 2, true]]);
    first.end(true);
    await second.endAsync();
  });
});

describe('MQTT listener: wills and keep-alive', () => {
  it('publishes the will when the connection is lost, not after a DISCONNECT', async () => {
    const watcher = await connectClient(broker.port(), { clientId: 'will-watch', protocolVersion: 5 });
    await watcher.subscribeAsync('wills/#', { qos: 1 });
    const got: string[] = [];
    watcher.on('message', (_t, p) => got.push(p.toString()));
    const polite = await connectClient(broker.port(2), {
      clientId: 'will-polite',
      will: { topic: 'wills/polite', payload: Buffer.from('polite gone'), qos: 1, retain: false },
    });
    await polite.endAsync();
    const rude = await connectClient(broker.port(3), {
      clientId: 'will-rude',
      will: { topic: 'wills/rude', payload: Buffer.from('rude gone'), qos: 1, retain: false },
    });
    rude.stream.destroy();
    await eventually(
      () => got,
      (g) => g.includes('rude gone'),
    );
    expect(got).toEqual(['rude gone']);
    rude.end(true);
    await watcher.endAsync();
  });

  it('delays an MQTT 5 will by its Will Delay Interval, and a reconnect within it cancels the will', async () => {
    const watcher = await connectClient(broker.port(), { clientId: 'delay-watch', protocolVersion: 5 });
    await watcher.subscribeAsync('delayed/#', { qos: 1 });
    const got: { payload: string; at: number }[] = [];
    watcher.on('message', (_t, p) => got.push({ payload: p.toString(), at: Date.now() }));
    const will = (name: string) => ({
      topic: `delayed/${name}`,
      payload: Buffer.from(`${name} gone`),
      qos: 1 as const,
      retain: false,
      properties: { willDelayInterval: 1 },
    });
    const late = await connectClient(broker.port(), {
      clientId: 'delay-late',
      protocolVersion: 5,
      properties: { sessionExpiryInterval: 60 },
      will: will('late'),
    });
    const cancelled = await connectClient(broker.port(), {
      clientId: 'delay-back',
      protocolVersion: 5,
      properties: { sessionExpiryInterval: 60 },
      will: will('back'),
    });
    const lostAt = Date.now();
    late.stream.destroy();
    cancelled.stream.destroy();
    const back = await connectClient(broker.port(), {
      clientId: 'delay-back',
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: 60 },
    });
    await eventually(
      () => got.length,
      (n) => n >= 1,
      4_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(got.map((g) => g.payload)).toEqual(['late gone']);
    expect(got[0].at - lostAt).toBeGreaterThanOrEqual(900);
    late.end(true);
    cancelled.end(true);
    await Promise.all([back.endAsync(), watcher.endAsync()]);
  });

  it('closes a client silent for 1.5 keep-alive periods and publishes its will', async () => {
    const watcher = await connectClient(broker.port(), { clientId: 'ka-watch', protocolVersion: 4 });
    await watcher.subscribeAsync('ka/#', { qos: 1 });
    const got = nextMessages(watcher, 1, 4_000);
    const raw = await RawClient.open(broker.port(), 5);
    const started = Date.now();
    await raw.connect({
      clientId: 'ka-silent',
      keepalive: 1,
      will: { topic: 'ka/silent', payload: Buffer.from('timed out'), qos: 1, retain: false },
    });
    const disconnect = await raw.next('disconnect', 4_000);
    expect(disconnect.reasonCode).toBe(RC.keepAliveTimeout);
    await raw.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect((await got)[0].payload.toString()).toBe('timed out');
    await watcher.endAsync();
  });

  it('ends an MQTT 5 session at its Session Expiry Interval after the connection ends', async () => {
    const c = await connectClient(broker.port(), { clientId: 'short-lived', protocolVersion: 5, properties: { sessionExpiryInterval: 1 } });
    await c.subscribeAsync('short/#', { qos: 1 });
    await c.endAsync();
    expect(await sessionOf('short-lived')).toMatchObject({ session_expiry: 1 });
    await eventually(
      () => sessionOf('short-lived'),
      (s) => s === undefined,
      3_000,
    );
    expect((await broker.api('/api/mqtt/subscribe/list?client_id=short-lived')).data.total_count).toBe(0);
  });
});
