import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { ConnectionCloseReason, DeliverySink, OutgoingMessage, PendingMessage } from './delivery.ts';
import { setConfig } from './testing/set-config.ts';

/** A delivery sink that remembers what the broker handed it. */
class RecordingSink implements DeliverySink {
  readonly messages: (OutgoingMessage | PendingMessage)[] = [];
  readonly closes: ConnectionCloseReason[] = [];
  deliver(message: OutgoingMessage | PendingMessage): void {
    this.messages.push(message);
  }
  closed(why: ConnectionCloseReason): void {
    this.closes.push(why);
  }
}

const newSim = (): InProcessSim => new InProcessSim({ workload: 'none', nodes: 3, seed: 11 });

function connectNetworkClient(
  sim: InProcessSim,
  clientId: string,
  options: { sessionExpiry?: number; cleanStart?: boolean; protocol?: 4 | 5 } = {},
): RecordingSink {
  const sink = new RecordingSink();
  const r = sim.cluster.mqtt.connect({
    tenant: 'default',
    clientId,
    protocol: options.protocol ?? 5,
    cleanStart: options.cleanStart ?? false,
    sessionExpiry: options.sessionExpiry ?? 600,
    networkClient: true,
    sink,
    mqtt5Session: (options.protocol ?? 5) === 5,
  });
  expect(r.ok).toBe(true);
  return sink;
}

