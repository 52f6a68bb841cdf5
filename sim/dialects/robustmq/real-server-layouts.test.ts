import { beforeAll, describe, expect, it } from 'vitest';
import { TwinApps } from './testing/real-server-test-kit.ts';

/** The real server's layouts served next to the spec's (both forms), and the real rate limiting. */

type Row = Record<string, any>;
let apps: TwinApps;

beforeAll(() => {
  apps = new TwinApps({ workload: 'demo', seed: 3 });
});

describe('config-get-real-layout', () => {
  it('keeps every key of the spec view and adds the real sections, agreeing with it; secrets stay redacted', async () => {
    const plain = (await apps.plain.get('/api/cluster/config/get')).json.data as Row;
    const real = (await apps.with('config-get-real-layout').get('/api/cluster/config/get')).json.data as Row;
    for (const [k, v] of Object.entries(plain)) {
      if (k === 'runtime' || k === 'meta_runtime' || k === 'storage_runtime' || k === 'mqtt_runtime')
        expect(real[k], k).toMatchObject(v as Row);
      else expect(real[k], k).toEqual(v);
    }
    expect(real.broker_network).toEqual({
      accept_thread_num: plain.network.accept_thread_num,
      handler_thread_num: plain.network.handler_thread_num,
      queue_size: plain.network.queue_size,
    });
    expect(real.runtime.pprof_enable).toBe(plain.pprof.enable);
    expect(real.mqtt_runtime.server).toEqual(plain.mqtt_server);
    expect(real.mqtt_runtime.protocol).toEqual(plain.mqtt_protocol);
    expect(real.mqtt_runtime.network).toEqual(real.broker_network);
    expect(real.storage_runtime.network).toEqual(real.broker_network);
    expect(typeof real.storage_runtime.expire_scan_task_num).toBe('number');
    expect(real.nats_runtime.mq9_mailbox_default_ttl).toBe(86_400);
    expect(real.mqtt_runtime.default_password).toBe('******');
    expect(JSON.stringify(real)).not.toContain('"admin","password":"admin"');
  });

  it('follows a config set into both layouts', async () => {
    const sw = apps.with('config-get-real-layout');
    const set = await sw.post('/api/cluster/config/set', {
      config_type: 'MqttProtocol',
      config: JSON.stringify({ ...(await apps.plain.get('/api/cluster/config/get')).json.data.mqtt_protocol, receive_max: 1234 }),
    });
    expect(set.json.code).toBe(0);
    const real = (await sw.get('/api/cluster/config/get')).json.data as Row;
    expect([real.mqtt_protocol.receive_max, real.mqtt_runtime.protocol.receive_max]).toEqual([1234, 1234]);
  });

  it('shows the real layout of another node when forwarded (broker_id)', async () => {
    const real = (await apps.with('config-get-real-layout').get('/api/cluster/config/get?broker_id=2')).json.data as Row;
    expect(real.broker_id).toBe(2);
    expect(real.mqtt_runtime.server).toEqual(real.mqtt_server);
  });
});

describe('shard-extend-storage-engine', () => {
  it('shard records carry the EngineShard as shard_info.shard and shard_info.extend.StorageEngine', async () => {
    const plain = (await apps.plain.post('/api/storage-engine/shard/list', {})).json.data;
    const both = (await apps.with('shard-extend-storage-engine').post('/api/storage-engine/shard/list', {})).json.data;
    expect(both.total_count).toBe(plain.total_count);
    expect(both.data.length).toBeGreaterThan(0);
    both.data.forEach((row: Row, i: number) => {
      expect(row.shard_info.extend.StorageEngine).toEqual(plain.data[i].shard_info.shard);
      expect(row.shard_info.shard).toEqual(plain.data[i].shard_info.shard);
      expect(row.shard_info.extend.StorageEngine.status).toBe('Run');
    });
  });
});

describe('root-static-fallback', () => {
  it('GET / answers 404 with an empty body (no dashboard deployed), without a token; other paths unchanged', async () => {
    const sw = apps.with('root-static-fallback');
    expect((await apps.plain.get('/')).status).toBe(200);
    const root = await sw.get('/');
    expect([root.status, root.text]).toEqual([404, '']);
    const post = await sw.post('/', {});
    expect(post.status).toBe(405);
    expect((await sw.get('/api/cluster/tenant/list')).json.code).toBe(0);
  });
});

describe('rate-limit-delays', () => {
  it('queues excess requests on a path (at max_network_connection_rate) instead of refusing them, on every path', async () => {
    const local = new TwinApps({ workload: 'none', seed: 4 });
    const set = (rate: number) =>
      local.plain.post('/api/cluster/config/set', {
        config_type: 'ClusterLimit',
        config: JSON.stringify({ max_network_connection: 100_000_000, max_network_connection_rate: rate, max_admin_http_uri_rate: 2 }),
      });
    expect((await set(5)).json.code).toBe(0);
    const plainCodes: number[] = [];
    for (let i = 0; i < 8; i++) plainCodes.push((await local.plain.get('/api/cluster/tenant/list')).status);
    expect(plainCodes.filter((s) => s === 429).length).toBeGreaterThan(0);
    const sw = local.with('rate-limit-delays');
    const t0 = local.cluster.now();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await sw.get('/api/cluster/user/list')).status);
    expect(statuses).toEqual(Array(8).fill(200));
    // 5 per second with a burst of 5: the 6th to 8th wait 200, 400 and 600 ms of virtual time.
    expect(local.cluster.now() - t0).toBeGreaterThanOrEqual(600);
    expect((await set(0)).json.code).toBe(0);
    const refused = await sw.get('/health/ready');
    expect([refused.status, refused.text]).toEqual([
      429,
      'Rate limit value must be greater than 0, parameter name: network_connection_rate',
    ]);
  });
});
