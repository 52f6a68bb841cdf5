import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RC, V3_CONNACK } from './reason-codes.ts';
import { connectClient, connectRefusal, eventually, nextMessages, startTestBroker, type TestBroker } from './testing/test-broker.ts';

/**
 * The broker's rules, as real clients meet them on the MQTT listener: users and tenants, ACL,
 * blacklist, flapping bans, topic rewrite and auto-subscribe rules, packet size and quotas.
 */

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
  expect((await broker.post('/api/cluster/tenant/create', { tenant_name: 'acme' })).code).toBe(0);
  expect(
    (await broker.post('/api/cluster/user/create', { tenant: 'acme', username: 'bob', password: 'B0b-secret', is_superuser: false })).code,
  ).toBe(0);
  expect(
    (await broker.post('/api/cluster/user/create', { tenant: 'default', username: 'carol', password: 'C4rol', is_superuser: false })).code,
  ).toBe(0);
});
afterAll(async () => {
  await broker?.close();
});

describe('MQTT listener: users and tenants', () => {
  it('logs a user in to the tenant of its user name (tenant@user) or of the MQTT 5 user property, and refuses a bad password', async () => {
    const viaName = await connectClient(broker.port(), { clientId: 'acme-1', username: 'acme@bob', password: 'B0b-secret' });
    const viaProperty = await connectClient(broker.port(), {
      clientId: 'acme-2',
      protocolVersion: 5,
      username: 'bob',
      password: 'B0b-secret',
      properties: { userProperties: { tenant: 'acme' } },
    });
    await viaName.subscribeAsync('acme/in', { qos: 1 });
    const acme = (await broker.api('/api/mqtt/client/list?tenant=acme')).data.data;
    expect(acme.map((c: any) => [c.client_id, c.tenant, c.mqtt_connection.login_user])).toEqual([
      ['acme-1', 'acme', 'bob'],
      ['acme-2', 'acme', 'bob'],
    ]);
    expect((await broker.api('/api/mqtt/client/list?tenant=default&client_id=acme-')).data.total_count).toBe(0);
    expect((await broker.api('/api/mqtt/subscribe/list?tenant=acme')).data.total_count).toBe(1);
    expect(await connectRefusal(broker.port(), { clientId: 'acme-3', username: 'acme@bob', password: 'wrong' })).toBe(
      V3_CONNACK.badUserNameOrPassword,
    );
    expect(
      await connectRefusal(broker.port(), {
        clientId: 'acme-4',
        protocolVersion: 5,
        username: 'bob',
        password: 'wrong',
        properties: { userProperties: { tenant: 'acme' } },
      }),
    ).toBe(RC.badUserNameOrPassword);
    expect(await connectRefusal(broker.port(), { clientId: 'acme-5', username: 'nobody', password: 'x' })).toBe(
      V3_CONNACK.badUserNameOrPassword,
    );
    expect(
      await connectRefusal(broker.port(), {
        clientId: 'acme-6',
        protocolVersion: 5,
        properties: { userProperties: { tenant: 'no-such-tenant' } },
      }),
    ).toBe(RC.notAuthorized);
    await Promise.all([viaName.endAsync(), viaProperty.endAsync()]);
  });

  it("admits a user created through the API and refuses it again once deleted (the real server's user_test)", async () => {
    expect(await connectRefusal(broker.port(), { clientId: 'u-dave', username: 'dave', password: 'D' })).toBe(
      V3_CONNACK.badUserNameOrPassword,
    );
    expect(
      (await broker.post('/api/cluster/user/create', { tenant: 'default', username: 'dave', password: 'D', is_superuser: false })).code,
    ).toBe(0);
    expect(await connectRefusal(broker.port(), { clientId: 'u-dave', username: 'dave', password: 'D' })).toBe('connected');
    expect((await broker.post('/api/cluster/user/delete', { tenant: 'default', username: 'dave' })).code).toBe(0);
    expect(await connectRefusal(broker.port(), { clientId: 'u-dave', username: 'dave', password: 'D' })).toBe(
      V3_CONNACK.badUserNameOrPassword,
    );
  });

  it('refuses clients without a user name when secret-free login is off (mqtt_runtime.secret_free_login false)', async () => {
    const strict = await startTestBroker({ secretFreeLogin: false });
    try {
      expect((await strict.api('/api/cluster/config/get')).data.mqtt_runtime.secret_free_login).toBe(false);
      expect(await connectRefusal(strict.port(), { clientId: 'anon-3' })).toBe(V3_CONNACK.notAuthorized);
      expect(await connectRefusal(strict.port(), { clientId: 'anon-5', protocolVersion: 5 })).toBe(RC.notAuthorized);
      expect(await connectRefusal(strict.port(), { clientId: 'builtin', username: 'admin', password: 'robustmq' })).toBe('connected');
    } finally {
      await strict.close();
    }
  });
});

