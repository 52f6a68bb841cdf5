/**
 * Per list endpoint, the model writes that change its records: the one place of these generators
 * (the differential test of lists and its soak draw from them). Values come from small pools, so
 * names collide and are prefixes of each other (a, ab, abc), differ only in case (a, A) or are not
 * ASCII (é, 日本), values tie under sorts, and filters hit. Every write is named, so a failing
 * history reads as what it did.
 *
 * Writes that change a field a list shows in place (not a create or delete) are the ones a
 * maintained index must follow: a blacklist upsert (blacklist_type, resource_name, end_time, desc:
 * sort fields among them), a connector stopped or resumed (status, a sort field; broker_id,
 * update_time), a tenant update (desc, config), subscribing again (qos and the other options) and a
 * session resumed on another node (broker_id), a flapping client banned again (its record replaced),
 * a slow subscription observed again (moves last, new time_span), a client reconnecting
 * (connection_id, a sort field) or starting a new session (session create_time, a sort field).
 * Records also leave by time: flapping bans end, mailboxes expire, alarms and the ban log roll over.
 *
 * A new list endpoint needs its writes here, in-place changes included: the differential test fails
 * for a list endpoint without any (docs/lists.md).
 */
import fc from 'fast-check';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { defaultShardConfig } from '../../model/storage/storage-engine.ts';
import type { InProcessSim } from '../in-process-client.ts';

/** A named change of the model (its name is what a failing history shows). */
export interface ListWrite {
  readonly label: string;
  run(cluster: Cluster, sim: InProcessSim): void;
}

const write =
  <A>(kind: string, run: (c: Cluster, args: A, sim: InProcessSim) => void) =>
  (args: A): ListWrite => ({ label: `${kind} ${JSON.stringify(args)}`, run: (c, sim) => run(c, args, sim) });

export const TENANTS = ['default', 'ta', 'tä'];
export const NAMES = ['a', 'ab', 'abc', 'A', 'b', 'é', '日本'];
export const TEXTS = ['', 'a', 'ab', 'B', 'x y', 'é'];
/** Records one bulk write creates: two of them make more than the 1,024 items of one block of a sorted list. */
const BULK = 600;
/** The tenant of the crowds of clients. */
export const CROWD_TENANT = 'crowd';

const tenantArb = fc.constantFrom(...TENANTS);
const nameArb = fc.constantFrom(...NAMES);
const textArb = fc.constantFrom(...TEXTS);

/** Virtual time passes (alarms are sampled, mailboxes expire, flapping bans end). */
export const ADVANCE: fc.Arbitrary<ListWrite> = fc.constantFrom(1_000, 61_000).map(write('advance', (_c, ms, sim) => sim.advance(ms)));

const CONNECT = fc
  .record({ t: tenantArb, n: nameArb, clean: fc.boolean(), expiry: fc.constantFrom(0, 30, 3_600), node: fc.constantFrom(1, 2) })
  .map(
    write('mqtt.connect', (c, { t, n, clean, expiry, node }) => {
      c.mqtt.connect({ tenant: t, clientId: n, cleanStart: clean, sessionExpiry: expiry, nodeId: node });
    }),
  );
const DISCONNECT = fc.record({ t: tenantArb, n: nameArb, clean: fc.boolean() }).map(
  write('mqtt.disconnect', (c, { t, n, clean }) => {
    c.mqtt.disconnect(n, t, { clean });
  }),
);

/**
 * Clients come and go, with or without a session that outlives them; crowds of 40 clients (three
 * of them make more than the 100 records the client and session lists sample) connect and leave,
 * in a tenant of their own (no auto-subscribe rule of the pool's tenants subscribes them).
 */
const MQTT_CLIENT_WRITES: fc.Arbitrary<ListWrite>[] = [
  CONNECT,
  DISCONNECT,
  fc.record({ crowd: fc.nat(3), clean: fc.boolean() }).map(
    write('mqtt.connect-crowd', (c, { crowd, clean }) => {
      for (let i = 0; i < 40; i++)
        c.mqtt.connect({ tenant: CROWD_TENANT, clientId: `crowd${crowd}-${i}`, cleanStart: clean, sessionExpiry: 3_600 });
    }),
  ),
  fc.record({ crowd: fc.nat(3) }).map(
    write('mqtt.disconnect-crowd', (c, { crowd }) => {
      for (let i = 0; i < 40; i++) {
        if (c.mqtt.isConnected(CROWD_TENANT, `crowd${crowd}-${i}`)) c.mqtt.disconnect(`crowd${crowd}-${i}`, CROWD_TENANT, { clean: true });
      }
    }),
  ),
];

