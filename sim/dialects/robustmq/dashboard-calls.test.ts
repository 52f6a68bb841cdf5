import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { AdminApp } from '../../admin-api/admin-app.ts';
import { interceptOrigin, type Interception } from '../../io/http/intercept.ts';
import { DashboardApi, DashboardRequestError } from './dashboard-client.ts';
import { DIALECTS, type DialectName } from '../../switches/dialects.ts';
import { resolveDeviations } from '../../switches/resolve-switches.ts';

/**
 * Every call of the RobustMQ dashboard's API layer against `mqsim serve --dialect robustmq`, sent the
 * way the dashboard sends it (axios, its default serializer with bracketed keys, page/limit from
 * offset/limit, the token from the `robustmq_token` cookie as a Bearer header, code 0 unwrapped to
 * data) from a peer that is not loopback, so every token is checked. Each call must be answered
 * (code 0), and the fields the UI then reads must be there, of the type it reads them as (where the
 * dashboard dereferences without `?.`, a missing field is a crashed page). Requests reach the
 * simulator's app in-process through @mswjs/interceptors: real axios, no socket.
 */

type Row = Record<string, any>;
const ORIGIN = 'http://broker.test:58080';
/** A documentation address: not loopback, so the dialect's exemption of 127.0.0.0/8 does not apply. */
const PEER = '198.51.100.7';