describe('MQTT listener: ACL, blacklist, flapping', () => {
  it('refuses a publish the ACL denies (MQTT 5 PUBACK 0x87; MQTT 3 drops it silently) and a denied subscribe (SUBACK 0x87 / 0x80)', async () => {
    expect(
      (
        await broker.post('/api/cluster/acl/create', {
          tenant: 'default',
          name: 'carol-no-secret',
          desc: '',
          resource_type: 'User',
          resource_name: 'carol',
          topic: 'secret/#',
          ip: '',
          action: 'All',
          permission: 'Deny',
        })
      ).code,
    ).toBe(0);
    const watcher = await connectClient(broker.port(), { clientId: 'acl-watch', protocolVersion: 5 });
    await watcher.subscribeAsync('secret/#', { qos: 1 });
    let leaked = 0;
    watcher.on('message', () => leaked++);
    const v5 = await connectClient(broker.port(), { clientId: 'acl-v5', protocolVersion: 5, username: 'carol', password: 'C4rol' });
    const refusedAck = await new Promise<any>((resolve) =>
      v5.publish('secret/x', 'no', { qos: 1 }, (err, packet) => resolve(err ?? packet)),
    );
    expect(refusedAck.code ?? refusedAck.reasonCode).toBe(RC.notAuthorized);
    const v3 = await connectClient(broker.port(), { clientId: 'acl-v3', protocolVersion: 4, username: 'carol', password: 'C4rol' });
    await v3.publishAsync('secret/y', 'no', { qos: 1 }); // acknowledged, not delivered
    // mqtt.js rejects an MQTT 5 SUBACK with a failure code; the packet is on the error.
    const denied = await v5.subscribeAsync('secret/#', { qos: 1 }).then(
      () => undefined,
      (e: { packet?: { granted: number[] } }) => e.packet?.granted,
    );
    expect(denied).toEqual([RC.notAuthorized]);
    const grantedV3 = await v3.subscribeAsync(['secret/#', 'open/#'], { qos: 1 }).then(
      () => undefined,
      (e: { packet?: { granted: number[] } }) => e.packet?.granted,
    );
    expect(grantedV3).toEqual([0x80, 1]);
    await new Promise((r) => setTimeout(r, 100));
    expect(leaked).toBe(0);
    await Promise.all([watcher, v5, v3].map((c) => c.endAsync()));
  });

  it('refuses a blacklisted client id (MQTT 5 0x8A banned, MQTT 3 code 5)', async () => {
    expect(
      (
        await broker.post('/api/cluster/blacklist/create', {
          tenant: 'default',
          name: 'ban-evil',
          blacklist_type: 'ClientId',
          resource_name: 'evil',
          end_time: 4102444800,
          desc: '',
        })
      ).code,
    ).toBe(0);
    expect(await connectRefusal(broker.port(), { clientId: 'evil', protocolVersion: 5 })).toBe(RC.banned);
    expect(await connectRefusal(broker.port(), { clientId: 'evil', protocolVersion: 4 })).toBe(V3_CONNACK.notAuthorized);
    expect(await connectRefusal(broker.port(), { clientId: 'not-evil', protocolVersion: 4 })).toBe('connected');
  });

  it('bans a reconnect storm: past max_client_connections within window_time the CONNACK refuses it, and the ban is listed', async () => {
    await broker.config('MqttFlappingDetect', { enable: true, window_time: 60, max_client_connections: 5, ban_time: 300 });
    try {
      const outcomes: (number | string)[] = [];
      for (let i = 0; i < 8; i++) outcomes.push(await connectRefusal(broker.port(), { clientId: 'storm', protocolVersion: 5 }));
      expect(outcomes.slice(0, 5)).toEqual(Array(5).fill('connected'));
      expect(outcomes.slice(5)).toEqual(Array(3).fill(RC.banned));
      expect(await connectRefusal(broker.port(), { clientId: 'storm', protocolVersion: 4 })).toBe(V3_CONNACK.notAuthorized);
      const bans = await broker.api('/api/mqtt/flapping_detect/list?client_id=storm');
      expect(JSON.stringify(bans.data)).toContain('storm');
    } finally {
      await broker.config('MqttFlappingDetect', { enable: false });
    }
  });
});

