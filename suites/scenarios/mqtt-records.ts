import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  inconclusive,
  pass,
  skip,
  succeeded,
  type Verdict,
} from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { Scenario } from './scenario-suite.ts';
import { dataOf, readList, type Row, totalOf } from '../conform/check-helpers.ts';

/**
 * Scenarios of the MQTT family (mqtt.ts) about the records the lists and the subscription detail
 * show: the client list's total_count before its client_id filter (spec), disconnected clients whose
 * session lives, the optional session fields, and the subscription detail's keys, group leader and
 * unknown subscriptions (reference notes and the project's decisions, INFO). All read what the
 * target already holds (the demo workload, or any server's clients): no MQTT client is needed.
 */

async function detailOf(ctx: ConformContext, row: Row): Promise<Exchange | undefined> {
  const e = ctx.endpoint('GET', '/api/mqtt/subscribe/detail');
  return e ? ctx.call(e, { tenant: row.tenant, client_id: row.client_id, path: row.path }) : undefined;
}

const shared = (row: Row) => row.is_share_sub === true || String(row.path).startsWith('$share/');

/** Does an MQTT topic filter (a `$share/<group>/` prefix dropped) match a concrete topic? */
function filterMatches(filter: string, topic: string): boolean {
  const f = (filter.startsWith('$share/') ? filter.split('/').slice(2).join('/') : filter).split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

/** Runs a comparison of two reads twice before failing it: a live target's clients come and go between them. */
async function settled(law: () => Promise<Verdict>): Promise<Verdict> {
  const first = await law();
  return first.status === 'fail' ? law() : first;
}

/** The value of a sample without labels in Prometheus text, or undefined. */
function sampleValue(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{}`));
  const v = line ? Number(line.trim().split(/\s+/)[1]) : NaN;
  return Number.isFinite(v) ? v : undefined;
}

export const MQTT_RECORD_SCENARIOS: readonly Scenario[] = [
  {
    endpoint: 'GET /metrics',
    checks: ['metrics.names'],
    assertion: 'decision.metrics.names',
    async run(ctx, e, _env) {
      // Decision: the simulator's metric names (mqtt_connection_num = the overview's connection_num), text/plain; version=0.0.4.
      const overview = ctx.endpoint('GET', '/api/mqtt/overview');
      await ctx.check(e, 'metrics.names', 'decision.metrics.names', async () =>
        settled(async () => {
          if (!overview) return skip('the contract has no overview to compare with');
          const ex = await ctx.send({ method: 'GET', path: e.path }, 'check', e.id);
          if (ex.response?.status !== 200) return skip(`GET /metrics did not answer (${describeAnswer(ex)}); see its happy-path check`);
          const type = ex.response.headers['content-type'] ?? '';
          if (!/^text\/plain/i.test(type) || !/version=0\.0\.4/.test(type))
            return fail(`Content-Type ${JSON.stringify(type)}, not text/plain; version=0.0.4`, ex);
          const metric = sampleValue(ex.response.text, 'mqtt_connection_num');
          if (metric === undefined) return fail('no mqtt_connection_num sample in the exposition', ex);
          const o = await ctx.call(overview, {});
          const count = dataOf(o)?.connection_num;
          if (typeof count !== 'number') return skip(`the overview shows no connection_num (${describeAnswer(o)})`);
          if (metric !== count) return fail(`mqtt_connection_num is ${metric}, the overview's connection_num ${count}`, ex);
          return pass(`mqtt_connection_num ${metric} = the overview's connection_num; Content-Type ${type}`);
        }),
      );
    },
  },
  {
    endpoint: 'GET /api/mqtt/client/list',
    checks: ['client.total-count-before-filter', 'client.disconnected-with-session'],
    assertion: 'endpoints.client.list.total-count',
    async run(ctx, e) {
      // Spec: "`total_count` is the real total of the tenant or cluster" (before the client_id filter and the sample).
      await ctx.check(e, 'client.total-count-before-filter', 'endpoints.client.list.total-count', async () =>
        settled(async () => {
          const all = await readList(ctx, e.path, {});
          const total = all ? totalOf(all.ex) : undefined;
          if (!all || total === undefined)
            return skip(`the client list gave no total_count (${all ? describeAnswer(all.ex) : 'no endpoint'})`);
          const pick = all.rows.find((r) => typeof r.client_id === 'string' && r.client_id.length > 0);
          if (!pick) return skip('no client to filter on');
          const one = await readList(ctx, e.path, { client_id: pick.client_id });
          const filtered = one ? totalOf(one.ex) : undefined;
          if (!one || filtered === undefined)
            return fail(`the list filtered by client_id gave no total_count: ${one ? describeAnswer(one.ex) : 'no answer'}`, one?.ex);
          if (filtered !== total)
            return fail(
              `total_count is ${filtered} with client_id=${String(pick.client_id)} but ${total} without: it is the real total of the cluster, before the client_id filter`,
              one.ex,
            );
          // Only a filter that left records out tells the real total from the filtered count.
          return pass(
            `total_count ${total} with and without client_id=${String(pick.client_id)} (${one.rows.length} of ${all.rows.length} records returned)`,
            undefined,
            one.rows.length >= all.rows.length || one.rows.length >= total,
          );
        }),
      );
      // Decision: disconnected clients whose session lives are listed, with network_connection and heartbeat null and is_login false.
      await ctx.check(e, 'client.disconnected-with-session', 'decision.client.disconnected-listed', async () => {
        const sessions = await readList(ctx, '/api/mqtt/session/list', {});
        const clients = await readList(ctx, e.path, {});
        if (!sessions || !clients || !succeeded(sessions.ex) || !succeeded(clients.ex))
          return skip('the session or client list could not be read');
        const lingering = sessions.rows.filter((s) => s.connection_id === null);
        if (lingering.length === 0)
          return inconclusive('no session without a connection: no disconnected client whose session lives to look for');
        const complete = (totalOf(clients.ex) ?? 0) <= clients.rows.length;
        const key = (r: Row) => `${String(r.tenant)}/${String(r.client_id)}`;
        const byKey = new Map(clients.rows.map((r) => [key(r), r]));
        const problems: string[] = [];
        let seen = 0;
        for (const s of lingering) {
          const c = byKey.get(key(s));
          if (!c) {
            if (complete) problems.push(`${key(s)} has a session but is not in the client list`);
            continue;
          }
          seen++;
          const login = (c.mqtt_connection as Row | null | undefined)?.is_login;
          if (c.network_connection !== null || c.heartbeat !== null || login !== false)
            problems.push(
              `${key(s)} is disconnected but listed with ${JSON.stringify({ network_connection: c.network_connection === null ? null : 'set', heartbeat: c.heartbeat === null ? null : 'set', is_login: login })}`,
            );
        }
        if (problems.length > 0)
          return fail(
            `${problems.length} of ${lingering.length} disconnected clients with a session: ${problems.slice(0, 3).join('; ')}`,
            clients.ex,
          );
        return pass(
          `${seen} disconnected clients with a living session are listed with network_connection and heartbeat null, is_login false`,
          undefined,
          seen === 0,
        );
      });
    },
  },
  {
    endpoint: 'GET /api/mqtt/session/list',
    checks: ['session.optional-fields-present'],
    assertion: 'decision.session.optional-null',
    async run(ctx, e, env) {
      await ctx.check(e, 'session.optional-fields-present', 'decision.session.optional-null', () => {
        const rows =
          env.happy && succeeded(env.happy) ? (((envelopeOf(env.happy)?.data as { data?: unknown } | undefined)?.data ?? []) as Row[]) : [];
        if (rows.length === 0) return skip('no session record to look at');
        const schema = (e.response.data ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
        const optional = Object.keys(schema.properties ?? {}).filter((k) => !(schema.required ?? []).includes(k));
        const missing = rows.flatMap((r) => optional.filter((k) => !(k in r)).map((k) => `${String(r.client_id)}: ${k}`));
        if (missing.length > 0)
          return fail(`optional session fields are left out instead of null: ${missing.slice(0, 5).join(', ')}`, env.happy);
        // Only a record where one of them does not apply shows the server writes null rather than leaving it out.
        const nulls = rows.filter((r) => optional.some((k) => r[k] === null)).length;
        return pass(`${rows.length} sessions carry ${optional.join(', ')} (${nulls} with a null among them)`, undefined, nulls === 0);
      });
    },
  },
  {
    endpoint: 'GET /api/mqtt/subscribe/detail',
    checks: ['subscribe.detail-leader-info', 'subscribe.detail-push-keys', 'subscribe.detail-unknown'],
    assertion: 'notes.shape.group-leader-info',
    async run(ctx, e) {
      const rows = (await readList(ctx, '/api/mqtt/subscribe/list', {}, 'fixture'))?.rows ?? [];
      await ctx.check(e, 'subscribe.detail-leader-info', 'notes.shape.group-leader-info', async () => {
        const row = rows.find(shared);
        if (!row) return skip('no shared subscription on the target');
        const ex = await detailOf(ctx, row);
        const data = ex && succeeded(ex) ? dataOf(ex) : undefined;
        if (!data || data.share_sub !== true)
          return skip(`no detail of the shared ${String(row.path)} saying share_sub true (see subscribe.detail-shared)`);
        const info = data.group_leader_info;
        if (info === null || info === undefined)
          return inconclusive(`group_leader_info of the shared ${String(row.path)} is not filled, so its shape cannot be seen`, ex);
        if (typeof info !== 'object' || Array.isArray(info))
          return fail(
            `a shared subscription's group_leader_info is {broker_id, broker_addr, extend_info}, got ${JSON.stringify(info).slice(0, 120)}`,
            ex,
          );
        const missing = ['broker_id', 'broker_addr', 'extend_info'].filter((k) => !(k in info));
        if (missing.length > 0)
          return fail(`group_leader_info of ${String(row.path)} lacks ${missing.join(', ')}: ${JSON.stringify(info).slice(0, 160)}`, ex);
        // The shape alone is what any example of the document has: the leader it names must be a node of the cluster.
        const broker = Number((info as Row).broker_id);
        const online = ctx.state.onlineNodeIds ?? [];
        return pass(
          `group_leader_info of ${String(row.path)} is {${Object.keys(info).join(', ')}}, leader broker ${broker}`,
          undefined,
          !online.includes(broker),
        );
      });
      await ctx.check(e, 'subscribe.detail-push-keys', 'decision.subscribe-detail.keys', async () => {
        // A wildcard filter tells topic keys from filter keys: its pushes spread over the topics it matches.
        for (const row of rows.filter((r) => /[+#]/.test(String(r.path))).slice(0, 4)) {
          const ex = await detailOf(ctx, row);
          const sub = (ex && succeeded(ex) ? dataOf(ex)?.sub_data : undefined) as Row | undefined;
          const keys = ['push_subscribe', 'push_thread'].flatMap((m) =>
            Object.keys(sub?.[m] && typeof sub[m] === 'object' ? (sub[m] as Row) : {}),
          );
          if (keys.length === 0) continue;
          const bad = keys.filter((k) => /[+#]/.test(k) || !filterMatches(String(row.path), k));
          if (bad.length > 0)
            return fail(
              `the pushes of ${String(row.path)} are keyed by ${JSON.stringify(bad.slice(0, 3))}, not by the concrete topics the filter matches`,
              ex,
            );
          return pass(`the pushes of ${String(row.path)} are keyed by the topics pushed to: ${[...new Set(keys)].slice(0, 4).join(', ')}`);
        }
        return inconclusive('no wildcard subscription with pushes to look at');
      });
      await ctx.check(e, 'subscribe.detail-unknown', 'decision.subscribe-detail.unknown', async () => {
        const ex = await ctx.call(e, {
          tenant: rows[0]?.tenant ?? ctx.names.tenant,
          client_id: `conform-${ctx.seed}-no-such-client`,
          path: `conform/${ctx.seed}/no-such-path`,
        });
        if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
        if (succeeded(ex))
          return fail(`the detail of a subscription that does not exist was answered as a success: ${describeAnswer(ex)}`, ex);
        const env = envelopeOf(ex);
        if (!env || ![1, 100].includes(env.code) || !/does not exist/i.test(env.text ?? ''))
          return fail(`expected code 1 with a text that the subscription does not exist, got ${describeAnswer(ex)}`, ex);
        return pass(`refused: ${describeAnswer(ex)}`);
      });
    },
  },
];
