import { describe, expect, it, vi } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { LastWill } from './mqtt-model.ts';

const newSim = (nodes = 3): InProcessSim => new InProcessSim({ workload: 'none', nodes, seed: 7 });

const will = (topic: string, delay: number | null): LastWill => ({
  topic,
  message: 'gone',
  qos: 1,
  retain: false,
  properties:
    delay === null
      ? null
      : {
          delay_interval: delay,
          payload_format_indicator: 0,
          message_expiry_interval: 0,
          content_type: '',
          response_topic: '',
          correlation_data: '',
          user_properties: [],
        },
});

describe('MQTT broker: connections and sessions', () => {
  it('keeps a persistent session across a disconnect and drops it at expiry', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const res = mqtt.connect({
      tenant: 'default',
      clientId: 'c1',
      username: 'u',
      ip: '10.0.0.5',
      port: 40000,
      connectionType: 'Tls',
      protocol: 5,
      sessionExpiry: 120,
      keepAlive: 30,
    });
    expect(res).toMatchObject({ ok: true, sessionPresent: false });
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'c1', path: 'a/#', qos: 1 })).toMatchObject({ ok: true, created: true });

    const online = (await sim.get('/api/mqtt/client/list?client_id=c1')).json.data.data[0];
    expect(online.network_connection).toMatchObject({ connection_type: 'Tls', protocol: 'MQTT5', addr: '10.0.0.5:40000' });
    expect(online.heartbeat).toMatchObject({ protocol: 'Mqtt5', keep_live: 30 });
    expect(online.mqtt_connection).toMatchObject({ is_login: true, login_user: 'u', source_ip_addr: '10.0.0.5:40000' });

    sim.advance(10_000);
    expect(mqtt.disconnect('c1', 'default', { clean: true })).toBe(true);
    expect(mqtt.connectionCount).toBe(0);
    const offline = (await sim.get('/api/mqtt/client/list?client_id=c1')).json.data.data[0];
    expect(offline.network_connection).toBeNull();
    expect(offline.heartbeat).toBeNull();
    expect(offline.mqtt_connection.is_login).toBe(false);
    expect(offline.session).toMatchObject({
      session_expiry: 120,
      connection_id: null,
      distinct_time: Math.floor(sim.cluster.now() / 1000),
    });
    expect((await sim.get('/api/mqtt/subscribe/list?client_id=c1')).json.data.total_count).toBe(1);

    // Reconnect within the expiry resumes the session and its subscriptions.
    sim.advance(60_000);
    expect(mqtt.connect({ tenant: 'default', clientId: 'c1', sessionExpiry: 120 })).toMatchObject({ ok: true, sessionPresent: true });
    const session = (await sim.get('/api/mqtt/session/list?client_id=c1')).json.data.data[0];
    expect(session.reconnect_time).toBe(Math.floor(sim.cluster.now() / 1000));
    mqtt.disconnect('c1', 'default', { clean: true });

    sim.advance(119_000);
    expect(mqtt.client('default', 'c1')?.session).not.toBeNull();
    sim.advance(2_000);
    expect(mqtt.client('default', 'c1')).toBeUndefined();
    expect((await sim.get('/api/mqtt/subscribe/list?client_id=c1')).json.data.total_count).toBe(0);
    expect((await sim.get('/api/mqtt/session/list?client_id=c1')).json.data.total_count).toBe(0);
  });

  it('forgets a clean-start client at disconnect, and a takeover keeps one connection', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'default', clientId: 'tmp', cleanStart: true });
    mqtt.subscribe({ tenant: 'default', clientId: 'tmp', path: 'x' });
    mqtt.disconnect('tmp', 'default', { clean: true });
    expect(mqtt.client('default', 'tmp')).toBeUndefined();
    expect(mqtt.subscriptions.size).toBe(0);

    const a = mqtt.connect({ tenant: 'default', clientId: 'dup' });
    const b = mqtt.connect({ tenant: 'default', clientId: 'dup' });
    expect(a.ok && b.ok && b.connectionId > a.connectionId).toBe(true);
    expect(mqtt.connectionCount).toBe(1);
    expect(b).toMatchObject({ sessionPresent: true });
  });

  it('tells connect listeners about admitted connections, so they can subscribe the client', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const off = mqtt.onConnect((e) => {
      if (!e.sessionPresent) mqtt.subscribe({ tenant: e.tenant, clientId: e.clientId, path: `inbox/${e.username}` });
    });
    mqtt.connect({ tenant: 'default', clientId: 'auto', username: 'ann' });
    expect(mqtt.subscriptionsList().map((s) => s.path)).toEqual(['inbox/ann']);
    off();
    mqtt.connect({ tenant: 'default', clientId: 'auto2', username: 'bob' });
    expect(mqtt.subscriptions.size).toBe(1);
  });

  it('refuses blacklisted clients, which never appear connected', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const far = sim.cluster.now() + 3_600_000;
    sim.cluster.blacklist.add({
      tenant: 'default',
      name: 'b1',
      blacklist_type: 'ClientId',
      resource_name: 'bad',
      endTimeMs: far,
      desc: '',
      source: 'api',
    });
    sim.cluster.blacklist.add({
      tenant: 'default',
      name: 'b2',
      blacklist_type: 'Ip',
      resource_name: '10.9.9.9',
      endTimeMs: far,
      desc: '',
      source: 'api',
    });
    sim.cluster.blacklist.add({
      tenant: 'default',
      name: 'b3',
      blacklist_type: 'User',
      resource_name: 'mallory',
      endTimeMs: far,
      desc: '',
      source: 'api',
    });
    const r1 = mqtt.connect({ tenant: 'default', clientId: 'bad' });
    const r2 = mqtt.connect({ tenant: 'default', clientId: 'ok-id', ip: '10.9.9.9' });
    const r3 = mqtt.connect({ tenant: 'default', clientId: 'ok-id2', username: 'mallory' });
    for (const r of [r1, r2, r3]) expect(r.ok).toBe(false);
    expect(r1.ok === false && r1.reason).toContain('b1');
    expect(mqtt.connectionCount).toBe(0);
    expect((await sim.get('/api/mqtt/client/list')).json.data.total_count).toBe(0);
    // Same client id in another tenant is not blocked.
    expect(mqtt.connect({ tenant: 'acme', clientId: 'bad' }).ok).toBe(true);
  });

  it('enforces the tenant and cluster connection limits per node', () => {
    const sim = newSim(1);
    const mqtt = sim.cluster.mqtt;
    sim.cluster.tenants.update({ tenant_name: 'default', config: { max_connections_per_node: 2 } });
    expect(mqtt.connect({ tenant: 'default', clientId: 'l1' }).ok).toBe(true);
    expect(mqtt.connect({ tenant: 'default', clientId: 'l2' }).ok).toBe(true);
    const third = mqtt.connect({ tenant: 'default', clientId: 'l3' });
    expect(third.ok === false && third.reason).toContain('max_connections_per_node');
    // A takeover of a connected client does not need a new slot.
    expect(mqtt.connect({ tenant: 'default', clientId: 'l2' }).ok).toBe(true);
    sim.cluster.config.set('ClusterLimit', { max_network_connection: 2 });
    sim.cluster.tenants.update({ tenant_name: 'default', config: { max_connections_per_node: 100 } });
    const fourth = mqtt.connect({ tenant: 'default', clientId: 'l4' });
    expect(fourth.ok === false && fourth.reason).toContain('max_network_connection');
    expect(mqtt.connectionCount).toBe(2);
  });

  it('drops the connections of a node that stops, keeping their sessions, and moves resumed sessions', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'default', clientId: 'on2', nodeId: 2 });
    mqtt.subscribe({ tenant: 'default', clientId: 'on2', path: 'x' });
    mqtt.connect({ tenant: 'default', clientId: 'on1', nodeId: 1 });
    sim.cluster.nodes.stop(2);
    expect(mqtt.connect({ tenant: 'default', clientId: 'late', nodeId: 2 }).ok).toBe(false);
    sim.advance(5_000);
    expect(mqtt.isConnected('default', 'on2')).toBe(false);
    expect(mqtt.isConnected('default', 'on1')).toBe(true);
    expect(mqtt.client('default', 'on2')?.session).not.toBeNull();
    expect(mqtt.connect({ tenant: 'default', clientId: 'on2', nodeId: 3 })).toMatchObject({ ok: true, sessionPresent: true });
    expect(mqtt.client('default', 'on2')?.session?.brokerId).toBe(3);
    expect(mqtt.subscriptionsList().find((s) => s.client_id === 'on2')?.broker_id).toBe(3);
  });

  it('publishes the last will on a lost connection only, after its delay unless the client is back', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'default', clientId: 'watcher' });
    mqtt.subscribe({ tenant: 'default', clientId: 'watcher', path: 'wills/#' });
    const received = () => mqtt.client('default', 'watcher')!.messagesOut;

    mqtt.connect({ tenant: 'default', clientId: 'w3', protocol: 4, lastWill: will('wills/w3', null) });
    mqtt.disconnect('w3', 'default', { clean: true });
    expect(received()).toBe(0);
    mqtt.connect({ tenant: 'default', clientId: 'w3', protocol: 4, lastWill: will('wills/w3', null) });
    mqtt.disconnect('w3', 'default', { clean: false });
    expect(received()).toBe(1);

    mqtt.connect({ tenant: 'default', clientId: 'w5', lastWill: will('wills/w5', 10) });
    mqtt.disconnect('w5', 'default', { clean: false });
    sim.advance(5_000);
    mqtt.connect({ tenant: 'default', clientId: 'w5' });
    sim.advance(10_000);
    expect(received()).toBe(1); // back within the delay: no will
    mqtt.disconnect('w5', 'default', { clean: false }); // the new connection gave no will
    mqtt.connect({ tenant: 'default', clientId: 'w5', lastWill: will('wills/w5', 10) });
    mqtt.disconnect('w5', 'default', { clean: false });
    sim.advance(9_000);
    expect(received()).toBe(1);
    sim.advance(1_000);
    expect(received()).toBe(2);
  });
});