describe('delivery sinks of network clients', () => {
  it("hand each routed message to the subscriber's sink with payload, downgraded QoS, retain rules and subscription id", () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const sink = connectNetworkClient(sim, 'sub');
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'sub', path: 'a/+', qos: 1, subscriptionIdentifier: 7 }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'sub', path: 'keep/#', qos: 2, preserveRetain: true }).ok).toBe(true);
    const bytes = Uint8Array.from([0xff, 0x00, 0x80]);
    expect(mqtt.publish({ tenant: 'default', topic: 'a/b', payload: 'hello', qos: 2, retain: true })).toMatchObject({
      ok: true,
      delivered: 1,
    });
    expect(
      mqtt.publish({
        tenant: 'default',
        topic: 'keep/x',
        payload: '\ufffd',
        qos: 1,
        retain: true,
        extras: { bytes, properties: { contentType: 'bin' } },
      }).ok,
    ).toBe(true);
    expect(sink.messages).toEqual([
      { topic: 'a/b', payload: 'hello', qos: 1, retain: false, subscriptionIdentifier: 7, expiresAt: null },
      {
        topic: 'keep/x',
        payload: '\ufffd',
        extras: { bytes, properties: { contentType: 'bin' } },
        qos: 1,
        retain: true,
        subscriptionIdentifier: null,
        expiresAt: null,
      },
    ]);
  });

  it('sends retained messages on subscribe with the RETAIN flag, and the bytes and expiry they were published with', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const now = sim.cluster.now();
    mqtt.publish({
      tenant: 'default',
      topic: 'r/1',
      payload: 'kept',
      qos: 1,
      retain: true,
      extras: { properties: { messageExpiryInterval: 60 } },
    });
    const sink = connectNetworkClient(sim, 'late');
    mqtt.subscribe({ tenant: 'default', clientId: 'late', path: 'r/#', qos: 2 });
    expect(sink.messages).toEqual([
      {
        topic: 'r/1',
        payload: 'kept',
        extras: { properties: { messageExpiryInterval: 60 } },
        qos: 1,
        retain: true,
        subscriptionIdentifier: null,
        expiresAt: now + 60_000,
      },
    ]);
    sim.advance(61_000);
    mqtt.subscribe({ tenant: 'default', clientId: 'late', path: 'r/+', qos: 1 });
    expect(sink.messages).toHaveLength(1); // expired: no longer sent
  });

  it('keeps QoS 1/2 messages for an offline persistent session only when MqttOfflineMessage is enabled, up to max_messages_num, and drops expired ones', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    connectNetworkClient(sim, 'p');
    mqtt.subscribe({ tenant: 'default', clientId: 'p', path: 'q/#', qos: 1 });
    mqtt.disconnect('p', 'default', { clean: true });
    expect(mqtt.publish({ tenant: 'default', topic: 'q/off', payload: 'lost', qos: 1, retain: false })).toMatchObject({
      ok: true,
      delivered: 0,
      dropped: 1,
    });

    await setConfig(sim, 'MqttOfflineMessage', { enable: true, max_messages_num: 2, expire_ms: 5_000 });
    mqtt.publish({ tenant: 'default', topic: 'q/0', payload: 'qos0', qos: 0, retain: false }); // QoS 0 is never kept
    expect(mqtt.publish({ tenant: 'default', topic: 'q/1', payload: 'one', qos: 1, retain: false })).toMatchObject({
      delivered: 1,
      dropped: 0,
    });
    sim.advance(4_000);
    mqtt.publish({ tenant: 'default', topic: 'q/2', payload: 'two', qos: 2, retain: false });
    expect(mqtt.publish({ tenant: 'default', topic: 'q/3', payload: 'three', qos: 1, retain: false })).toMatchObject({
      delivered: 0,
      dropped: 1,
    }); // beyond max_messages_num
    sim.advance(2_000); // 'one' is now older than expire_ms

    const sink = connectNetworkClient(sim, 'p');
    expect(sink.messages.map((m) => [m.payload, m.qos])).toEqual([['two', 1]]);
  });

  it('keeps the messages a network client left unacknowledged and resends them with their packet ids on reconnect; a clean start drops them', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    connectNetworkClient(sim, 'k');
    const unacked: PendingMessage = {
      topic: 't',
      payload: 'x',
      qos: 1,
      retain: false,
      subscriptionIdentifier: null,
      expiresAt: null,
      packetId: 42,
      queuedAt: sim.cluster.now(),
    };
    const connectionId = mqtt.client('default', 'k')!.last.connectionId;
    expect(mqtt.disconnect('k', 'default', { clean: false, connectionId: connectionId + 1, keep: [unacked] })).toBe(false); // another connection's
    expect(mqtt.disconnect('k', 'default', { clean: false, connectionId, keep: [unacked] })).toBe(true);
    sim.advance(60_000);
    expect(connectNetworkClient(sim, 'k').messages).toEqual([unacked]);

    mqtt.disconnect('k', 'default', { clean: false, keep: [unacked] });
    expect(connectNetworkClient(sim, 'k', { cleanStart: true }).messages).toEqual([]);
  });

  it('closes the old sink on a takeover, and requeue resends on the new connection', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const first = connectNetworkClient(sim, 'same');
    const second = connectNetworkClient(sim, 'same');
    expect(first.closes).toEqual(['takeover']);
    const m: PendingMessage = {
      topic: 't',
      payload: 'again',
      qos: 2,
      retain: false,
      subscriptionIdentifier: null,
      expiresAt: null,
      packetId: 3,
      phase: 'pubrel',
      queuedAt: 0,
    };
    expect(mqtt.requeue('default', 'same', [m])).toBe(1);
    expect(second.messages).toEqual([m]);
    sim.cluster.nodes.crash(mqtt.client('default', 'same')!.connection!.nodeId);
    sim.advance(10_000);
    expect(second.closes).toEqual(['node-offline']);
  });

  it('keeps an MQTT 5 session after a clean start for its expiry, and applies the expiry a DISCONNECT gives', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    connectNetworkClient(sim, 'v5', { cleanStart: true, sessionExpiry: 30 });
    mqtt.disconnect('v5', 'default', { clean: true, sessionExpiry: 100 });
    sim.advance(60_000);
    expect(mqtt.client('default', 'v5')?.session).toMatchObject({ sessionExpiry: 100 });
    sim.advance(41_000);
    expect(mqtt.client('default', 'v5')).toBeUndefined();
  });

  it('routes a subscription by the filter the Subscribe rewrite rules give, and shows it as rewrite_sub_path', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    expect(
      (
        await sim.post('/api/cluster/topic-rewrite/create', {
          tenant: 'default',
          name: 'rw',
          action: 'Subscribe',
          source_topic: 'old/#',
          dest_topic: 'new/$1',
          regex: '^old/(.*)$',
        })
      ).json.code,
    ).toBe(0);
    const sink = connectNetworkClient(sim, 'rw');
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'rw', path: 'old/x', qos: 0 }).ok).toBe(true);
    mqtt.publish({ tenant: 'default', topic: 'old/x', payload: 'no', qos: 0, retain: false });
    mqtt.publish({ tenant: 'default', topic: 'new/x', payload: 'yes', qos: 0, retain: false });
    expect(sink.messages.map((m) => m.payload)).toEqual(['yes']);
    const detail = await sim.get('/api/mqtt/subscribe/detail?tenant=default&client_id=rw&path=old/x');
    expect(JSON.stringify(detail.json.data)).toContain('"rewrite_sub_path":"new/x"');
  });
});
