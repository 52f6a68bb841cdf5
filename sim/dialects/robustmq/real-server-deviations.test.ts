import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { TwinApps } from './testing/real-server-test-kit.ts';

/** What each real-server switch that breaks a spec rule changes on the wire, against the unbroken simulator. */

type Row = Record<string, any>;
let apps: TwinApps;

beforeAll(() => {
  apps = new TwinApps({ workload: 'demo', seed: 3 });
});

describe('lists', () => {
  it('default-page-size-10: a page without limit holds 10 records on every list', async () => {
    const sw = apps.with('default-page-size-10');
    for (const url of ['/api/cluster/topic/list', '/api/mqtt/subscribe/list', '/api/cluster/tenant/list?limit=0']) {
      const plain = (await apps.plain.get(url)).json.data;
      const res = (await sw.get(url)).json.data;
      expect(res.total_count, url).toBe(plain.total_count);
      expect(res.data, url).toEqual(plain.data.slice(0, 10));
    }
    expect((await apps.plain.get('/api/cluster/topic/list')).json.data.data.length).toBeGreaterThan(10);
    expect((await sw.get('/api/cluster/topic/list?limit=20')).json.data.data).toHaveLength(20);
  });

  it('exact-match-true-is-fuzzy: "true" matches substrings, absent or "exact" match exactly', async () => {
    const sw = apps.with('exact-match-true-is-fuzzy');
    const names = async (caller: typeof sw, exact?: string) => {
      const res = await caller.get(
        `/api/cluster/tenant/list?filter_field=tenant_name&filter_values=de${exact === undefined ? '' : `&exact_match=${exact}`}`,
      );
      return res.status === 200 ? res.json.data.data.map((t: Row) => t.tenant_name) : res.status;
    };
    expect(await names(apps.plain, 'true')).toEqual([]);
    expect(await names(sw, 'true')).toEqual(['default']);
    expect(await names(apps.plain)).toEqual(['default']);
    expect(await names(sw)).toEqual([]);
    expect(await names(apps.plain, 'exact')).toBe(400);
    expect(await names(sw, 'exact')).toEqual([]);
    expect(await names(sw, 'yes')).toEqual(['default']);
  });
});

