import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, eventually, nextMessages, startTestBroker, type TestBroker } from './testing/test-broker.ts';

/**
 * The MQTT listener with real clients (mqtt.js, MQTT 3.1.1 and 5): what they do shows in the admin
 * API, and messages flow between them at every QoS, as MQTT prescribes.
 */

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker?.close();
});

describe('MQTT listener: clients in the admin API', () => {
  it('lists MQTT 3.1.1 and 5 clients on the node whose port they used, with their socket address, keep alive and login', async () => {
    const v4 = await connectClient(broker.port(2), { clientId: 'list-v4', keepalive: 45, protocolVersion: 4 });
    const v5 = await connectClient(broker.port(3), {
      clientId: 'list-v5',
      keepalive: 20,
      protocolVersion: 5,
      username: 'admin',
      password: 'robustmq',
      properties: { receiveMaximum: 7 },
    });
    const v31 = await connectClient(broker.port(1), { clientId: 'list-v31', protocolVersion: 3, protocolId: 'MQIsdp' });
    await v4.subscribeAsync('list/+', { qos: 1 });
    await v5.subscribeAsync('$share/g1/list/#', { qos: 2 });
    const clients = (await broker.api('/api/mqtt/client/list?client_id=list-v')).data.data;
    const byId = Object.fromEntries(clients.map((c: any) => [c.client_id, c]));
    const localPort = (c: typeof v4) => (c.stream as unknown as { localPort: number }).localPort;
    expect(byId['list-v4'].network_connection).toMatchObject({
      connection_type: 'Tcp',
      protocol: 'MQTT4',
      addr: `127.0.0.1:${localPort(v4)}`,
    });
    expect(byId['list-v4'].mqtt_connection).toMatchObject({
      keep_alive: 45,
      source_ip_addr: `127.0.0.1:${localPort(v4)}`,
      login_user: '',
      is_login: true,
    });
    expect(byId['list-v4'].session.broker_id).toBe(2);
    expect(byId['list-v5'].network_connection).toMatchObject({ protocol: 'MQTT5', addr: `127.0.0.1:${localPort(v5)}` });
    expect(byId['list-v5'].mqtt_connection).toMatchObject({ keep_alive: 20, login_user: 'admin', client_max_receive_maximum: 7 });
    expect(byId['list-v5'].session.broker_id).toBe(3);
    expect(byId['list-v31'].network_connection.protocol).toBe('MQTT3');
    expect(byId['list-v31'].heartbeat.protocol).toBe('Mqtt3');
    await v31.endAsync();

    const subs = (await broker.api('/api/mqtt/subscribe/list?client_id=list-v')).data.data;
    expect(subs.map((s: any) => [s.client_id, s.path, s.qos, s.is_share_sub, s.broker_id])).toEqual([
      ['list-v4', 'list/+', 'AtLeastOnce', false, 2],
      ['list-v5', '$share/g1/list/#', 'ExactlyOnce', true, 3],
    ]);
    const overview = (await broker.api('/api/mqtt/overview')).data;
    expect(overview).toMatchObject({ connection_num: 2, tcp_connection_num: 2, session_num: 2, subscribe_num: 2, share_subscribe_num: 1 });
    expect((await broker.api('/api/mqtt/session/list?client_id=list-v')).data.total_count).toBe(2);

    await v4.endAsync();
    await v5.endAsync();
    // Clean sessions end with their connections.
    await eventually(
      () => broker.api('/api/mqtt/overview'),
      (r) => r.data.connection_num === 0 && r.data.session_num === 0,
    );
  });

  it('shows the real listener ports in config get and the node records', async () => {
    for (const node of [1, 2, 3]) {
      const config = (await broker.api(`/api/cluster/config/get?broker_id=${node}`)).data;
      expect(config.mqtt_server.tcp_port).toBe(broker.port(node));
    }
    const info = (await broker.api('/api/info')).data;
    const addrs = info.broker_node_list.map((n: any) => JSON.parse(Buffer.from(n.extend).toString('utf8')).mqtt.mqtt_addr);
    expect(addrs).toEqual([1, 2, 3].map((n) => `127.0.0.1:${broker.port(n)}`));
  });
});