describe('MQTT broker: routing', () => {
  it('fans out to matching filters, one member per share group, honours no_local and counts drops', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    for (const id of ['s1', 's2', 'w1', 'w2', 'w3', 'pub']) mqtt.connect({ tenant: 'default', clientId: id });
    mqtt.subscribe({ tenant: 'default', clientId: 's1', path: 'jobs/+' });
    mqtt.subscribe({ tenant: 'default', clientId: 's2', path: 'jobs/#', qos: 2 });
    for (const w of ['w1', 'w2', 'w3']) mqtt.subscribe({ tenant: 'default', clientId: w, path: '$share/workers/jobs/#', qos: 1 });
    mqtt.subscribe({ tenant: 'default', clientId: 'pub', path: 'jobs/#', noLocal: true });
    mqtt.subscribe({ tenant: 'acme', clientId: 's1', path: 'jobs/#' }); // another tenant: refused, not connected there
    expect(
      mqtt
        .subscribersOf('default', 'jobs/1')
        .map((s) => s.client_id)
        .sort(),
    ).toEqual(['pub', 's1', 's2', 'w1', 'w2', 'w3']);
    expect(mqtt.subscribersOf('default', 'other')).toEqual([]);

    for (let i = 0; i < 6; i++)
      expect(mqtt.publish({ tenant: 'default', topic: `jobs/${i}`, payload: 'p', qos: 1, retain: false, clientId: 'pub' })).toMatchObject({
        ok: true,
        delivered: 3,
        dropped: 0,
      });
    expect(['w1', 'w2', 'w3'].map((w) => mqtt.client('default', w)!.messagesOut)).toEqual([2, 2, 2]);
    expect(mqtt.client('default', 'pub')!.messagesOut).toBe(0);
    expect(mqtt.client('default', 'pub')!.messagesIn).toBe(6);

    // Offline subscribers: their deliveries fail and count as dropped; a group with one online member still delivers.
    mqtt.disconnect('s1', 'default', { clean: true });
    mqtt.disconnect('w1', 'default', { clean: true });
    mqtt.disconnect('w2', 'default', { clean: true });
    expect(mqtt.publish({ tenant: 'default', topic: 'jobs/x', payload: 'p', qos: 0, retain: false })).toMatchObject({
      ok: true,
      delivered: 3,
      dropped: 1,
    });
    expect(mqtt.client('default', 'w3')!.messagesOut).toBe(3);
    expect(mqtt.publish({ tenant: 'default', topic: 'nobody/here', payload: 'p', qos: 0, retain: false })).toMatchObject({
      ok: true,
      delivered: 0,
      dropped: 1,
    });
    expect(mqtt.counters.totals).toEqual({ in: 8, out: 21, dropped: 2 });

    const detail = (await sim.get(`/api/mqtt/subscribe/detail?tenant=default&client_id=s1&path=${encodeURIComponent('jobs/+')}`)).json.data;
    expect(detail.share_sub).toBe(false);
    expect(detail.group_leader_info).toBeNull();
    expect(detail.sub_data.push_thread['jobs/x']).toMatchObject({ push_success_record_num: 0, push_error_record_num: 1 });
    expect(detail.sub_data.push_thread['jobs/0']).toMatchObject({ push_success_record_num: 1, push_error_record_num: 0 });
    const shared = (
      await sim.get(`/api/mqtt/subscribe/detail?tenant=default&client_id=w3&path=${encodeURIComponent('$share/workers/jobs/#')}`)
    ).json.data;
    expect(shared.share_sub).toBe(true);
    expect(shared.sub_data.leader_id).toBe(shared.group_leader_info.broker_id);
    expect(shared.sub_data.push_subscribe['jobs/x']).toMatchObject({
      group_name: 'workers',
      sub_path: '$share/workers/jobs/#',
      topic_name: 'jobs/x',
    });
  });

  it('stores, retains and forwards every publish through topics, storage and connectors', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    const onMessage = vi.spyOn(sim.cluster.connectors, 'onMessage');
    expect(mqtt.publish({ tenant: 'acme', topic: 'r/1', payload: 'v1', qos: 1, retain: true }).ok).toBe(true);
    const topic = sim.cluster.topics.get('acme', 'r/1');
    expect(topic?.retained?.payload).toBe('v1');
    expect(onMessage).toHaveBeenCalledWith('acme', 'r/1', { payload: 'v1', timestamp: sim.cluster.now() });
    mqtt.publish({ tenant: 'acme', topic: 'r/1', payload: '', qos: 1, retain: true });
    expect(sim.cluster.topics.get('acme', 'r/1')?.retained).toBeNull();
    const bad = mqtt.publish({ tenant: 'acme', topic: 'r/+', payload: 'x', qos: 0, retain: false });
    expect(bad.ok === false && bad.reason).toContain('wildcards');
    const ghost = mqtt.publish({ tenant: 'acme', topic: 'r/2', payload: 'x', qos: 0, retain: false, clientId: 'nobody' });
    expect(ghost.ok === false && ghost.reason).toContain('not connected');
  });

  it('sends retained messages at subscribe time as retain_handling asks', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.publish({ tenant: 'default', topic: 'st/a', payload: 'on', qos: 1, retain: true });
    mqtt.publish({ tenant: 'default', topic: 'st/b', payload: 'off', qos: 1, retain: true });
    mqtt.publish({ tenant: 'default', topic: 'st/c', payload: 'live', qos: 1, retain: false });
    mqtt.publish({ tenant: 'acme', topic: 'st/d', payload: 'other tenant', qos: 1, retain: true });
    for (const id of ['h0', 'h1', 'h2', 'sh']) mqtt.connect({ tenant: 'default', clientId: id });
    const out = (id: string) => mqtt.client('default', id)!.messagesOut;
    mqtt.subscribe({ tenant: 'default', clientId: 'h0', path: 'st/#', retainHandling: 0 });
    mqtt.subscribe({ tenant: 'default', clientId: 'h1', path: 'st/+', retainHandling: 1 });
    mqtt.subscribe({ tenant: 'default', clientId: 'h2', path: 'st/#', retainHandling: 2 });
    mqtt.subscribe({ tenant: 'default', clientId: 'sh', path: '$share/g/st/#' });
    expect([out('h0'), out('h1'), out('h2'), out('sh')]).toEqual([2, 2, 0, 0]);
    mqtt.subscribe({ tenant: 'default', clientId: 'h0', path: 'st/#', retainHandling: 0 });
    mqtt.subscribe({ tenant: 'default', clientId: 'h1', path: 'st/+', retainHandling: 1 });
    expect([out('h0'), out('h1')]).toEqual([4, 2]);
  });

  it('returns the storage offset and drops exact subscriptions of a deleted topic', async () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'default', clientId: 'c' });
    mqtt.subscribe({ tenant: 'default', clientId: 'c', path: 'del/me' });
    mqtt.subscribe({ tenant: 'default', clientId: 'c', path: 'del/+' });
    expect(mqtt.publish({ tenant: 'default', topic: 'del/me', payload: 'a', qos: 0, retain: false })).toMatchObject({
      ok: true,
      offset: 0,
    });
    expect(mqtt.publish({ tenant: 'default', topic: 'del/me', payload: 'b', qos: 0, retain: false })).toMatchObject({
      ok: true,
      offset: 1,
    });
    const res = await sim.post('/api/cluster/topic/delete', { tenant: 'default', topic_name: 'del/me' });
    expect(res.json.code).toBe(0);
    expect(mqtt.subscriptionsList().map((s) => s.path)).toEqual(['del/+']);
    expect([...mqtt.subscriptions.get('default', 'c', 'del/+')!.push.keys()]).toEqual([]);
    expect(mqtt.subscribersOf('default', 'del/me')).toEqual([{ client_id: 'c', path: 'del/+' }]);
  });

  it('refuses invalid subscriptions with a reason', () => {
    const sim = newSim();
    const mqtt = sim.cluster.mqtt;
    mqtt.connect({ tenant: 'default', clientId: 'c' });
    for (const path of ['a/#/b', '$share/g', 'a+']) {
      const r = mqtt.subscribe({ tenant: 'default', clientId: 'c', path });
      expect(r.ok).toBe(false);
    }
    const nl = mqtt.subscribe({ tenant: 'default', clientId: 'c', path: '$share/g/a', noLocal: true });
    expect(nl.ok === false && nl.reason).toContain('no_local');
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'absent', path: 'a' }).ok).toBe(false);
  });
});