describe('connectors', () => {
  it('connector-list-config-wrapped: config is the JSON of the ConnectorType enum', async () => {
    const plain = (await apps.plain.get('/api/cluster/connector/list')).json.data.data as Row[];
    const res = (await apps.with('connector-list-config-wrapped').get('/api/cluster/connector/list')).json.data.data as Row[];
    const variants: Record<string, string> = { file: 'LocalFile', webhook: 'Webhook', kafka: 'Kafka', postgres: 'Postgres' };
    expect(res).toHaveLength(plain.length);
    res.forEach((row, i) => {
      expect(typeof row.config).toBe('string');
      expect(JSON.parse(row.config)).toEqual({ [variants[row.connector_type]]: JSON.parse(plain[i].config) });
    });
    expect(JSON.parse(res.find((r) => r.connector_type === 'file')!.config)).toHaveProperty('LocalFile.local_file_path');
  });

  it('connector-status-stop: a stopped connector is listed as Stop', async () => {
    const own = new TwinApps({ workload: 'demo', seed: 4 });
    own.cluster.connectors.stop('default', 'sensor-archive');
    const row = async (caller: typeof apps.plain) =>
      ((await caller.get('/api/cluster/connector/list?tenant=default&connector_name=sensor-archive')).json.data.data as Row[])[0];
    expect((await row(own.plain)).status).toBe('Stopped');
    const sw = own.with('connector-status-stop');
    expect((await row(sw)).status).toBe('Stop');
    const byStatus = await sw.get('/api/cluster/connector/list?filter_field=status&filter_values=Stop&exact_match=true');
    expect(byStatus.json.data.data.map((r: Row) => r.connector_name)).toEqual(['sensor-archive']);
  });

  it('failure-strategy-unvalidated: unknown strategies become discard, zero retries and waits are kept and used', async () => {
    const own = new TwinApps({ workload: 'none', seed: 5 });
    const sw = own.with('failure-strategy-unvalidated');
    const create = (caller: typeof sw, name: string, failure_strategy: Row) =>
      caller.post('/api/cluster/connector/create', {
        tenant: 'default',
        connector_name: name,
        connector_type: 'webhook',
        config: JSON.stringify({ url: `http://${name}.local/x` }),
        topic_name: `fs/${name}`,
        failure_strategy,
      });
    for (const [name, strategy] of [
      ['bogus', { strategy: 'BoGus' }],
      ['zero', { strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 0 }],
      ['long', { strategy: 'dead_message_queue', topic_name: 'd'.repeat(300) }],
    ] as const) {
      expect((await create(own.plain, `${name}-plain`, strategy)).status, name).toBe(400);
      expect((await create(sw, name, strategy)).json.code, name).toBe(0);
    }
    const stored = (name: string) => own.cluster.connectors.get('default', name)!.failureStrategy;
    expect(stored('bogus')).toEqual({ strategy: 'discard' });
    expect(stored('zero')).toEqual({ strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 0 });
    expect(stored('long')).toEqual({
      strategy: 'dead_message_queue',
      retry_total_times: 3,
      wait_time_ms: 1000,
      topic_name: 'd'.repeat(300),
    });
    expect((await create(sw, 'wrong-type', { strategy: 'discard', retry_total_times: 'x' })).status).toBe(400);

    // Zero retries: the first failed send is given up at once, with no retry.
    own.advance(1000);
    own.cluster.connectors.setTargetDown('http://zero.local/x', true);
    await own.plain.post('/api/mqtt/message/send', { tenant: 'default', topic: 'fs/zero', payload: 'p' });
    own.advance(2000);
    expect(own.cluster.connectors.get('default', 'zero')!.stats.sendFailTotal).toBe(1);
    const attempts = own.cluster.engine.trace
      .tail(200)
      .filter((e) => e.kind === 'connector.send' && (e.detail as Row).tenant === 'default' && (e.detail as Row).name === 'zero');
    expect(attempts.map((e) => (e.detail as Row).attempt)).toEqual([0]);
  });

  it('dead-letter-record-shape: records read from the dead-letter topic embed the original StorageRecord', async () => {
    const own = new TwinApps({ workload: 'none', seed: 6 });
    await own.plain.post('/api/cluster/connector/create', {
      tenant: 'default',
      connector_name: 'dlq',
      connector_type: 'webhook',
      config: JSON.stringify({ url: 'http://dlq.local/x' }),
      topic_name: 'dlq/src',
      failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 10, topic_name: 'dlq/dead' },
    });
    own.advance(1000);
    own.cluster.connectors.setTargetDown('http://dlq.local/x', true);
    await own.plain.post('/api/mqtt/message/send', { tenant: 'default', topic: 'dlq/src', payload: 'boom', key: 'k1' });
    own.advance(3000);
    const read = { tenant: 'default', topic: 'dlq/dead', offset: 0 };
    const plain = JSON.parse((await own.plain.post('/api/mqtt/message/read', read)).json.data.messages[0].content);
    expect(plain).toHaveProperty('original_data');
    const real = JSON.parse(
      (await own.with('dead-letter-record-shape').post('/api/mqtt/message/read', read)).json.data.messages[0].content,
    );
    const source = (await own.plain.post('/api/mqtt/message/read', { tenant: 'default', topic: 'dlq/src', offset: 0 })).json.data
      .messages[0];
    const shard = own.cluster.topics.get('default', 'dlq/src')!.storage_name_list[0];
    expect(real).toEqual({
      connector_name: 'dlq',
      source_topic: 'dlq/src',
      error_message: plain.error_message,
      retry_times: 1,
      record: {
        metadata: {
          offset: source.offset,
          shard,
          segment: 0,
          header: null,
          key: 'k1',
          tags: null,
          create_t: Math.floor(plain.original_timestamp / 1000),
          crc_num: expect.any(Number),
        },
        data: [...Buffer.from('boom')],
      },
    });
    expect(real.record.metadata.crc_num).toBe(crc32(Buffer.from('boom')));
  });
});