describe('MQTT listener: messages', () => {
  it('delivers at QoS min(subscription, message) for QoS 0, 1 and 2, between MQTT 3.1.1 and 5 clients', async () => {
    const sub = await connectClient(broker.port(1), { clientId: 'qos-sub', protocolVersion: 5 });
    await sub.subscribeAsync('qos/two', { qos: 2 });
    await sub.subscribeAsync('qos/one', { qos: 1 });
    const pub = await connectClient(broker.port(2), { clientId: 'qos-pub', protocolVersion: 4 });
    const got = nextMessages(sub, 5);
    await pub.publishAsync('qos/two', 'a0', { qos: 0 });
    await pub.publishAsync('qos/two', 'a1', { qos: 1 });
    await pub.publishAsync('qos/two', 'a2', { qos: 2 });
    await pub.publishAsync('qos/one', 'b2', { qos: 2 });
    await pub.publishAsync('qos/one', 'b1', { qos: 1 });
    const messages = await got;
    expect(messages.map((m) => [m.topic, m.payload.toString(), m.packet.qos, m.packet.retain])).toEqual([
      ['qos/two', 'a0', 0, false],
      ['qos/two', 'a1', 1, false],
      ['qos/two', 'a2', 2, false],
      ['qos/one', 'b2', 1, false],
      ['qos/one', 'b1', 1, false],
    ]);
    await Promise.all([sub.endAsync(), pub.endAsync()]);
  });

  it("fans a burst out to many subscribers (shared encodings, one write per tick): every message, in order, at each one's QoS", async () => {
    // Subscribers of both protocols at QoS 0, 1 and 2 on three nodes; a QoS 1 publisher sends a burst
    // mixing QoS 0 and 1 messages, written without waiting, so they arrive in few chunks.
    const subs = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((qos, i) =>
        connectClient(broker.port((i % 3) + 1), { clientId: `fan-${i}`, protocolVersion: i < 3 ? 4 : 5 }).then(async (c) => {
          await c.subscribeAsync('fan/+', { qos: qos as 0 | 1 | 2 });
          return { c, qos };
        }),
      ),
    );
    const pub = await connectClient(broker.port(1), { clientId: 'fan-pub', protocolVersion: 4 });
    const n = 400;
    const receipts = subs.map(({ c }) => nextMessages(c, n, 15_000));
    for (let i = 0; i < n; i++) void pub.publishAsync(`fan/${i % 3}`, `m${i}`, { qos: (i % 2) as 0 | 1 });
    const got = await Promise.all(receipts);
    for (const [k, { qos }] of subs.entries()) {
      expect(got[k].map((m) => `${m.topic}=${m.payload}`)).toEqual(Array.from({ length: n }, (_, i) => `fan/${i % 3}=m${i}`));
      expect(got[k].map((m) => m.packet.qos)).toEqual(Array.from({ length: n }, (_, i) => Math.min(qos, i % 2)));
    }
    await Promise.all([...subs.map(({ c }) => c.endAsync()), pub.endAsync()]);
  });

  it('keeps binary payloads byte for byte and forwards MQTT 5 properties (user properties, content type, correlation data)', async () => {
    const sub = await connectClient(broker.port(1), { clientId: 'props-sub', protocolVersion: 5 });
    await sub.subscribeAsync('props/#', { qos: 1, properties: { subscriptionIdentifier: 42 } });
    const pub = await connectClient(broker.port(1), { clientId: 'props-pub', protocolVersion: 5 });
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x7f, 0xc3]);
    const got = nextMessages(sub, 1);
    await pub.publishAsync('props/bin', bytes, {
      qos: 1,
      properties: {
        userProperties: { a: '1', b: ['x', 'y'] },
        contentType: 'application/octet-stream',
        correlationData: Buffer.from('corr'),
        responseTopic: 'reply/here',
        messageExpiryInterval: 300,
      },
    });
    const [m] = await got;
    expect(Buffer.compare(m.payload, bytes)).toBe(0);
    expect(m.packet.properties).toMatchObject({
      userProperties: { a: '1', b: ['x', 'y'] },
      contentType: 'application/octet-stream',
      responseTopic: 'reply/here',
      subscriptionIdentifier: 42,
    });
    expect(m.packet.properties.correlationData.toString()).toBe('corr');
    expect(m.packet.properties.messageExpiryInterval).toBeGreaterThan(295);
    await Promise.all([sub.endAsync(), pub.endAsync()]);
  });

  it('sends retained messages on subscribe per retain handling, keeps the RETAIN flag only for them or with retain-as-published, and clears them with an empty payload', async () => {
    const pub = await connectClient(broker.port(1), { clientId: 'ret-pub', protocolVersion: 5 });
    await pub.publishAsync('ret/a', 'kept-a', { qos: 1, retain: true });
    await pub.publishAsync('ret/b', 'kept-b', { qos: 0, retain: true });
    const sub = await connectClient(broker.port(2), { clientId: 'ret-sub', protocolVersion: 5 });
    const first = nextMessages(sub, 2);
    await sub.subscribeAsync('ret/#', { qos: 1, rh: 0 });
    expect((await first).map((m) => [m.topic, m.payload.toString(), m.packet.retain, m.packet.qos]).sort()).toEqual([
      ['ret/a', 'kept-a', true, 1],
      ['ret/b', 'kept-b', true, 0],
    ]);
    // retain handling 2: none at subscribe; a live retained publish reaches a plain subscription without the flag.
    const other = await connectClient(broker.port(3), { clientId: 'ret-rap', protocolVersion: 5 });
    await other.subscribeAsync('ret/a', { qos: 1, rh: 2, rap: true });
    const live = nextMessages(sub, 1);
    const rap = nextMessages(other, 1);
    await pub.publishAsync('ret/a', 'new-a', { qos: 1, retain: true });
    expect((await live).map((m) => [m.payload.toString(), m.packet.retain])).toEqual([['new-a', false]]);
    expect((await rap).map((m) => [m.payload.toString(), m.packet.retain])).toEqual([['new-a', true]]);
    await pub.publishAsync('ret/a', '', { qos: 1, retain: true });
    const topic = (await broker.api('/api/cluster/topic/detail?tenant=default&topic_name=ret/b')).data;
    expect(topic.retain_message).not.toBeNull();
    const late = await connectClient(broker.port(1), { clientId: 'ret-late', protocolVersion: 4 });
    const lateGot = nextMessages(late, 1);
    await late.subscribeAsync('ret/#', { qos: 1 });
    expect((await lateGot).map((m) => m.topic)).toEqual(['ret/b']);
    await Promise.all([pub.endAsync(), sub.endAsync(), other.endAsync(), late.endAsync()]);
  });

  it("round-robins a shared subscription over its members, and no_local keeps a client's own messages from it", async () => {
    const members = await Promise.all(
      ['sh-1', 'sh-2', 'sh-3'].map((clientId, i) => connectClient(broker.port(i + 1), { clientId, protocolVersion: 5 })),
    );
    for (const m of members) await m.subscribeAsync('$share/workers/jobs/+', { qos: 1 });
    const counts = [0, 0, 0];
    members.forEach((m, i) => m.on('message', () => counts[i]++));
    const pub = await connectClient(broker.port(1), { clientId: 'sh-pub', protocolVersion: 5 });
    await pub.subscribeAsync('jobs/#', { qos: 1, nl: true });
    let own = 0;
    pub.on('message', () => own++);
    for (let i = 0; i < 9; i++) await pub.publishAsync(`jobs/${i}`, `job ${i}`, { qos: 1 });
    await eventually(
      () => counts.reduce((a, b) => a + b),
      (n) => n === 9,
    );
    expect(counts).toEqual([3, 3, 3]);
    expect(own).toBe(0);
    await Promise.all([...members, pub].map((c) => c.endAsync()));
  });

  it('resolves MQTT 5 topic aliases a client sets, and shows them in its record', async () => {
    const sub = await connectClient(broker.port(1), { clientId: 'alias-sub', protocolVersion: 5 });
    await sub.subscribeAsync('alias/#', { qos: 1 });
    const pub = await connectClient(broker.port(1), { clientId: 'alias-pub', protocolVersion: 5 });
    const got = nextMessages(sub, 2);
    await pub.publishAsync('alias/long/topic/name', 'one', { qos: 1, properties: { topicAlias: 3 } });
    await pub.publishAsync('', 'two', { qos: 1, properties: { topicAlias: 3 } });
    expect((await got).map((m) => [m.topic, m.payload.toString()])).toEqual([
      ['alias/long/topic/name', 'one'],
      ['alias/long/topic/name', 'two'],
    ]);
    const record = (await broker.api('/api/mqtt/client/list?client_id=alias-pub')).data.data[0];
    expect(record.mqtt_connection.topic_alias).toEqual({ '3': 'alias/long/topic/name' });
    await Promise.all([sub.endAsync(), pub.endAsync()]);
  });

  it("drops a message larger than an MQTT 5 client's Maximum Packet Size for that client, and lowers a keep alive above mqtt_keep_alive.max_time", async () => {
    const small = mqtt.connect(`mqtt://127.0.0.1:${broker.port()}`, {
      clientId: 'small-max',
      protocolVersion: 5,
      reconnectPeriod: 0,
      keepalive: 5_000,
      properties: { maximumPacketSize: 200 },
    });
    const connack = await new Promise<any>((resolve) => small.once('connect', resolve));
    expect(connack.properties).toMatchObject({
      serverKeepAlive: 3_600,
      maximumPacketSize: 10_485_760,
      topicAliasMaximum: 65_535,
      retainAvailable: true,
      sharedSubscriptionAvailable: true,
    });
    await small.subscribeAsync('size/#', { qos: 1 });
    const got: number[] = [];
    small.on('message', (_t, p) => got.push(p.length));
    const pub = await connectClient(broker.port(2), { clientId: 'size-pub', protocolVersion: 4 });
    await pub.publishAsync('size/big', Buffer.alloc(500, 7), { qos: 1 });
    await pub.publishAsync('size/small', Buffer.alloc(50, 7), { qos: 1 });
    await eventually(
      () => got,
      (g) => g.length >= 1,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual([50]);
    await Promise.all([small.endAsync(), pub.endAsync()]);
  });

  it('counts wire publishes in /metrics, stores them in the topic, and hands them to a running connector', async () => {
    const metric = async (name: string) => {
      const text = await (await fetch(`${broker.running.baseUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{tenant="default"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const created = await broker.post('/api/cluster/connector/create', {
      tenant: 'default',
      connector_name: 'wire-file',
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: '/tmp/mqsim-wire-connector.log' }),
      topic_name: 'conn/#',
      failure_strategy: { strategy: 'discard' },
    });
    expect(created.code).toBe(0);
    await eventually(
      () => broker.api('/api/cluster/connector/list?connector_name=wire-file'),
      (r) => r.data.data[0]?.status === 'Running',
      5_000,
    );
    const receivedBefore = await metric('mqtt_messages_received_total');
    const pub = await connectClient(broker.port(1), { clientId: 'conn-pub', protocolVersion: 4 });
    for (let i = 0; i < 5; i++) await pub.publishAsync('conn/x', `m${i}`, { qos: 1 });
    await pub.endAsync();
    expect(await metric('mqtt_messages_received_total')).toBe(receivedBefore + 5);
    const read = await broker.post('/api/mqtt/message/read', { tenant: 'default', topic: 'conn/x', offset: 0 });
    expect(read.data.messages.map((m: any) => m.content)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    const detail = await eventually(
      () => broker.api('/api/cluster/connector/detail?tenant=default&connector_name=wire-file'),
      (r) => JSON.stringify(r.data).includes('"send_success_total":5'),
      5_000,
    );
    expect(detail.code).toBe(0);
  });
});