function boot(dialect: DialectName): { cluster: Cluster; app: AdminApp } {
  const cluster = new Cluster({ seed: 7, workload: 'demo', warmUpMs: 900_000 }).start();
  const d = DIALECTS[dialect];
  return { cluster, app: new AdminApp(cluster, { envelope: d.envelope, deviations: resolveDeviations(d.switches) }) };
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
/** Unix seconds of this century: what `new Date(x * 1000)` shows as a plausible date. */
const isSeconds = (v: unknown) => isNum(v) && v > 1_000_000_000 && v < 10_000_000_000;

function expectList(resp: Row, name: string): Row[] {
  expect(Array.isArray(resp.data), `${name}: data is an array`).toBe(true);
  expect(isNum(resp.total_count), `${name}: total_count is a number`).toBe(true);
  return resp.data as Row[];
}

/** Paths the UI dereferences without optional chaining; each must hold a value. */
function expectPaths(obj: Row, paths: readonly string[], name: string): void {
  for (const p of paths) {
    const v = p.split('.').reduce<any>((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
    expect(v, `${name}: ${p}`).not.toBeUndefined();
    expect(v, `${name}: ${p}`).not.toBeNull();
  }
}

/** config detail page (aa646b17): every field it reads without `?.`, and those it calls toLocaleString/join/length on. */
const CONFIG_PATHS = [
  'cluster_name',
  'broker_id',
  'grpc_port',
  'http_port',
  'roles',
  'log.log_path',
  'log.log_config',
  'runtime.runtime_worker_threads',
  'runtime.server_worker_threads',
  'runtime.meta_worker_threads',
  'runtime.broker_worker_threads',
  'runtime.channels_per_address',
  'runtime.tls_cert',
  'runtime.tls_key',
  'broker_network.accept_thread_num',
  'broker_network.handler_thread_num',
  'broker_network.queue_size',
  'meta_runtime.heartbeat_timeout_ms',
  'meta_runtime.heartbeat_check_time_ms',
  'meta_runtime.raft_write_timeout_sec',
  'meta_runtime.offset_raft_group_num',
  'meta_runtime.data_raft_group_num',
  'meta_runtime.group_offset_expire_sec',
  'mqtt_runtime.default_user',
  'mqtt_runtime.default_password',
  'mqtt_runtime.network.accept_thread_num',
  'mqtt_runtime.network.handler_thread_num',
  'mqtt_runtime.network.queue_size',
  'mqtt_keep_alive.default_time',
  'mqtt_keep_alive.max_time',
  'mqtt_keep_alive.default_timeout',
  'mqtt_protocol.max_session_expiry_interval',
  'mqtt_protocol.default_session_expiry_interval',
  'mqtt_protocol.topic_alias_max',
  'mqtt_protocol.max_packet_size',
  'mqtt_protocol.receive_max',
  'mqtt_protocol.max_message_expiry_interval',
  'mqtt_offline_message.expire_ms',
  'mqtt_offline_message.max_messages_num',
  'mqtt_slow_subscribe.record_time',
  'mqtt_slow_subscribe.delay_type',
  'mqtt_flapping_detect.window_time',
  'mqtt_flapping_detect.max_client_connections',
  'mqtt_flapping_detect.ban_time',
  'mqtt_schema.strategy',
  'mqtt_schema.failed_operation',
  'mqtt_schema.log_level',
  'mqtt_system_monitor.os_cpu_high_watermark',
  'mqtt_system_monitor.os_memory_high_watermark',
  'mqtt_system_monitor.system_topic_interval_ms',
  'mqtt_server.tcp_port',
  'mqtt_server.tls_port',
  'mqtt_server.websocket_port',
  'mqtt_server.websockets_port',
  'mqtt_server.quic_port',
  'storage_runtime.tcp_port',
  'storage_runtime.max_segment_size',
  'storage_runtime.io_thread_num',
  'storage_runtime.expire_scan_task_num',
  'storage_runtime.data_path',
  'storage_runtime.network.accept_thread_num',
  'storage_runtime.network.handler_thread_num',
  'storage_runtime.network.queue_size',
  'cluster_limit.max_network_connection',
  'cluster_limit.max_network_connection_rate',
  'cluster_limit.max_admin_http_uri_rate',
  ...['cluster', 'tenant'].flatMap((q) =>
    ['max_connections_per_node', 'max_connection_rate', 'max_topics', 'max_sessions', 'max_publish_rate'].map(
      (f) => `mqtt_limit.${q}.${f}`,
    ),
  ),
];

describe('the RobustMQ dashboard against --dialect robustmq (every call of its API layer)', () => {
  let cluster: Cluster;
  let interception: Interception;
  let api: DashboardApi;
  const calls = new Set<string>();
  /** Runs one dashboard call by name and records that it ran. */
  const call = <T>(name: string, run: () => Promise<T>): Promise<T> => {
    calls.add(name);
    return run();
  };

  beforeAll(() => {
    const booted = boot('robustmq');
    cluster = booted.cluster;
    interception = interceptOrigin(booted.app, ORIGIN, { peer: PEER });
    api = new DashboardApi({ baseUrl: ORIGIN });
  });
  afterAll(() => interception.dispose());

  it('logs in with the token cookie flow: 401 without a token clears the cookies, login sets them, the Bearer token opens the API', async () => {
    const refused = await api.getTenantList().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DashboardRequestError);
    expect((refused as DashboardRequestError).status).toBe(401);
    expect(api.redirectedTo).toBe('/login');
    const wrong = await api.login('admin', 'wrong').catch((e: unknown) => e);
    expect((wrong as { response?: { status: number; data: Row } }).response?.status).toBe(401);
    expect((wrong as { response: { data: Row } }).response.data).toEqual({
      code: 401,
      data: null,
      message: 'Invalid username or password',
    });
    calls.add('login');
    const { token, expires_in } = await api.login('admin', 'admin');
    expect(token.split('.')).toHaveLength(3);
    expect(expires_in).toBe(28_800);
    expect(api.cookies.get('robustmq_token')).toBe(token);
    expect(api.cookies.get('isAuthenticated')).toBe('true');
    api.redirectedTo = undefined;
    const tenants = await call('getTenantList', () => api.getTenantList({ pagination: { offset: 0, limit: 20 } }));
    const rows = expectList(tenants, 'tenant list');
    // pagination[offset]/pagination[limit] are unknown keys, ignored: the real default page of 10.
    expect(rows.length).toBe(Math.min(10, tenants.total_count));
    for (const t of rows) {
      expect(isStr(t.tenant_name)).toBe(true);
      expect(isSeconds(t.create_time)).toBe(true);
      expect(Object.keys(t.config).sort()).toEqual([
        'max_connections_per_node',
        'max_create_connection_rate_per_second',
        'max_publish_rate',
        'max_sessions',
        'max_topics',
      ]);
    }
    expect(api.redirectedTo).toBeUndefined();
    expect(interception.served).toBeGreaterThanOrEqual(4);
  });

  it('overview, monitor, cluster info and config', async () => {
    const overview = await call('getOverviewStatusData', () => api.getOverviewStatusData());
    for (const f of [
      'message_in_rate',
      'message_out_rate',
      'connection_num',
      'session_num',
      'topic_num',
      'tcp_connection_num',
      'tls_connection_num',
      'websocket_connection_num',
      'quic_connection_num',
      'subscribe_num',
      'exclusive_subscribe_num',
      'exclusive_subscribe_thread_num',
    ]) {
      expect(isNum(overview[f]), `overview.${f}`).toBe(true);
    }
    expect(overview.connection_num).toBeGreaterThan(0);
    // The dashboard JSON.parses placement_status when present: absent (as the real server) or a JSON string.
    if (overview.placement_status) expect(() => JSON.parse(overview.placement_status)).not.toThrow();
    expect(overview.node_list.length).toBe(3);
    for (const dataType of ['connection_num', 'topic_num', 'subscribe_num', 'message_in_num', 'message_out_num', 'message_drop_num']) {
      const points = await call('getMonitorData', () => api.getMonitorData(dataType));
      expect(Array.isArray(points), dataType).toBe(true);
      expect(points.length, dataType).toBeGreaterThan(0);
      for (const p of points) expect(isSeconds(p.date) && isNum(p.value), `${dataType} point ${JSON.stringify(p)}`).toBe(true);
    }
    const info = await call('getClusterStatus', () => api.getClusterStatus());
    expect(isSeconds(info.start_time)).toBe(true);
    expect(Array.isArray(info.nodes)).toBe(true);
    for (const node of info.broker_node_list) {
      expect(isSeconds(node.start_time) && isSeconds(node.register_time)).toBe(true);
      // Object.entries(extend) and then Object.entries(addrs): every value an object.
      for (const [kind, addrs] of Object.entries(node.extend as Row))
        expect(addrs !== null && typeof addrs === 'object', `extend.${kind}`).toBe(true);
      expect(isStr(node.extend.mqtt.mqtt_addr)).toBe(true);
    }
    for (const [group, raft] of Object.entries(info.meta as Row)) {
      expect(typeof raft.running_state === 'object' && 'Ok' in raft.running_state, group).toBe(true);
      expect(Object.keys(raft.membership_config.membership.nodes).length, group).toBeGreaterThan(0);
    }
    for (const brokerId of [undefined, 2]) {
      const config = await call('getClusterConfig', () => api.getClusterConfig(brokerId));
      expectPaths(config, CONFIG_PATHS, `config of ${brokerId ?? 'the local node'}`);
      expect(Array.isArray(config.roles) && Array.isArray(config.storage_runtime.data_path)).toBe(true);
      expect(isNum(config.mqtt_protocol.max_packet_size) && isNum(config.cluster_limit.max_network_connection_rate)).toBe(true);
      if (brokerId) expect(config.broker_id).toBe(brokerId);
    }
  });

  it('clients, sessions, subscriptions, slow subscriptions, flapping and ban log', async () => {
    const clients = expectList(
      await call('getClientListHttp', () =>
        api.getClientListHttp({ pagination: { offset: 0, limit: 20 }, sort: { orderBy: 'connection_id', direction: 1 } }),
      ),
      'client list',
    );
    expect(clients.length).toBeGreaterThan(1);
    expect(clients.length).toBeLessThanOrEqual(20);
    for (const c of clients) {
      expect(isStr(c.client_id) && isNum(c.connection_id)).toBe(true);
      expect(isStr(c.mqtt_connection.tenant) && isStr(c.mqtt_connection.source_ip_addr)).toBe(true);
      if (c.network_connection) expect(isStr(c.network_connection.connection_type) && isStr(c.network_connection.protocol)).toBe(true);
    }
    const one = clients[0];
    // Client detail passes the dashboard's filter object through (filers[0][...]): ignored; it searches the first 100.
    const detail = expectList(
      await call('getClientListHttp', () =>
        api.getClientListHttp({ pagination: { offset: 0, limit: 100 }, filers: [{ field: 'client_id', valueList: [one.client_id] }] }),
      ),
      'client detail',
    );
    expect(detail.some((c) => c.client_id === one.client_id)).toBe(true);
    const sessions = expectList(
      await call('getSessionListHttp', () =>
        api.getSessionListHttp({ pagination: { offset: 0, limit: 20 }, sort_field: 'create_time', sort_by: 'desc' }),
      ),
      'session list',
    );
    expect(sessions.length).toBeGreaterThan(0);
    for (const s of sessions)
      expect(isStr(s.client_id) && isStr(s.tenant) && isNum(s.session_expiry) && isSeconds(s.create_time)).toBe(true);
    const subs = expectList(
      await call('getSubscribeListHttp', () => api.getSubscribeListHttp({ pagination: { offset: 0, limit: 100 } })),
      'subscribe list',
    );
    expect(subs.length).toBeGreaterThan(0);
    for (const s of subs)
      expect(isStr(s.tenant) && isStr(s.client_id) && isStr(s.path) && isStr(s.qos) && typeof s.is_share_sub === 'boolean').toBe(true);
    for (const s of [subs.find((x) => x.is_share_sub), subs.find((x) => !x.is_share_sub)].filter(Boolean) as Row[]) {
      const d = await call('getSubscribeDetail', () => api.getSubscribeDetail({ tenant: s.tenant, client_id: s.client_id, path: s.path }));
      expect(typeof d.share_sub).toBe('boolean');
      expect(d.sub_data.client_id).toBe(s.client_id);
      for (const item of Object.values(d.sub_data.push_subscribe as Row)) expect(isStr(item.topic_name) && isStr(item.qos)).toBe(true);
      for (const t of Object.values(d.sub_data.push_thread as Row))
        expect(isNum(t.push_success_record_num) && isNum(t.push_error_record_num)).toBe(true);
    }
    const slow = expectList(
      await call('getSlowSubscribeListHttp', () => api.getSlowSubscribeListHttp({ pagination: { offset: 0, limit: 20 } })),
      'slow subscribe list',
    );
    for (const s of slow) expect(isStr(s.client_id) && isNum(s.time_span) && isStr(s.create_time)).toBe(true);
    const flapping = expectList(
      await call('getConnectionJitterListHttp', () => api.getConnectionJitterListHttp({ pagination: { offset: 0, limit: 20 } })),
      'flapping list',
    );
    for (const f of flapping) expect(isStr(f.client_id) && isNum(f.before_last_window_connections)).toBe(true);
    const bans = expectList(
      await call('getBanLogListHttp', () => api.getBanLogListHttp({ pagination: { offset: 0, limit: 20 } })),
      'ban log',
    );
    for (const b of bans) expect(isStr(b.resource_name) && isStr(b.end_time) && isStr(b.create_time)).toBe(true);
    const alarms = expectList(
      await call('getSystemAlarmListHttp', () => api.getSystemAlarmListHttp({ pagination: { offset: 0, limit: 20 } })),
      'system alarms',
    );
    for (const a of alarms) expect(isStr(a.name) && isStr(a.message)).toBe(true);
    for (const [type, extra] of [
      ['session_in_num', [undefined, one.client_id]],
      ['session_out_num', [undefined, one.client_id]],
    ] as const) {
      expect(Array.isArray(await call('getMonitorData', () => api.getMonitorData(type, extra[0], extra[1])))).toBe(true);
    }
    const sub = subs[0];
    for (const type of ['subscribe_send_success_num', 'subscribe_send_failure_num']) {
      expect(Array.isArray(await call('getMonitorData', () => api.getMonitorData(type, undefined, sub.client_id, sub.path)))).toBe(true);
    }
  });

  it('tenants, users, ACL, blacklist: create, list, update, delete as the forms send them', async () => {
    await call('createTenant', () =>
      api.createTenant({ tenant_name: 'dash-tenant', desc: 'from the dashboard', config: { max_topics: 100 } }),
    );
    await call('updateTenant', () => api.updateTenant({ tenant_name: 'dash-tenant', desc: 'updated' }));
    await call('createUser', () => api.createUser({ tenant: 'dash-tenant', username: 'dash-user', password: 'pw-1', is_superuser: false }));
    const users = expectList(
      await call('getUserList', () => api.getUserList({ pagination: { offset: 0, limit: 20 }, tenant: 'dash-tenant' })),
      'user list',
    );
    expect(users.map((u) => u.username)).toEqual(['dash-user']);
    expect(isSeconds(users[0].create_time) && users[0].is_superuser === false).toBe(true);
    await call('createAcl', () =>
      api.createAcl({
        tenant: 'dash-tenant',
        name: 'dash-acl',
        desc: '',
        resource_type: 'User',
        resource_name: '*',
        topic: '*',
        ip: '*',
        action: 'All',
        permission: 'Allow',
      }),
    );
    const acls = expectList(
      await call('getAclListHttp', () => api.getAclListHttp({ pagination: { offset: 0, limit: 20 }, tenant: 'dash-tenant' })),
      'acl list',
    );
    expect(acls.map((a) => [a.name, a.permission])).toEqual([['dash-acl', 'Allow']]);
    const endTime = Math.floor(cluster.now() / 1000) + 3600;
    await call('createBlacklist', () =>
      api.createBlacklist({
        tenant: 'dash-tenant',
        name: 'dash-bl',
        blacklist_type: 'ClientId',
        resource_name: 'bad-client',
        end_time: endTime,
        desc: 'x',
      }),
    );
    const bl = expectList(
      await call('getBlacklistListHttp', () => api.getBlacklistListHttp({ pagination: { offset: 0, limit: 20 }, tenant: 'dash-tenant' })),
      'blacklist',
    );
    expect(bl.find((b) => b.name === 'dash-bl')?.end_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await call('deleteBlacklist', () => api.deleteBlacklist({ tenant: 'dash-tenant', name: 'dash-bl' }));
    await call('deleteAcl', () => api.deleteAcl({ tenant: 'dash-tenant', name: 'dash-acl' }));
    await call('deleteUser', () => api.deleteUser({ tenant: 'dash-tenant', username: 'dash-user' }));
    await call('deleteTenant', () => api.deleteTenant({ tenant_name: 'dash-tenant' }));
    expect(expectList(await api.getUserList({ pagination: { offset: 0, limit: 20 }, tenant: 'dash-tenant' }), 'user list').length).toBe(0);
  });

  it('topics, rewrite and auto-subscribe rules, schemas and bindings, messages', async () => {
    const topics = expectList(
      await call('getTopicListHttp', () =>
        api.getTopicListHttp({ pagination: { offset: 0, limit: 100 }, tenant: 'default', topic_type: 'normal' }),
      ),
      'topic list',
    );
    expect(topics.length).toBeGreaterThan(0);
    for (const t of topics)
      expect(isStr(t.topic_id) && isStr(t.topic_name) && isStr(t.storage_type) && isSeconds(t.create_time)).toBe(true);
    const sent = await call('sendMessage', () =>
      api.sendMessage({ tenant: 'default', topic: 'dash/pubsub', payload: 'hello from the dashboard', retain: true }),
    );
    expect(Array.isArray(sent.offsets)).toBe(true);
    const read = await call('readMessages', () => api.readMessages({ tenant: 'default', topic: 'dash/pubsub', offset: 0 }));
    expect(read.messages.map((m: Row) => m.content)).toContain('hello from the dashboard');
    for (const m of read.messages) expect(isNum(m.offset) && isStr(m.content) && isNum(m.timestamp)).toBe(true);
    // Dashboards before the move (d39caf17, aa646b17) post to /api/mqtt/message/*: served too.
    const older = new DashboardApi({ baseUrl: ORIGIN, messagePrefix: '/api/mqtt/message' });
    older.cookies.set('robustmq_token', api.cookies.get('robustmq_token')!);
    await older.sendMessage({ tenant: 'default', topic: 'dash/pubsub', payload: 'from an older dashboard', retain: false });
    expect((await older.readMessages({ tenant: 'default', topic: 'dash/pubsub', offset: 0 })).messages.map((m: Row) => m.content)).toEqual([
      'hello from the dashboard',
      'from an older dashboard',
    ]);
    const detail = await call('getTopicDetail', () => api.getTopicDetail('dash/pubsub', 'default'));
    expect(detail.topic_info.topic_name).toBe('dash/pubsub');
    expect(Array.isArray(detail.sub_list)).toBe(true);
    for (const shard of Object.values(detail.storage_list as Row)) {
      for (const f of ['storage_type', 'replica_num', 'retention_sec', 'max_segment_size'])
        expect(shard.config[f], `storage_list config.${f}`).not.toBeUndefined();
    }
    expect(Array.isArray(await call('getMonitorData', () => api.getMonitorData('topic_in_num', 'dash/pubsub')))).toBe(true);
    // The topic page's schema list: getSchemaBindList(topicName) puts the topic in `tenant` (a dashboard bug): an empty list.
    expect(expectList(await call('getSchemaBindList', () => api.getSchemaBindList('dash/pubsub')), 'schema bind (topic page)').length).toBe(
      0,
    );

    await call('createTopicRewrite', () =>
      api.createTopicRewrite({
        name: 'dash-rw',
        tenant: 'default',
        action: 'All',
        source_topic: 'dash/x/#',
        dest_topic: 'dash/y/$1',
        regex: '^dash/x/(.+)$',
      }),
    );
    const rules = expectList(
      await call('getTopicRewriteListHttp', () => api.getTopicRewriteListHttp({ pagination: { offset: 0, limit: 20 }, name: 'dash-rw' })),
      'rewrite list',
    );
    expect(rules.map((r) => r.regex)).toEqual(['^dash/x/(.+)$']);
    await call('deleteTopicRewrite', () => api.deleteTopicRewrite({ tenant: 'default', name: 'dash-rw' }));
    await call('createAutoSubscribe', () =>
      api.createAutoSubscribe({
        tenant: 'default',
        name: 'dash-auto',
        desc: '',
        topic: 'dash/auto',
        qos: 1,
        no_local: false,
        retain_as_published: false,
        retained_handling: 0,
      }),
    );
    const autos = expectList(
      await call('getAutoSubscribeListHttp', () =>
        api.getAutoSubscribeListHttp({ pagination: { offset: 0, limit: 20 }, name: 'dash-auto' }),
      ),
      'auto-subscribe list',
    );
    expect(autos.map((a) => [a.topic, a.qos])).toEqual([['dash/auto', 'AtLeastOnce']]);
    await call('deleteAutoSubscribe', () => api.deleteAutoSubscribe({ tenant: 'default', name: 'dash-auto' }));

    await call('createSchema', () =>
      api.createSchema({ tenant: 'default', schema_name: 'dash-schema', schema_type: 'json', schema: '{"type":"object"}', desc: 'd' }),
    );
    const schemas = expectList(await call('getSchemaListHttp', () => api.getSchemaListHttp()), 'schema list (no args)');
    expect(schemas.some((s) => s.name === 'dash-schema' && s.schema_type === 'json')).toBe(true);
    await call('createSchemaBind', () =>
      api.createSchemaBind({ tenant: 'default', schema_name: 'dash-schema', resource_name: 'dash/pubsub' }),
    );
    const binds = expectList(await api.getSchemaBindList('default', 'dash/pubsub'), 'schema bind list');
    expect(binds[0]).toMatchObject({ data_type: 'resource', data: ['dash-schema'] });
    // The topic page's unbind sends no tenant: the real ValidatedJson extractor refuses it, and so does the dialect.
    const tenantless = await call('deleteSchemaBind', () =>
      api.deleteSchemaBind({ schema_name: 'dash-schema', resource_name: 'dash/pubsub' }),
    ).catch((e: unknown) => e);
    const refusal = tenantless as DashboardRequestError;
    expect([refusal.status, refusal.code]).toEqual([400, 100]);
    expect((refusal.body as Row).error).toMatch(
      /^JSON parsing failed: Failed to deserialize the JSON body into the target type: missing field `tenant`/,
    );
    // The toast reads `message`, which form B does not have: it shows axios' text.
    expect(refusal.message).toBe('Request failed with status code 400');
    await api.deleteSchemaBind({ tenant: 'default', schema_name: 'dash-schema', resource_name: 'dash/pubsub' });
    await call('deleteSchema', () => api.deleteSchema({ tenant: 'default', schema_name: 'dash-schema' }));
    await call('deleteTopic', () => api.deleteTopic({ topic_name: 'dash/pubsub', tenant: 'default' }));
  });

  it('connectors: create as the form builds it, list sorted by create_time, detail polled, delete', async () => {
    await call('createConnector', () =>
      api.createConnector({
        tenant: 'default',
        connector_name: 'dash-file',
        connector_type: 'file',
        config: JSON.stringify({ local_file_path: '/tmp/dash.log', rotation_strategy: 'none', max_size_gb: 1 }),
        topic_name: 'dash/conn',
        failure_strategy: { strategy: 'discard' },
      }),
    );
    cluster.engine.advance(5_000);
    const list = expectList(
      await call('getConnectorListHttp', () =>
        api.getConnectorListHttp({ pagination: { offset: 0, limit: 20 }, sort_field: 'create_time', sort_by: 'desc' } as never, 'default'),
      ),
      'connector list',
    );
    const mine = list.find((c) => c.connector_name === 'dash-file');
    expect(mine).toBeDefined();
    for (const c of list) expect(isStr(c.status) && isStr(c.connector_type) && isStr(c.create_time)).toBe(true);
    expect(mine!.status).toBe('Running');
    const detail = await call('getConnectorDetail', () => api.getConnectorDetail({ tenant: 'default', connector_name: 'dash-file' }));
    expect(isNum(detail.send_success_total) && isNum(detail.send_fail_total) && isNum(detail.last_send_time)).toBe(true);
    for (const type of ['connector_send_success_total', 'connector_send_failure_total']) {
      expect(
        Array.isArray(await call('getMonitorData', () => api.getMonitorData(type, undefined, undefined, undefined, 'dash-file'))),
      ).toBe(true);
    }
    await call('deleteConnector', () => api.deleteConnector({ tenant: 'default', connector_name: 'dash-file' }));
  });

  it('mq9 mailboxes and agents, in the units the list pages read', async () => {
    const mail = expectList(
      await call('getMailboxList', () => api.getMailboxList({ pagination: { offset: 0, limit: 20 } })),
      'mailbox list',
    );
    expect(mail.length).toBeGreaterThan(0);
    // The mailbox page shows new Date(create_time * 1000): seconds, as the real server sends.
    for (const m of mail) expect(isSeconds(m.create_time) && isNum(m.ttl) && isStr(m.mail_address)).toBe(true);
    const detail = expectList(
      await api.getMailboxList({ pagination: { offset: 0, limit: 1000 }, mail_address: mail[0].mail_address }),
      'mailbox detail',
    );
    expect(detail.some((m) => m.mail_address === mail[0].mail_address)).toBe(true);
    const agents = expectList(await call('getAgentList', () => api.getAgentList({ pagination: { offset: 0, limit: 1000 } })), 'agent list');
    expect(agents.length).toBeGreaterThan(0);
    for (const a of agents) {
      expect(isStr(a.agent_info)).toBe(true);
      // The agent page reads create_time as milliseconds; the real server (and the dialect) sends seconds.
      expect(isSeconds(a.create_time)).toBe(true);
    }
  });

  it('storage engine: shard list (both record forms), segment list and detail', async () => {
    const shards = await call('getShardList', () => api.getShardList({ pagination: { offset: 0, limit: 20 } }));
    const rows = expectList(shards, 'shard list');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const s = row.shard_info;
      expect(
        isStr(s.shard_name) &&
          isStr(s.topic_name) &&
          isStr(s.config.storage_type) &&
          isNum(s.offset.start_offset) &&
          isNum(s.offset.end_offset),
      ).toBe(true);
      // Older server (the list page): extend.StorageEngine; snapshot: shard.
      expect(s.extend.StorageEngine.status).toBe('Run');
      expect(isSeconds(s.extend.StorageEngine.create_time)).toBe(true);
      expect(s.shard).toEqual(s.extend.StorageEngine);
    }
    const name = rows[0].shard_info.shard_name;
    const one = expectList(await api.getShardList({ pagination: { offset: 0, limit: 1000 }, shard_name: name }), 'shard detail');
    expect(one.map((r) => r.shard_info.shard_name)).toContain(name);
    const segments = await call('getSegmentList', () => api.getSegmentList(name));
    expect(segments.segment_list.length).toBeGreaterThan(0);
    const seg = segments.segment_list[0].segment;
    expect(isNum(seg.segment_seq) && isNum(seg.leader) && Array.isArray(seg.isr) && isStr(seg.status)).toBe(true);
    const detail = await call('getSegmentDetail', () => api.getSegmentDetail(name, seg.segment_seq));
    expect(detail.replicas.length).toBeGreaterThan(0);
    for (const r of detail.replicas) {
      // Read without `?.`: present on every replica, leader or not.
      expect(Array.isArray(r.follower_progress)).toBe(true);
      expect(typeof r.is_leader === 'boolean' && typeof r.available === 'boolean').toBe(true);
    }
  });

  it('made every call of the API layer', () => {
    const layer = Object.getOwnPropertyNames(DashboardApi.prototype).filter((n) => n !== 'constructor' && n !== 'requestApi');
    expect(layer.filter((n) => !calls.has(n))).toEqual([]);
    // login and the 51 service functions that send a request (getOverviewMetricsData is six getMonitorData calls).
    expect(layer.length).toBe(52);
  });
});

describe('the same dashboard against the spec dialect: why --dialect robustmq exists', () => {
  it("breaks where the dashboard reads the real server's forms", async () => {
    const { app } = boot('spec');
    const interception = interceptOrigin(app, ORIGIN, { peer: PEER });
    try {
      const api = new DashboardApi({ baseUrl: ORIGIN });
      await api.login('admin', 'admin');
      // The overview's placement_status is the spec's plain "Leader"/"Follower": JSON.parse throws, the 16 cards stay 0.
      const overview = await api.getOverviewStatusData();
      expect(() => JSON.parse(overview.placement_status)).toThrow();
      // extend is the spec's byte array: Object.entries gives numbers, not the address objects the node page lists.
      const info = await api.getClusterStatus();
      expect(Array.isArray(info.broker_node_list[0].extend)).toBe(true);
      // The configuration page dereferences broker_network without `?.`.
      expect((await api.getClusterConfig()).broker_network).toBeUndefined();
      // Mailbox create_time in the spec's milliseconds, shown as seconds: tens of thousands of years ahead.
      const mail = (await api.getMailboxList({ pagination: { offset: 0, limit: 20 } })).data as Row[];
      expect(new Date(mail[0].create_time * 1000).getUTCFullYear()).toBeGreaterThan(50_000);
    } finally {
      interception.dispose();
    }
  });
});
