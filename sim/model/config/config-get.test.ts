import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { brokerConfigSchema } from '../../../contract/endpoints/config.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

const GET = '/api/cluster/config/get';

async function set(sim: InProcessSim, config_type: string, config: unknown) {
  sim.advance(25); // stay under max_admin_http_uri_rate (50 per second per path)
  return sim.post('/api/cluster/config/set', { config_type, config: JSON.stringify(config) });
}

async function get(sim: InProcessSim, query = '', nodeId = 1) {
  sim.advance(25);
  return sim.get(`${GET}${query}`, { nodeId });
}

describe('config get: the read view', () => {
  it('has every field of the spec table with the right types (contract schema)', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const res = await get(sim);
    expect(res.json.code).toBe(0);
    const validate = new Ajv({ strict: false, allErrors: true }).compile(brokerConfigSchema);
    expect(validate(res.json.data), JSON.stringify(validate.errors)).toBe(true);
    // The schema requires each spec object; spot-check the fields the brief names.
    expect(res.json.data.meta_runtime).toMatchObject({ offset_raft_group_num: 1, data_raft_group_num: 1 });
    expect(res.json.data.storage_runtime.max_segment_size).toBe(1_073_741_824);
    expect(res.json.data.llm_client).toBeNull();
  });

  it("shows the answering node's own values and the cluster's meta_addrs", async () => {
    const sim = new InProcessSim({ nodes: 3, clusterName: 'c9' });
    for (const node of sim.cluster.nodes.all()) {
      const data = (await get(sim, '', node.id)).json.data;
      expect(data).toMatchObject({
        cluster_name: 'c9',
        broker_id: node.id,
        broker_ip: node.ip,
        roles: node.roles,
        grpc_port: node.ports.grpc,
        http_port: node.ports.http,
        prometheus: { port: node.ports.prometheus },
        storage_runtime: { tcp_port: node.ports.storageTcp, data_path: node.storageFold },
        mqtt_server: {
          tcp_port: node.ports.mqttTcp,
          tls_port: node.ports.mqttTls,
          websocket_port: node.ports.mqttWebsocket,
          websockets_port: node.ports.mqttWebsockets,
          quic_port: node.ports.mqttQuic,
        },
      });
      expect(data.meta_addrs).toEqual(Object.fromEntries(sim.cluster.nodes.all().map((n) => [String(n.id), `${n.ip}:${n.ports.grpc}`])));
    }
  });

  it('never shows the admin password, the JWT secret or the MQTT default password', async () => {
    const password = 'Pa55-word-that-must-stay-hidden';
    const jwtSecret = 'jwt-secret-0123456789-abcdefghijklmnop';
    const sim = new InProcessSim({ nodes: 2, admin: { username: 'root', password, jwtSecret, tokenTtlHours: 2 } });
    for (const query of ['', '?broker_id=2']) {
      const res = await get(sim, query);
      expect(res.json.data.admin).toEqual({ username: 'root', password: '******', jwt_secret: '******', token_ttl_hours: 2 });
      expect(res.json.data.mqtt_runtime.default_password).toBe('******');
      expect(res.text).not.toContain(password);
      expect(res.text).not.toContain(jwtSecret);
      expect(res.text).not.toContain('robustmq');
    }
  });
});

