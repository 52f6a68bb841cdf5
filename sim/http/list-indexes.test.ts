/**
 * Every list endpoint served from maintained sorted indexes answers exactly what the straightforward
 * full-array query answers (filter, stable sort, page over every record as a view): random model
 * operations interleaved with random queries (so indexes built by one query are kept up to date by
 * the writes after it), compared query by query, including the refusals. The same queries go through
 * the app too, each twice, in verification mode: an answer kept since an earlier query (kept-answers.ts)
 * is computed afresh and must be the same, so a stamp that missed a write fails here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointById } from '../../fixtures/contract/index.ts';
import { IndexedList } from '../api/indexed-list.ts';
import { applyListQuery } from '../api/list-query.ts';
import { OperationError } from '../api/operation-error.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { defaultShardConfig } from '../storage/storage-engine.ts';
import { HANDLERS } from './handlers/index.ts';
import type { HandlerContext, PeerTransport } from './handler-types.ts';
import { InProcessSim } from './in-process-client.ts';

type Op = (c: Cluster, sim: InProcessSim) => void;

/** Small value pools, so names collide, values tie under sorts and filters hit. */
const TENANTS = ['default', 'ta'];
const NAMES = ['a', 'b', 'ab', 'C'];
const TEXT = ['', 'a', 'b', 'ab', 'x y'];
const VALUES = [...new Set([...TENANTS, ...NAMES, ...TEXT, 'true', 'false', '1', '0', 'Allow', 'json', '2026', ':'])].filter(Boolean);

const tenantArb = fc.constantFrom(...TENANTS);
const nameArb = fc.constantFrom(...NAMES);
const textArb = fc.constantFrom(...TEXT);
const advance: fc.Arbitrary<Op> = fc.constantFrom(1_000, 61_000).map((ms) => (_c, sim) => sim.advance(ms));

/** Clients come and go, with or without a session that outlives them. */
const MQTT_CLIENT_WRITES: fc.Arbitrary<Op>[] = [
  fc.record({ t: tenantArb, n: nameArb, clean: fc.boolean(), expiry: fc.constantFrom(0, 30, 3_600) }).map(
    ({ t, n, clean, expiry }) =>
      (c: Cluster) =>
        void c.mqtt.connect({ tenant: t, clientId: n, cleanStart: clean, sessionExpiry: expiry }),
  ),
  fc.record({ t: tenantArb, n: nameArb, clean: fc.boolean() }).map(
    ({ t, n, clean }) =>
      (c: Cluster) =>
        void c.mqtt.disconnect(n, t, { clean }),
  ),
];

/** Connect attempts in bursts (flapping bans when over the limit) and bans ending as time passes. */
const FLAPPING_WRITES: fc.Arbitrary<Op>[] = [
  fc.record({ t: tenantArb, n: nameArb }).map(({ t, n }) => (c: Cluster) => {
    for (let i = 0; i < 3; i++) c.mqtt.flapping.onConnectAttempt(t, n);
  }),
];

/**
 * Subscribing again changes the options of the subscription in place (qos), and a session resumed
 * on another node moves its subscriptions there (broker_id). Three times as likely as the other
 * writes of the subscription list, so it fills.
 */
const SUBSCRIBE: fc.Arbitrary<Op> = fc
  .record({
    t: tenantArb,
    n: nameArb,
    p: fc.constantFrom('x/#', 'a/+', 'b', '$share/g/x'),
    qos: fc.constantFrom(0, 1, 2),
    node: fc.constantFrom(1, 2),
  })
  .map(({ t, n, p, qos, node }) => (c: Cluster) => {
    if (!c.mqtt.isConnected(t, n)) c.mqtt.connect({ tenant: t, clientId: n, cleanStart: false, sessionExpiry: 3_600, nodeId: node });
    c.mqtt.subscribe({ tenant: t, clientId: n, path: p, qos: qos as 0 | 1 | 2 });
  });
const SUBSCRIBES = [SUBSCRIBE, SUBSCRIBE, SUBSCRIBE];