describe('MQTT listener: rewrite and auto-subscribe rules, limits', () => {
  it('rewrites published topics and subscribes connecting clients by the auto-subscribe rules (${clientid})', async () => {
    expect(
      (
        await broker.post('/api/cluster/topic-rewrite/create', {
          tenant: 'default',
          name: 'legacy',
          action: 'Publish',
          source_topic: 'legacy/+/temp',
          dest_topic: 'sensors/$1/temperature',
          regex: '^legacy/(.+)/temp$',
        })
      ).code,
    ).toBe(0);
    expect(
      (
        await broker.post('/api/mqtt/auto-subscribe/create', {
          tenant: 'default',
          name: 'inbox',
          topic: 'inbox/${clientid}',
          qos: 1,
          no_local: false,
          retain_as_published: false,
          retained_handling: 0,
        })
      ).code,
    ).toBe(0);
    const dev = await connectClient(broker.port(2), { clientId: 'dev-7', protocolVersion: 5 });
    const subs = (await broker.api('/api/mqtt/subscribe/list?client_id=dev-7')).data.data;
    expect(subs.map((s: any) => [s.path, s.qos])).toEqual([['inbox/dev-7', 'AtLeastOnce']]);
    await dev.subscribeAsync('sensors/#', { qos: 1 });
    const got = nextMessages(dev, 2);
    const pub = await connectClient(broker.port(1), { clientId: 'rw-pub', protocolVersion: 4 });
    await pub.publishAsync('legacy/s1/temp', '21.5', { qos: 1 });
    await pub.publishAsync('inbox/dev-7', 'hello', { qos: 1 });
    expect((await got).map((m) => [m.topic, m.payload.toString()])).toEqual([
      ['sensors/s1/temperature', '21.5'],
      ['inbox/dev-7', 'hello'],
    ]);
    await Promise.all([dev.endAsync(), pub.endAsync()]);
  });

  it('closes a connection sending a packet over max_packet_size (MQTT 5: DISCONNECT 0x95) and keeps serving others', async () => {
    await broker.config('MqttProtocol', { max_packet_size: 4096 });
    try {
      const big = await connectClient(broker.port(), { clientId: 'big', protocolVersion: 5 });
      const reason = new Promise<number>((resolve) => big.once('disconnect', (p: any) => resolve(p.reasonCode)));
      big.publish('big/x', Buffer.alloc(8_000, 1), { qos: 0 });
      expect(await reason).toBe(RC.packetTooLarge);
      big.end(true);
      const small = await connectClient(broker.port(), { clientId: 'small', protocolVersion: 4 });
      await small.publishAsync('big/x', Buffer.alloc(1000, 1), { qos: 1 });
      await small.endAsync();
    } finally {
      await broker.config('MqttProtocol', { max_packet_size: 10_485_760 });
    }
  });

  it("refuses connections past a tenant's max_connections_per_node (MQTT 5 0x97 quota exceeded, MQTT 3 code 3)", async () => {
    expect((await broker.post('/api/cluster/tenant/create', { tenant_name: 'tiny', config: { max_connections_per_node: 1 } })).code).toBe(
      0,
    );
    expect(
      (await broker.post('/api/cluster/user/create', { tenant: 'tiny', username: 'u', password: 'p', is_superuser: false })).code,
    ).toBe(0);
    const first = await connectClient(broker.port(3), { clientId: 't-1', username: 'tiny@u', password: 'p' });
    expect(await connectRefusal(broker.port(3), { clientId: 't-2', protocolVersion: 5, username: 'tiny@u', password: 'p' })).toBe(
      RC.quotaExceeded,
    );
    expect(await connectRefusal(broker.port(3), { clientId: 't-3', protocolVersion: 4, username: 'tiny@u', password: 'p' })).toBe(
      V3_CONNACK.serverUnavailable,
    );
    expect(await connectRefusal(broker.port(2), { clientId: 't-4', protocolVersion: 4, username: 'tiny@u', password: 'p' })).toBe(
      'connected',
    ); // another node
    await first.endAsync();
    await eventually(
      () => broker.api('/api/mqtt/client/list?tenant=tiny'),
      (r) => r.data.total_count === 0,
    );
  });

  it('closes the connections of a node that goes down (MQTT 5: 0x8B), refuses connects to it (0x88 / code 3), and takes them again once it is back', async () => {
    const onTwo = await connectClient(broker.port(2), { clientId: 'node-2-client', protocolVersion: 5 });
    const told = new Promise<number>((resolve) => onTwo.once('disconnect', (p: any) => resolve(p.reasonCode)));
    broker.running.cluster.nodes.crash(2);
    broker.running.app.syncClock();
    expect(await told).toBe(RC.serverShuttingDown);
    onTwo.end(true);
    expect(await connectRefusal(broker.port(2), { clientId: 'node-2-late', protocolVersion: 5 })).toBe(RC.serverUnavailable);
    expect(await connectRefusal(broker.port(2), { clientId: 'node-2-late', protocolVersion: 4 })).toBe(V3_CONNACK.serverUnavailable);
    broker.running.cluster.nodes.restart(2);
    await eventually(
      () => connectRefusal(broker.port(2), { clientId: 'node-2-back', protocolVersion: 4 }),
      (r) => r === 'connected',
      10_000,
    );
  });
});