describe('records and behaviours', () => {
  it('acl-ip-resource-type-refused: resource_type Ip fails with "invalid variant: Ip" (HTTP 200)', async () => {
    const acl = { tenant: 'default', name: 'ip-rule', resource_type: 'Ip', resource_name: '10.0.0.1', action: 'All', permission: 'Deny' };
    const res = await apps.with('acl-ip-resource-type-refused').post('/api/cluster/acl/create', acl);
    expect([res.status, res.json.code, res.json.message]).toEqual([200, 1, 'invalid variant: Ip']);
    expect((await apps.plain.post('/api/cluster/acl/create', acl)).json.code).toBe(0);
    expect(
      (
        await apps
          .with('acl-ip-resource-type-refused')
          .post('/api/cluster/acl/create', { ...acl, name: 'user-rule', resource_type: 'User' })
      ).json.code,
    ).toBe(0);
  });

  it('health-node-placeholder: the node check says "health check placeholder"', async () => {
    expect((await apps.plain.get('/health/node')).json.data.message).toBe('node 1 is alive');
    expect((await apps.with('health-node-placeholder').get('/health/node')).json.data).toEqual({
      status: 'ok',
      check_type: 'node',
      message: 'health check placeholder',
    });
  });

  it('mq9-times-in-seconds: mail and agent create_time in seconds', async () => {
    const sw = apps.with('mq9-times-in-seconds');
    for (const url of ['/api/mq9/mail/list', '/api/mq9/agent/list']) {
      const plain = (await apps.plain.get(url)).json.data.data as Row[];
      const res = (await sw.get(url)).json.data.data as Row[];
      expect(plain.length, url).toBeGreaterThan(0);
      expect(
        res.map((r) => r.create_time),
        url,
      ).toEqual(plain.map((r) => Math.floor(r.create_time / 1000)));
    }
  });

  it('overview-no-placement-status: the overview has no placement_status', async () => {
    expect((await apps.plain.get('/api/mqtt/overview')).json.data).toHaveProperty('placement_status');
    const res = (await apps.with('overview-no-placement-status').get('/api/mqtt/overview')).json.data;
    expect(res).not.toHaveProperty('placement_status');
    expect(res).toHaveProperty('connector_num');
  });

  it('node-extend-object: node records carry extend as the nested object', async () => {
    const sw = apps.with('node-extend-object');
    const plain = (await apps.plain.get('/api/info')).json.data.broker_node_list[0];
    expect(Array.isArray(plain.extend)).toBe(true);
    const decoded = JSON.parse(Buffer.from(plain.extend).toString('utf8'));
    for (const url of ['/api/info', '/api/status', '/api/mqtt/overview']) {
      const data = (await sw.get(url)).json.data;
      const node = (data.broker_node_list ?? data.node_list)[0];
      expect(node.extend, url).toEqual({
        mqtt: decoded.mqtt,
        nats: { tcp_addr: '', tls_addr: '', ws_addr: '', wss_addr: '' },
        kafka: { tcp_addr: '' },
      });
      expect(node.http_addr, url).toBe(plain.http_addr);
    }
  });

  it('subscribe-detail-never-shared: a shared subscription shows share_sub false and no leader info', async () => {
    const shared = ((await apps.plain.get('/api/mqtt/subscribe/list')).json.data.data as Row[]).find((s) => s.is_share_sub)!;
    const url = `/api/mqtt/subscribe/detail?tenant=${shared.tenant}&client_id=${shared.client_id}&path=${encodeURIComponent(shared.path)}`;
    const plain = (await apps.plain.get(url)).json.data;
    expect([plain.share_sub, typeof plain.group_leader_info]).toEqual([true, 'object']);
    const res = (await apps.with('subscribe-detail-never-shared').get(url)).json.data;
    expect([res.share_sub, res.group_leader_info]).toEqual([false, null]);
    expect(res.sub_data).toEqual(plain.sub_data);
  });

  it('topic-detail-no-retain-at: no retain_message_at, retain_message in the real shape', async () => {
    const t = apps.cluster.topics.all().find((x) => x.topic_name === 'factory/line1/status')!;
    const url = `/api/cluster/topic/detail?tenant=${t.tenant}&topic_name=${encodeURIComponent(t.topic_name)}`;
    const plain = (await apps.plain.get(url)).json.data;
    expect(plain.retain_message_at).toBeGreaterThan(0);
    const res = (await apps.with('topic-detail-no-retain-at').get(url)).json.data;
    expect(res).not.toHaveProperty('retain_message_at');
    const { tenant, topic_name, payload, expired_at, create_time } = plain.retain_message;
    expect(res.retain_message).toEqual({ tenant, topic_name, payload, expired_at, create_time });
  });

  it('segment-no-config: segments in detail and list have no config', async () => {
    const sw = apps.with('segment-no-config');
    const shard = apps.cluster.storage.all()[0].name;
    const plain = (await apps.plain.post('/api/storage-engine/segment/detail', { shard_name: shard, segment_seq: 0 })).json.data;
    expect(plain.segment).toHaveProperty('config');
    const detail = (await sw.post('/api/storage-engine/segment/detail', { shard_name: shard, segment_seq: 0 })).json.data;
    const { config: _c, ...rest } = plain.segment;
    expect(detail.segment).toEqual(rest);
    expect(detail.segment).toHaveProperty('last_known_isr');
    const list = (await sw.post('/api/storage-engine/segment/list', { shard_name: shard })).json.data.segment_list as Row[];
    expect(list.length).toBeGreaterThan(0);
    for (const s of list) expect(s.segment).not.toHaveProperty('config');
  });

  it('flapping-defaults-real: config get shows 1 / 15 / 5 until the section is set', async () => {
    const own = new TwinApps({ workload: 'none', seed: 7 });
    const sw = own.with('flapping-defaults-real');
    expect((await own.plain.get('/api/cluster/config/get')).json.data.mqtt_flapping_detect).toMatchObject({
      window_time: 60,
      max_client_connections: 5,
      ban_time: 300,
    });
    expect((await sw.get('/api/cluster/config/get')).json.data.mqtt_flapping_detect).toMatchObject({
      enable: false,
      window_time: 1,
      max_client_connections: 15,
      ban_time: 5,
    });
    expect(
      (
        await sw.post('/api/cluster/config/set', {
          config_type: 'MqttFlappingDetect',
          config: JSON.stringify({ window_time: 2, max_client_connections: 20, ban_time: 3 }),
        })
      ).json.code,
    ).toBe(0);
    expect((await sw.get('/api/cluster/config/get')).json.data.mqtt_flapping_detect).toMatchObject({
      window_time: 2,
      max_client_connections: 20,
      ban_time: 3,
    });
  });

  it('session-total-capped: with more than 100 sessions total_count stays 100', async () => {
    const big = new TwinApps({ workload: 'demo', seed: 8 }, (cluster) => cluster.mqtt.demo.setTargetSize(150));
    const plain = (await big.plain.get('/api/mqtt/session/list')).json.data;
    expect(plain.total_count).toBeGreaterThan(100);
    const res = (await big.with('session-total-capped').get('/api/mqtt/session/list')).json.data;
    expect(res.total_count).toBe(100);
    expect(res.data).toEqual(plain.data);
  });
});