/** Per list endpoint: the writes that change its records. */
const WRITES: Record<string, fc.Arbitrary<Op>[]> = {
  'cluster.tenant.list': [
    fc.record({ n: nameArb, d: textArb, q: fc.constantFrom(1, 5, 100) }).map(
      ({ n, d, q }) =>
        (c: Cluster) =>
          void c.tenants.create({ tenant_name: n, desc: d, config: { max_topics: q } }),
    ),
    fc.record({ n: nameArb, d: fc.option(textArb, { nil: undefined }), q: fc.constantFrom(2, 5, 100) }).map(
      ({ n, d, q }) =>
        (c: Cluster) =>
          void c.tenants.update({ tenant_name: n, desc: d, config: { max_sessions: q } }),
    ),
    nameArb.map((n) => (c: Cluster) => c.tenants.delete(n)),
  ],
  'cluster.user.list': [
    fc.record({ t: tenantArb, n: nameArb, s: fc.boolean() }).map(
      ({ t, n, s }) =>
        (c: Cluster) =>
          c.users.create({ tenant: t, username: n, password: 'pw', is_superuser: s }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.users.delete(t, n),
    ),
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
        (r) => (c: Cluster) =>
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
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.acl.delete(t, n),
    ),
  ],
  'cluster.blacklist.list': [
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
        (r) => (c: Cluster) =>
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
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.blacklist.delete(t, n),
    ),
  ],
  'cluster.schema.list': [
    fc.record({ t: tenantArb, n: nameArb, st: fc.constantFrom('json', 'avro' as const), d: textArb }).map(
      ({ t, n, st, d }) =>
        (c: Cluster) =>
          c.schemas.create({ tenant: t, name: n, schema_type: st, schema: '{"type":"object"}', desc: d }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.schemas.delete(t, n),
    ),
  ],
  'cluster.topic-rewrite.list': [
    fc
      .record({ t: tenantArb, n: nameArb, a: fc.constantFrom('All', 'Publish', 'Subscribe' as const), s: nameArb, d: nameArb })
      .map(
        (r) => (c: Cluster) =>
          c.rewriteRules.create({ tenant: r.t, name: r.n, desc: '', action: r.a, source_topic: r.s, dest_topic: r.d, regex: '^(.*)$' }),
      ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.rewriteRules.delete(t, n),
    ),
  ],
  'mqtt.auto-subscribe.list': [
    fc
      .record({ t: tenantArb, n: nameArb, topic: nameArb, q: fc.constantFrom(0, 1, 2 as const), rh: fc.constantFrom(0, 1, 2 as const) })
      .map(
        (r) => (c: Cluster) =>
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
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.autoSubscribe.delete(t, n),
    ),
  ],
  'cluster.connector.list': [
    fc.record({ t: tenantArb, n: nameArb, topic: fc.constantFrom('x/#', 'a/+', 'b') }).map(
      ({ t, n, topic }) =>
        (c: Cluster) =>
          void c.connectors.create({
            tenant: t,
            connector_name: n,
            connector_type: 'file',
            config: JSON.stringify({ local_file_path: `/tmp/${n}.log` }),
            topic_name: topic,
            failure_strategy: { strategy: 'discard' },
          } as Parameters<Cluster['connectors']['create']>[0]),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.connectors.delete(t, n),
    ),
    // Stop or resume one of the connectors there are (their status changes in place).
    fc.tuple(fc.nat(7), fc.boolean()).map(([i, stop]) => (c: Cluster) => {
      const all = c.connectors.all();
      const one = all[i % Math.max(1, all.length)];
      if (one) void (stop ? c.connectors.stop(one.tenant, one.connector_name) : c.connectors.resume(one.tenant, one.connector_name));
    }),
  ],
  'storage.shard.list': [
    fc.record({ n: nameArb, topic: fc.option(nameArb, { nil: undefined }) }).map(
      ({ n, topic }) =>
        (c: Cluster) =>
          void c.storage.createShard({ shard_name: n, topic_name: topic, config: defaultShardConfig(1) }),
    ),
    nameArb.map((n) => (c: Cluster) => c.storage.deleteShard(n)),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          void c.topics.create({ tenant: t, topic_name: `topic/${n}`, partition: 1, replication: 1 }),
    ),
  ],
  'cluster.topic.list': [
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          void c.topics.create({ tenant: t, topic_name: n, partition: 1, replication: 1 }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.topics.delete(t, n),
    ),
  ],
  'mqtt.client.list': MQTT_CLIENT_WRITES,
  'mqtt.session.list': MQTT_CLIENT_WRITES,
  'mqtt.subscribe.list': [
    ...MQTT_CLIENT_WRITES,
    ...SUBSCRIBES,
    fc.record({ t: tenantArb, n: nameArb, p: fc.constantFrom('x/#', 'a/+', 'b', '$share/g/x') }).map(
      ({ t, n, p }) =>
        (c: Cluster) =>
          void c.mqtt.unsubscribe({ tenant: t, clientId: n, path: p }),
    ),
    // Only a reconnect, resuming the session (and its subscriptions) on either node.
    fc.record({ t: tenantArb, n: nameArb, node: fc.constantFrom(1, 2) }).map(({ t, n, node }) => (c: Cluster) => {
      if (!c.mqtt.isConnected(t, n)) c.mqtt.connect({ tenant: t, clientId: n, cleanStart: false, sessionExpiry: 3_600, nodeId: node });
    }),
  ],
  'mqtt.slow-subscribe.list': [
    fc.record({ t: tenantArb, n: nameArb, topic: nameArb, ms: fc.constantFrom(5, 10, 20) }).map(
      ({ t, n, topic, ms }) =>
        (c: Cluster) =>
          c.mqtt.slowSubscriptions.observe({ tenant: t, clientId: n, topic, path: topic, nodeId: 1, internalMs: ms, sendMs: ms }),
    ),
    fc.record({ t: tenantArb, topic: nameArb }).map(
      ({ t, topic }) =>
        (c: Cluster) =>
          c.mqtt.slowSubscriptions.forgetTopic(t, topic),
    ),
  ],
  'mqtt.flapping-detect.list': FLAPPING_WRITES,
  'mqtt.ban-log.list': FLAPPING_WRITES,
  // Alarms are raised by the monitor's samples as virtual time passes (enabled, low watermarks).
  'mqtt.system-alarm.list': [advance],
  'mq9.mail.list': [
    fc.record({ t: tenantArb, n: fc.constantFrom('a', 'b', 'ab', 'c1'), ttl: fc.constantFrom(0, 30, 120), d: textArb }).map(
      ({ t, n, ttl, d }) =>
        (c: Cluster) =>
          void c.mq9.createMailbox({ tenant: t, name: n, ttl, desc: d }),
    ),
  ],
  'mq9.agent.list': [
    fc.record({ t: tenantArb, n: nameArb, info: fc.constantFrom('{"a":1}', '{"b":2}') }).map(
      ({ t, n, info }) =>
        (c: Cluster) =>
          void c.mq9.registerAgent({ tenant: t, name: n, agent_info: info }),
    ),
    fc.record({ t: tenantArb, n: nameArb }).map(
      ({ t, n }) =>
        (c: Cluster) =>
          c.mq9.unregisterAgent(t, n),
    ),
  ],
};