describe('config get: broker_id', () => {
  it('answers locally for the answering node and forwards to another node', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const self = await get(sim, '?broker_id=1');
    expect(self.json.data.broker_id).toBe(1);
    const remote = await get(sim, '?broker_id=2');
    expect(remote.json.code).toBe(0);
    expect(remote.json.data.broker_id).toBe(2);
    expect(remote.json.data.http_port).toBe(sim.cluster.nodes.get(2)!.ports.http);
    expect(remote.json.data).toEqual(sim.cluster.config.view(sim.cluster.nodes.get(2)!));
  });

  it('works in envelope form B too', async () => {
    const sim = new InProcessSim({ nodes: 2 }, { envelope: 'B' });
    const remote = await get(sim, '?broker_id=2');
    expect(remote.json).toMatchObject({ code: 0, error: null, data: { broker_id: 2 } });
  });

  it('fails for an unknown node, a node without HTTP address, and an unreachable node', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const unknown = await get(sim, '?broker_id=9');
    expect(unknown.json).toEqual({ code: 1, message: 'Broker node 9 not found', data: null });

    sim.cluster.nodes.get(2)!.httpAddr = '';
    const noAddr = await get(sim, '?broker_id=2');
    expect(noAddr.json).toEqual({ code: 1, message: 'Broker node 2 has no http_addr registered', data: null });

    sim.cluster.nodes.get(3)!.online = false;
    const offline = await get(sim, '?broker_id=3');
    expect(offline.json.code).toBe(1);
    expect(offline.json.message).toMatch(/^Failed to fetch config from broker 3: /);
    expect(offline.json.message).toContain('ECONNREFUSED');

    const bad = await get(sim, '?broker_id=two');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('broker_id');
  });

  it('reports a failed answer of the target node as a fetch failure', async () => {
    const sim = new InProcessSim({ nodes: 2 });
    const peers = { call: async () => ({ status: 500, body: '{"code":500,"message":"boom","data":null}' }) };
    const { configOfBroker } = await import('./config-forwarding.ts');
    await expect(configOfBroker(sim.cluster, sim.cluster.nodes.get(1)!, 2, peers)).rejects.toThrow(
      'Failed to fetch config from broker 2: HTTP 500: boom',
    );
    const notJson = { call: async () => ({ status: 200, body: '<html>' }) };
    await expect(configOfBroker(sim.cluster, sim.cluster.nodes.get(1)!, 2, notJson)).rejects.toThrow(
      /Failed to fetch config from broker 2: HTTP 200: unexpected body/,
    );
  });
});

describe('config set → get round trips (every type, every node)', () => {
  const QUOTA = { max_connections_per_node: 11, max_connection_rate: 12, max_topics: 13, max_sessions: 14, max_publish_rate: 15 };
  const CASES: Array<{ type: string; set: Record<string, unknown>; key: string; read: Record<string, unknown> }> = [
    {
      type: 'MqttSlowSubscribeConfig',
      set: { enable: true, record_time: 250, delay_type: 'PublishTime' },
      key: 'mqtt_slow_subscribe',
      read: { enable: true, record_time: 250, delay_type: 'Response' },
    },
    {
      type: 'MqttFlappingDetect',
      set: { enable: true, window_time: 90, max_client_connections: 3, ban_time: 120 },
      key: 'mqtt_flapping_detect',
      read: { enable: true, window_time: 90, max_client_connections: 3, ban_time: 120 },
    },
    {
      type: 'MqttProtocol',
      set: {
        max_session_expiry_interval: 100,
        default_session_expiry_interval: 50,
        topic_alias_max: 10,
        max_qos_flight_message: 1,
        max_packet_size: 2048,
        receive_max: 20,
        max_message_expiry_interval: 30,
        client_pkid_persistent: true,
      },
      key: 'mqtt_protocol',
      read: {
        max_session_expiry_interval: 100,
        default_session_expiry_interval: 50,
        topic_alias_max: 10,
        max_qos_flight_message: 1,
        max_packet_size: 2048,
        receive_max: 20,
        max_message_expiry_interval: 30,
        client_pkid_persistent: true,
      },
    },
    {
      type: 'MqttOfflineMessage',
      set: { enable: true, expire_ms: 0, max_messages_num: 0 },
      key: 'mqtt_offline_message',
      read: { enable: true, expire_ms: 0, max_messages_num: 0 },
    },
    {
      type: 'MqttSystemMonitor',
      set: { enable: true, os_cpu_high_watermark: 0.55, os_memory_high_watermark: 0.9, system_topic_interval_ms: 5000 },
      key: 'mqtt_system_monitor',
      read: { enable: true, os_cpu_high_watermark: 55, os_memory_high_watermark: 90, system_topic_interval_ms: 5000 },
    },
    {
      type: 'MqttSchema',
      set: { enable: true, strategy: 'Strict', failed_operation: 'Ignore', echo_log: true, log_level: 'debug' },
      key: 'mqtt_schema',
      read: { enable: true, strategy: 'ALL', failed_operation: 'Ignore', echo_log: true, log_level: 'debug' },
    },
    {
      type: 'MqttLimit',
      set: { cluster: QUOTA, tenant: { ...QUOTA, max_topics: 99 } },
      key: 'mqtt_limit',
      read: { cluster: QUOTA, tenant: { ...QUOTA, max_topics: 99 } },
    },
    {
      type: 'ClusterLimit',
      set: { max_network_connection: 1000, max_network_connection_rate: 100, max_admin_http_uri_rate: 40 },
      key: 'cluster_limit',
      read: { max_network_connection: 1000, max_network_connection_rate: 100, max_admin_http_uri_rate: 40 },
    },
  ];

  for (const c of CASES) {
    it(`${c.type}: the read view of every node shows the value set on node 1`, async () => {
      const sim = new InProcessSim({ nodes: 3 });
      expect((await set(sim, c.type, c.set)).json.data).toBe('success');
      for (const node of sim.cluster.nodes.all()) {
        expect((await get(sim, '', node.id)).json.data[c.key]).toEqual(c.read);
      }
      expect((await get(sim, '?broker_id=3')).json.data[c.key]).toEqual(c.read);
    });
  }

  it('read-view enum names in a set show as their canonical read name', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    await set(sim, 'MqttSlowSubscribeConfig', { delay_type: 'Internal' });
    await set(sim, 'MqttSchema', { strategy: 'Any', failed_operation: 'Discard' });
    const data = (await get(sim)).json.data;
    expect(data.mqtt_slow_subscribe.delay_type).toBe('Response');
    expect(data.mqtt_schema).toMatchObject({ strategy: 'Any', failed_operation: 'DisconnectAndDiscard' });
  });
});