/** Connect attempts in bursts (flapping bans when over the limit; a client banned again replaces its record). */
const FLAPPING_WRITES: fc.Arbitrary<ListWrite>[] = [
  fc.record({ t: tenantArb, n: nameArb }).map(
    write('mqtt.flap', (c, { t, n }) => {
      for (let i = 0; i < 3; i++) c.mqtt.flapping.onConnectAttempt(t, n);
    }),
  ),
];

/**
 * Subscribing again changes the options of the subscription in place (qos), and a session resumed
 * on another node moves its subscriptions there (broker_id). Three times as likely as the other
 * writes of the subscription list, so it fills.
 */
const SUBSCRIBE = fc
  .record({
    t: tenantArb,
    n: nameArb,
    p: fc.constantFrom('x/#', 'a/+', 'b', '$share/g/x'),
    qos: fc.constantFrom(0, 1, 2),
    node: fc.constantFrom(1, 2),
  })
  .map(
    write('mqtt.subscribe', (c, { t, n, p, qos, node }) => {
      if (!c.mqtt.isConnected(t, n)) c.mqtt.connect({ tenant: t, clientId: n, cleanStart: false, sessionExpiry: 3_600, nodeId: node });
      c.mqtt.subscribe({ tenant: t, clientId: n, path: p, qos: qos as 0 | 1 | 2 });
    }),
  );