/** Present one time in `every`: queries mostly page and sort, and filter now and then. */
const sometimes = <T>(arb: fc.Arbitrary<T>, every = 4): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Random queries of an endpoint from its contract: its named filters, sort fields and record fields. */
function queryArb(id: string): fc.Arbitrary<Record<string, unknown>> {
  const e = endpointById(id);
  const fields = Object.keys((e.response.data as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const named = Object.fromEntries(e.params.filter((p) => p.match).map((p) => [p.name, sometimes(fc.constantFrom(...VALUES), 5)]));
  return fc
    .record({
      ...named,
      limit: sometimes(fc.constantFrom(0, 1, 2, 3, 7), 2),
      page: sometimes(fc.integer({ min: 0, max: 4 }), 2),
      // 'nope' is no sort field (ignored); 'sideways' sorts descending (decisions).
      sort_field: sometimes(fc.constantFrom(...e.list!.sortFields, 'nope'), 2),
      sort_by: sometimes(fc.constantFrom('asc', 'desc', 'sideways'), 2),
      filter_field: sometimes(fc.constantFrom(...fields, 'nope'), 3),
      filter_values: fc.array(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 2 }),
      exact_match: sometimes(fc.constantFrom('true', 'false'), 2),
    })
    .map((q) => Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)));
}

const outcome = (run: () => unknown): unknown => {
  try {
    return { ok: run() };
  } catch (e) {
    if (e instanceof OperationError) return { error: e.message };
    throw e;
  }
};

const noPeers: PeerTransport = {
  call: () => Promise.reject(new Error('no peer calls in a list')),
};