describe('config set: effects', () => {
  it('max_admin_http_uri_rate 3 → the 4th request on a path within a virtual second gets 429; 50 → requests pass again', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    expect((await set(sim, 'ClusterLimit', { max_admin_http_uri_rate: 3 })).json.code).toBe(0);
    sim.advance(1000);
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 4; i++) {
      const res = await sim.get(GET);
      statuses.push(res.status);
      limited = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(limited!.json.code).toBe(429);
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    sim.advance(1000);
    expect((await set(sim, 'ClusterLimit', { max_admin_http_uri_rate: 50 })).json.code).toBe(0);
    sim.advance(1000);
    const again: number[] = [];
    for (let i = 0; i < 10; i++) again.push((await sim.get(GET)).status);
    expect(again.every((s) => s === 200)).toBe(true);
  });

  it('a set through the API takes effect in current() at once and fires onChange', async () => {
    const sim = new InProcessSim({ nodes: 2 });
    const seen: unknown[] = [];
    sim.cluster.config.onChange((c) => seen.push([c.configType, c.current]));
    await set(sim, 'MqttFlappingDetect', { enable: true, max_client_connections: 2 });
    expect(sim.cluster.config.current().MqttFlappingDetect).toEqual({
      enable: true,
      window_time: 60,
      max_client_connections: 2,
      ban_time: 300,
    });
    expect(seen).toEqual([['MqttFlappingDetect', { enable: true, window_time: 60, max_client_connections: 2, ban_time: 300 }]]);
  });

  it('the same API calls give the same trace hash', async () => {
    const run = async () => {
      const sim = new InProcessSim({ nodes: 2, seed: 'cfg' });
      await set(sim, 'MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.5 });
      await set(sim, 'MqttSystemMonitor', { os_cpu_high_watermark: 2 });
      await set(sim, 'MqttLimit', { tenant: { max_topics: 1 } });
      await get(sim, '?broker_id=2');
      return sim.cluster.engine.trace.hash;
    };
    expect(await run()).toBe(await run());
  });
});