/** Per list endpoint: the writes that change its records. */
export const LIST_WRITES: Readonly<Record<string, readonly fc.Arbitrary<ListWrite>[]>> = {
  'cluster.tenant.list': [
    fc.record({ n: nameArb, d: textArb, q: fc.constantFrom(1, 5, 100) }).map(
      write('tenant.create', (c, { n, d, q }) => {
        c.tenants.create({ tenant_name: n, desc: d, config: { max_topics: q } });
      }),
    ),
    fc.record({ n: nameArb, d: fc.option(textArb, { nil: undefined }), q: fc.constantFrom(2, 5, 100) }).map(
      write('tenant.update', (c, { n, d, q }) => {
        c.tenants.update({ tenant_name: n, desc: d, config: { max_sessions: q } });
      }),
    ),
    nameArb.map(write('tenant.delete', (c, n) => c.tenants.delete(n))),
    // Hundreds of tenants at once, so the indexes hold more than one block of a sorted list.
    fc.oneof(
      fc.record({ bulk: fc.nat(1), d: textArb }).map(
        write('tenant.create-bulk', (c, { bulk, d }) => {
          for (let i = 0; i < BULK; i++)
            if (!c.tenants.has(`bulk${bulk}-${i}`)) c.tenants.create({ tenant_name: `bulk${bulk}-${i}`, desc: `${d}${i % 7}` });
        }),
      ),
      fc.nat(1).map(
        write('tenant.delete-bulk', (c, bulk) => {
          for (let i = 0; i < BULK; i++) if (c.tenants.has(`bulk${bulk}-${i}`)) c.tenants.delete(`bulk${bulk}-${i}`);
        }),
      ),
    ),
  ],
  'cluster.user.list': [
    fc
      .record({ t: tenantArb, n: nameArb, s: fc.boolean() })
      .map(write('user.create', (c, { t, n, s }) => c.users.create({ tenant: t, username: n, password: 'pw', is_superuser: s }))),
    fc.record({ t: tenantArb, n: nameArb }).map(write('user.delete', (c, { t, n }) => c.users.delete(t, n))),
  ],
  'cluster.acl.list': [
    fc
      .record({
        t: tenantArb,
        n: nameArb,
        d: textArb,
        rt: fc.constantFrom('ClientId', 'User', 'Ip' as const),
        rn: nameArb,
        a: fc.constantFrom('Publish', 'Subscribe', 'All' as const),
        p: fc.constantFrom('Allow', 'Deny' as const),
      })
      .map(
        write('acl.create', (c, r) =>
          c.acl.create({
            tenant: r.t,
            name: r.n,
            desc: r.d,
            resource_type: r.rt,
            resource_name: r.rn,
            topic: 'x/#',
            ip: '',
            action: r.a,
            permission: r.p,
          }),
        ),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('acl.delete', (c, { t, n }) => c.acl.delete(t, n))),
  ],
  'cluster.blacklist.list': [
    // An upsert: the same (tenant, name) again replaces type, resource, end time and desc in place.
    fc
      .record({
        t: tenantArb,
        n: nameArb,
        bt: fc.constantFrom('ClientId', 'User', 'IPCIDR' as const),
        rn: nameArb,
        end: fc.constantFrom(0, 1_800_000_000_000, 1_900_000_000_000),
        d: textArb,
      })
      .map(
        write('blacklist.upsert', (c, r) =>
          c.blacklist.add({
            tenant: r.t,
            name: r.n,
            blacklist_type: r.bt,
            resource_name: r.rn,
            endTimeMs: r.end,
            desc: r.d,
            source: 'api',
          }),
        ),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('blacklist.delete', (c, { t, n }) => c.blacklist.delete(t, n))),
  ],
  'cluster.schema.list': [
    fc
      .record({ t: tenantArb, n: nameArb, st: fc.constantFrom('json', 'avro' as const), d: textArb })
      .map(
        write('schema.create', (c, { t, n, st, d }) =>
          c.schemas.create({ tenant: t, name: n, schema_type: st, schema: '{"type":"object"}', desc: d }),
        ),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('schema.delete', (c, { t, n }) => c.schemas.delete(t, n))),
  ],
  'cluster.schema-bind.list': [
    // A bind creates its schema first when there is none.
    fc.record({ t: tenantArb, n: nameArb, r: fc.constantFrom('x/#', 'a', 'b/+') }).map(
      write('schema.bind', (c, { t, n, r }) => {
        if (!c.schemas.get(t, n)) c.schemas.create({ tenant: t, name: n, schema_type: 'json', schema: '{"type":"object"}', desc: '' });
        c.schemas.bind(t, n, r);
      }),
    ),
    fc
      .record({ t: tenantArb, n: nameArb, r: fc.constantFrom('x/#', 'a', 'b/+') })
      .map(write('schema.unbind', (c, { t, n, r }) => c.schemas.unbind(t, n, r))),
  ],
  'cluster.topic-rewrite.list': [
    fc
      .record({ t: tenantArb, n: nameArb, a: fc.constantFrom('All', 'Publish', 'Subscribe' as const), s: nameArb, d: nameArb })
      .map(
        write('topic-rewrite.create', (c, r) =>
          c.rewriteRules.create({ tenant: r.t, name: r.n, desc: '', action: r.a, source_topic: r.s, dest_topic: r.d, regex: '^(.*)$' }),
        ),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('topic-rewrite.delete', (c, { t, n }) => c.rewriteRules.delete(t, n))),
  ],
  'mqtt.auto-subscribe.list': [
    fc
      .record({ t: tenantArb, n: nameArb, topic: nameArb, q: fc.constantFrom(0, 1, 2 as const), rh: fc.constantFrom(0, 1, 2 as const) })
      .map(
        write('auto-subscribe.create', (c, r) =>
          c.autoSubscribe.create({
            tenant: r.t,
            name: r.n,
            desc: '',
            topic: r.topic,
            qos: r.q,
            no_local: r.q === 1,
            retain_as_published: false,
            retained_handling: r.rh,
          }),
        ),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('auto-subscribe.delete', (c, { t, n }) => c.autoSubscribe.delete(t, n))),
  ],
  'cluster.connector.list': [
    fc.record({ t: tenantArb, n: nameArb, topic: fc.constantFrom('x/#', 'a/+', 'b') }).map(
      write('connector.create', (c, { t, n, topic }) => {
        c.connectors.create({
          tenant: t,
          connector_name: n,
          connector_type: 'file',
          config: JSON.stringify({ local_file_path: `/tmp/${n}.log` }),
          topic_name: topic,
          failure_strategy: { strategy: 'discard' },
        } as Parameters<Cluster['connectors']['create']>[0]);
      }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('connector.delete', (c, { t, n }) => c.connectors.delete(t, n))),
    // Stop or resume one of the connectors there are (their status, a sort field, changes in place).
    fc.record({ i: fc.nat(7), stop: fc.boolean() }).map(
      write('connector.stop-or-resume', (c, { i, stop }) => {
        const all = c.connectors.all();
        const one = all[i % Math.max(1, all.length)];
        if (one) void (stop ? c.connectors.stop(one.tenant, one.connector_name) : c.connectors.resume(one.tenant, one.connector_name));
      }),
    ),
  ],
  'storage.shard.list': [
    fc.record({ n: nameArb, topic: fc.option(nameArb, { nil: undefined }) }).map(
      write('shard.create', (c, { n, topic }) => {
        c.storage.createShard({ shard_name: n, topic_name: topic, config: defaultShardConfig(1) });
      }),
    ),
    nameArb.map(write('shard.delete', (c, n) => c.storage.deleteShard(n))),
    fc.record({ t: tenantArb, n: nameArb }).map(
      write('topic.create', (c, { t, n }) => {
        c.topics.create({ tenant: t, topic_name: `topic/${n}`, partition: 1, replication: 1 });
      }),
    ),
  ],
  'cluster.topic.list': [
    fc.record({ t: tenantArb, n: fc.constantFrom(...NAMES, '$sys/a', 'a/$b') }).map(
      write('topic.create', (c, { t, n }) => {
        c.topics.create({ tenant: t, topic_name: n, partition: 1, replication: 1 });
      }),
    ),
    fc
      .record({ t: tenantArb, n: fc.constantFrom(...NAMES, '$sys/a', 'a/$b') })
      .map(write('topic.delete', (c, { t, n }) => c.topics.delete(t, n))),
  ],
  'mqtt.client.list': MQTT_CLIENT_WRITES,
  'mqtt.session.list': MQTT_CLIENT_WRITES,
  'mqtt.subscribe.list': [
    CONNECT,
    DISCONNECT,
    SUBSCRIBE,
    SUBSCRIBE,
    SUBSCRIBE,
    fc.record({ t: tenantArb, n: nameArb, p: fc.constantFrom('x/#', 'a/+', 'b', '$share/g/x') }).map(
      write('mqtt.unsubscribe', (c, { t, n, p }) => {
        c.mqtt.unsubscribe({ tenant: t, clientId: n, path: p });
      }),
    ),
    // Only a reconnect, resuming the session (and its subscriptions) on either node.
    fc.record({ t: tenantArb, n: nameArb, node: fc.constantFrom(1, 2) }).map(
      write('mqtt.resume', (c, { t, n, node }) => {
        if (!c.mqtt.isConnected(t, n)) c.mqtt.connect({ tenant: t, clientId: n, cleanStart: false, sessionExpiry: 3_600, nodeId: node });
      }),
    ),
  ],
  'mqtt.slow-subscribe.list': [
    // Observed again, a record moves last with its new time span.
    fc
      .record({ t: tenantArb, n: nameArb, topic: nameArb, ms: fc.constantFrom(5, 10, 20) })
      .map(
        write('slow-subscribe.observe', (c, { t, n, topic, ms }) =>
          c.mqtt.slowSubscriptions.observe({ tenant: t, clientId: n, topic, path: topic, nodeId: 1, internalMs: ms, sendMs: ms }),
        ),
      ),
    fc
      .record({ t: tenantArb, topic: nameArb })
      .map(write('slow-subscribe.forget-topic', (c, { t, topic }) => c.mqtt.slowSubscriptions.forgetTopic(t, topic))),
  ],
  'mqtt.flapping-detect.list': FLAPPING_WRITES,
  'mqtt.ban-log.list': FLAPPING_WRITES,
  // Alarms are raised by the monitor's samples as virtual time passes (enabled, low watermarks).
  'mqtt.system-alarm.list': [ADVANCE],
  'mq9.mail.list': [
    // Addresses are lowercase letters, digits and dots (the others are refused).
    fc.record({ t: tenantArb, n: fc.constantFrom(...NAMES, 'c1', 'a.b', 'a.bc'), ttl: fc.constantFrom(0, 30, 120), d: textArb }).map(
      write('mq9.mailbox.create', (c, { t, n, ttl, d }) => {
        c.mq9.createMailbox({ tenant: t, name: n, ttl, desc: d });
      }),
    ),
  ],
  'mq9.agent.list': [
    // Registered again, an agent is left as it was (as on the real server).
    fc.record({ t: tenantArb, n: nameArb, info: fc.constantFrom('{"a":1}', '{"b":2}') }).map(
      write('mq9.agent.register', (c, { t, n, info }) => {
        c.mq9.registerAgent({ tenant: t, name: n, agent_info: info });
      }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(write('mq9.agent.unregister', (c, { t, n }) => c.mq9.unregisterAgent(t, n))),
  ],
};

/** The configuration the detector-fed lists need: every delivery slow, two connections a window, alarms at low load. */
export function configureListFeeds(cluster: Cluster): void {
  cluster.config.set('MqttSlowSubscribeConfig', { enable: true, record_time: 1 });
  cluster.config.set('MqttFlappingDetect', { enable: true, max_client_connections: 2, window_time: 60, ban_time: 30 });
  cluster.config.set('MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.05, os_memory_high_watermark: 0.3 });
}