/** Runs the steps, comparing the indexed answer with the full-array answer at every query; the largest list seen. */
async function checkList(id: string, steps: ({ op: Op } | { query: Record<string, unknown> })[]): Promise<number> {
  let largest = 0;
  /** Queries asked before: asked again at every query step, after the writes since (kept matches must not outlive them). */
  const asked: Record<string, unknown>[] = [];
  const endpoint = endpointById(id);
  const fields = Object.keys((endpoint.response.data as { properties: Record<string, unknown> }).properties);
  const sim = new InProcessSim(
    { seed: 'list-indexes', workload: 'none', nodes: id === 'mqtt.subscribe.list' ? 2 : 1 },
    { verifyWriters: true },
  );
  sim.advance(5_000);
  const { cluster } = sim;
  // The lists fed by detectors: every delivery slow, two connections a window, alarms at low load.
  cluster.config.set('MqttSlowSubscribeConfig', { enable: true, record_time: 1 });
  cluster.config.set('MqttFlappingDetect', { enable: true, max_client_connections: 2, window_time: 60, ban_time: 30 });
  cluster.config.set('MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.05, os_memory_high_watermark: 0.3 });
  const node = cluster.nodes.get(1)!;
  for (const step of steps) {
    if ('op' in step) {
      outcome(() => step.op(cluster, sim));
      continue;
    }
    // The handler gets validated parameters: the contract's defaults (e.g. topic_type) filled in.
    const defaults = Object.fromEntries(endpoint.params.filter((p) => p.default !== undefined).map((p) => [p.name, p.default]));
    const ctx: HandlerContext = { cluster, node, params: { ...defaults, ...step.query }, endpoint, peers: noPeers };
    const list = HANDLERS[id as keyof typeof HANDLERS](ctx);
    expect(list).toBeInstanceOf(IndexedList);
    const indexed = list as IndexedList<unknown, object>;
    largest = Math.max(largest, indexed.toArray().length);
    asked.push(step.query);
    // This query, then the last ones again (twice: the second answer may come from kept matches).
    for (const query of [step.query, ...asked.slice(-5), step.query]) {
      const viaIndex = outcome(() => applyListQuery(indexed, query, endpoint.params, endpoint.list!, fields));
      const viaArray = outcome(() => applyListQuery(indexed.toArray(), query, endpoint.params, endpoint.list!, fields));
      expect(viaIndex).toEqual(viaArray);
    }
    // Through the app (parameters as a JSON body), the same queries: an answer kept since an earlier
    // step must have been dropped by the writes since (verification mode computes it afresh).
    for (const query of [step.query, ...asked.slice(-5), step.query]) {
      const expected = outcome(() => applyListQuery(indexed.toArray(), query, endpoint.params, endpoint.list!, fields));
      const viaApp = await sim.call(endpoint.method, endpoint.path, query);
      expect(viaApp.status, viaApp.text).not.toBe(500);
      if (viaApp.json?.code === 0 && 'ok' in (expected as object))
        expect(viaApp.json.data).toEqual(JSON.parse(JSON.stringify((expected as { ok: unknown }).ok)));
    }
    // Every sort order in full, so each field index is built early and checked after every write.
    for (const sort_field of endpoint.list!.sortFields) {
      for (const sort_by of ['asc', 'desc']) {
        const q = { sort_field, sort_by, limit: 10_000 };
        expect(applyListQuery(indexed, q, endpoint.params, endpoint.list!, fields)).toEqual(
          applyListQuery(indexed.toArray(), q, endpoint.params, endpoint.list!, fields),
        );
      }
    }
  }
  return largest;
}

describe('list endpoints served from maintained indexes', () => {
  for (const [id, writes] of Object.entries(WRITES)) {
    it(`${id}: the indexed page equals filter/sort/page over the full array`, async () => {
      let largest = 0;
      const step = fc.oneof(
        { weight: 3, arbitrary: fc.oneof(...writes, advance).map((op) => ({ op })) },
        { weight: 2, arbitrary: queryArb(id).map((query) => ({ query })) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
          largest = Math.max(largest, await checkList(id, steps));
        }),
        // A fixed seed per list (LIST_SEED to explore others), so the fill check below is stable.
        { numRuns: Number(process.env.LIST_RUNS ?? 100), seed: Number(process.env.LIST_SEED ?? 14) },
      );
      // The writes did fill the list (a check over empty lists would prove nothing).
      expect(largest).toBeGreaterThanOrEqual(3);
    });
  }
});
