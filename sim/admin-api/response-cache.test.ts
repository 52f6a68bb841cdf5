import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResponseCache, responseCacheFromEnv } from './response-cache.ts';
import { InProcessSim } from './in-process-client.ts';
import { startClusterServer } from '../io/serve/cluster-server.ts';
import { defaultShardConfig } from '../model/storage/storage-engine.ts';
import { resolveDeviations } from '../switches/resolve-switches.ts';

describe('cached list responses', () => {
  it('hold for the same owner at the same version only', () => {
    const cache = new ResponseCache();
    const owner = {};
    const key = ResponseCache.keyOf('cluster.tenant.list', 1, 'A', { limit: 10 });
    cache.put(key, { owner, version: 3 }, '{"a":1}');
    expect(cache.get(key, { owner, version: 3 })?.bytes.toString()).toBe('{"a":1}');
    expect(cache.get(key, { owner, version: 4 })).toBeUndefined();
    expect(cache.get(key, { owner: {}, version: 3 })).toBeUndefined();
    expect(cache.get(ResponseCache.keyOf('cluster.tenant.list', 2, 'A', { limit: 10 }), { owner, version: 3 })).toBeUndefined();
    expect(cache.get(ResponseCache.keyOf('cluster.tenant.list', 1, 'B', { limit: 10 }), { owner, version: 3 })).toBeUndefined();
    expect(cache.get(ResponseCache.keyOf('cluster.tenant.list', 1, 'A', { limit: 11 }), { owner, version: 3 })).toBeUndefined();
  });

  it('are bounded: one query past the limit evicts them all', () => {
    const cache = new ResponseCache(2);
    const listVersion = { owner: {}, version: 0 };
    cache.put('a', listVersion, '1');
    cache.put('b', listVersion, '2');
    cache.put('b', listVersion, '3');
    expect(cache.size).toBe(2);
    cache.put('c', listVersion, '4');
    expect(cache.size).toBe(1);
    expect(cache.get('a', listVersion)).toBeUndefined();
  });

  it('are bounded in bytes: an answer over a quarter of the budget is not cache, one past the budget drops them all', () => {
    const cache = new ResponseCache(100, 40);
    const listVersion = { owner: {}, version: 0 };
    expect(cache.put('big', listVersion, 'x'.repeat(11)).bytes.length).toBe(11);
    expect(cache.get('big', listVersion)).toBeUndefined();
    cache.put('a', listVersion, 'x'.repeat(10));
    cache.put('b', listVersion, 'x'.repeat(10));
    cache.put('a', listVersion, 'x'.repeat(9));
    expect(cache.bytes).toBe(19);
    cache.put('c', listVersion, 'x'.repeat(10));
    cache.put('d', listVersion, 'x'.repeat(10));
    expect([cache.size, cache.bytes]).toEqual([4, 39]);
    cache.put('e', listVersion, 'x'.repeat(2));
    expect([cache.size, cache.bytes]).toEqual([1, 2]);
  });

  it('are sent again until a write, then computed afresh (the bytes of a cached response are the same object)', async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 });
    const ask = () =>
      sim.app.handle({ method: 'GET', url: '/api/cluster/tenant/list?limit=5&sort_field=tenant_name', peer: '127.0.0.1', nodeId: 1 });
    const first = await ask();
    const second = await ask();
    expect(first.bytes).toBeInstanceOf(Buffer);
    expect(second.bytes).toBe(first.bytes);
    expect(second.body).toBe(first.body);
    const created = await sim.post('/api/cluster/tenant/create', { tenant_name: 'aaa-first', desc: '' });
    expect(created.json.code).toBe(0);
    const third = await ask();
    expect(third.bytes).not.toBe(first.bytes);
    expect(JSON.parse(third.body).data.data[0].tenant_name).toBe('aaa-first');
    // The virtual time header is made per request, not cached.
    sim.advance(1_000);
    const fourth = await ask();
    expect(fourth.bytes).toBe(third.bytes);
    expect(Number(fourth.headers['x-mqsim-virtual-time'])).toBe(Number(third.headers['x-mqsim-virtual-time']) + 1_000);
  });

  it("follow the changes made in place: a subscription's options on subscribing again, its broker when its session resumes elsewhere", async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 2 }, { verifyWriters: true });
    sim.advance(5_000);
    const mqtt = sim.cluster.mqtt;
    const list = async (): Promise<{ qos: string; broker_id: number }> => {
      const res = await sim.get('/api/mqtt/subscribe/list?client_id=c1');
      expect(res.status, res.text).toBe(200);
      return res.json.data.data.find((s: { path: string }) => s.path === 'x/#');
    };
    mqtt.connect({ tenant: 'default', clientId: 'c1', cleanStart: false, sessionExpiry: 3_600, nodeId: 1 });
    mqtt.subscribe({ tenant: 'default', clientId: 'c1', path: 'x/#', qos: 1 });
    const first = await list();
    expect(await list()).toEqual(first);
    mqtt.subscribe({ tenant: 'default', clientId: 'c1', path: 'x/#', qos: 2 });
    const resubscribed = await list();
    expect(resubscribed.qos).not.toBe(first.qos);
    mqtt.disconnect('c1', 'default', { clean: false });
    expect((await list()).broker_id).toBe(1);
    mqtt.connect({ tenant: 'default', clientId: 'c1', cleanStart: false, sessionExpiry: 3_600, nodeId: 2 });
    expect((await list()).broker_id).toBe(2);
  });

  it('follow clients and sessions: connections ending, sessions ending, heartbeats in a new second', async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 }, { verifyWriters: true });
    sim.advance(5_000);
    const mqtt = sim.cluster.mqtt;
    const client = async () => {
      const res = await sim.get('/api/mqtt/client/list?client_id=c1');
      expect(res.status, res.text).toBe(200);
      return res.json.data.data[0];
    };
    const session = async () => {
      const res = await sim.get('/api/mqtt/session/list?client_id=c1');
      expect(res.status, res.text).toBe(200);
      return res.json.data.data[0];
    };
    mqtt.connect({ tenant: 'default', clientId: 'c1', cleanStart: false, sessionExpiry: 3_600, keepAlive: 2 });
    const connected = await client();
    expect(connected.mqtt_connection.is_login).toBe(true);
    expect((await session()).connection_id).not.toBeNull();
    // Simulated heartbeats move last_heartbeat_time on (in seconds).
    sim.advance(10_000);
    expect((await client()).heartbeat.heartbeat).toBeGreaterThan(connected.heartbeat.heartbeat);
    mqtt.disconnect('c1', 'default', { clean: true });
    expect((await client()).mqtt_connection.is_login).toBe(false);
    const kept = await session();
    expect(kept.connection_id).toBeNull();
    expect(kept.distinct_time).not.toBeNull();
    // The session expires: the session list has it no more.
    sim.advance(3_601_000);
    expect(await session()).toBeUndefined();
    // The session ends (clean start): the session list has it no more, nor the client list once it is gone.
    mqtt.connect({ tenant: 'default', clientId: 'c1', cleanStart: true, sessionExpiry: 0 });
    mqtt.disconnect('c1', 'default', { clean: true });
    expect(await session()).toBeUndefined();
    expect(await client()).toBeUndefined();
  });

  it('are not cached for the client list while a network client is connected (its in-flight counts change unseen)', async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 });
    const ask = (path: string) => sim.app.handle({ method: 'GET', url: path, peer: '127.0.0.1', nodeId: 1 });
    const sink = { deliver: () => {}, closed: () => {}, inflight: () => ({ receiving: 0, sending: 0 }) };
    const connected = sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'net', networkClient: true, sink });
    expect(connected.ok).toBe(true);
    expect((await ask('/api/mqtt/client/list')).bytes).toBeUndefined();
    expect((await ask('/api/mqtt/session/list')).bytes).toBeInstanceOf(Buffer);
    sim.cluster.mqtt.disconnect('net', 'default', { clean: true });
    expect((await ask('/api/mqtt/client/list')).bytes).toBeInstanceOf(Buffer);
  });

  it('follow shards: records appended, the high watermark moving with replication, retention, deletion', async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 3 }, { verifyWriters: true });
    sim.advance(5_000);
    const storage = sim.cluster.storage;
    const shard = async () => {
      const res = await sim.post('/api/storage-engine/shard/list', { shard_name: 'kept-s' });
      expect(res.status, res.text).toBe(200);
      return res.json.data.data[0]?.shard_info;
    };
    storage.createShard({ shard_name: 'kept-s', config: { ...defaultShardConfig(3), retention_sec: 60 } });
    expect((await shard()).offset).toEqual({ start_offset: 0, end_offset: 0, high_watermark: 0 });
    for (let i = 0; i < 5; i++) storage.appendToShard('kept-s', { payload: `m${i}` });
    const appended = await shard();
    expect(appended.offset.end_offset).toBe(5);
    sim.advance(2_000);
    expect((await shard()).offset.high_watermark).toBe(5);
    // Past the retention time the records go: the log start moves up.
    sim.advance(180_000);
    expect((await shard()).offset.start_offset).toBe(5);
    storage.deleteShard('kept-s');
    expect((await shard()).shard.status).not.toBe(appended.shard.status);
    sim.advance(60_000);
    expect(await shard()).toBeUndefined();
  });

  it('follow topics created and deleted', async () => {
    const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 }, { verifyWriters: true });
    const names = async (): Promise<string[]> =>
      (await sim.get('/api/cluster/topic/list?topic_name=kept')).json.data.data.map((t: { topic_name: string }) => t.topic_name);
    expect(await names()).toEqual([]);
    sim.cluster.topics.create({ tenant: 'default', topic_name: 'kept/1' });
    expect(await names()).toEqual(['kept/1']);
    expect(await names()).toEqual(['kept/1']);
    sim.cluster.topics.delete('default', 'kept/1');
    expect(await names()).toEqual([]);
  });

  it('are off with responseCache: false and with a deviation switched on', async () => {
    for (const appOptions of [{ responseCache: false }, { deviations: resolveDeviations(['tenant-list-total-count-is-page-length']) }]) {
      const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 }, appOptions);
      const a = await sim.app.handle({ method: 'GET', url: '/api/cluster/tenant/list', peer: '127.0.0.1', nodeId: 1 });
      expect(a.bytes).toBeUndefined();
    }
  });

  describe('switched by the environment', () => {
    afterEach(() => vi.unstubAllEnvs());

    it('read MQSIM_RESPONSE_CACHE, and MQSIM_KEEP_ANSWERS (its former name) when it is not set', () => {
      expect(responseCacheFromEnv({})).toBe(true);
      expect(responseCacheFromEnv({ MQSIM_RESPONSE_CACHE: '0' })).toBe(false);
      expect(responseCacheFromEnv({ MQSIM_RESPONSE_CACHE: '1' })).toBe(true);
      expect(responseCacheFromEnv({ MQSIM_KEEP_ANSWERS: '0' })).toBe(false);
      expect(responseCacheFromEnv({ MQSIM_KEEP_ANSWERS: '1' })).toBe(true);
      expect(responseCacheFromEnv({ MQSIM_RESPONSE_CACHE: '1', MQSIM_KEEP_ANSWERS: '0' })).toBe(true);
      expect(responseCacheFromEnv({ MQSIM_RESPONSE_CACHE: '0', MQSIM_KEEP_ANSWERS: '1' })).toBe(false);
    });

    it('are off in an app made with either variable at 0, on by default', async () => {
      const bytesOf = async () => {
        const sim = new InProcessSim({ seed: 'kept', workload: 'none', nodes: 1 });
        return (await sim.app.handle({ method: 'GET', url: '/api/cluster/tenant/list', peer: '127.0.0.1', nodeId: 1 })).bytes;
      };
      const names = ['MQSIM_RESPONSE_CACHE', 'MQSIM_KEEP_ANSWERS'];
      const unset = () => names.forEach((n) => vi.stubEnv(n, undefined));
      unset();
      expect(await bytesOf()).toBeInstanceOf(Buffer);
      for (const name of names) {
        unset();
        vi.stubEnv(name, '0');
        expect(await bytesOf()).toBeUndefined();
      }
    });
  });

  it('go over the socket as they were cached', async () => {
    const running = await startClusterServer({ port: 0, nodes: 1, workload: 'none', seed: '1' });
    try {
      const url = `${running.baseUrl}/api/cluster/tenant/list?limit=3`;
      const [a, b] = [await fetch(url), await fetch(url)];
      const [ta, tb] = [await a.text(), await b.text()];
      expect(tb).toBe(ta);
      expect(b.headers.get('content-length')).toBe(String(Buffer.byteLength(tb)));
      expect(JSON.parse(tb).code).toBe(0);
    } finally {
      await running.close();
    }
  });
});
