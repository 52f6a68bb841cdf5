import { runMonitorChecks, runMonitorTypes } from '../conform/checks/behaviour-checks.ts';
import { runOverviewConsistency } from '../conform/checks/consistency-checks.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { MONITOR_DIMENSIONS } from '../../contract/endpoints/mqtt.ts';
import { MQTT_RECORD_SCENARIOS } from './mqtt-records.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import type { MqttDriver, TargetControl } from '../targets/target.ts';
import { sectionOf } from './config.ts';
import { dataOf, letTimePass, readList, type Row, totalOf, waitFor } from '../conform/check-helpers.ts';

/**
 * MQTT overview, monitoring, clients, sessions, subscriptions, slow subscriptions and the path-only
 * lists (spec: MQTT overview, monitoring, clients, sessions, subscriptions; Cluster overview; Monitor
 * point). The monitor rules: a missing required dimension gives [], points in time order, within one
 * hour of the newest. Subscription detail for an exclusive and a shared subscription. With an MQTT
 * client: a connected client, its session and subscriptions appear in their lists.
 */

const DIMENSION_VALUES: Record<string, string> = {
  topic_name: 'conform/any',
  client_id: 'conform-any',
  path: 'conform/#',
  connector_name: 'conform-any',
};

function emptyArray(ex: Exchange, what: string): Verdict | undefined {
  const data = envelopeOf(ex)?.data;
  if (!succeeded(ex)) return fail(`${what} must answer an empty array with code 0, got ${describeAnswer(ex)}`, ex);
  if (!Array.isArray(data) || data.length !== 0) return fail(`${what}: expected data [], got ${JSON.stringify(data).slice(0, 120)}`, ex);
  return undefined;
}

async function detailOf(ctx: ConformContext, row: Row): Promise<Exchange | undefined> {
  const e = ctx.endpoint('GET', '/api/mqtt/subscribe/detail');
  return e ? ctx.call(e, { tenant: row.tenant, client_id: row.client_id, path: row.path }) : undefined;
}

const isShared = (row: Row) => row.is_share_sub === true || String(row.path).startsWith('$share/');

/** An exclusive subscription's detail: not shared, no group leader, the key as asked (spec: Subscription detail). */
function exclusiveProblems(row: Row, data: Row | undefined): string | undefined {
  if (!data) return 'no detail data';
  if (data.share_sub !== false)
    return `share_sub must be false for the exclusive subscription ${String(row.path)}, got ${JSON.stringify(data.share_sub)}`;
  if (data.group_leader_info !== null)
    return `group_leader_info must be null for an exclusive subscription, got ${JSON.stringify(data.group_leader_info).slice(0, 80)}`;
  const sub = (data.sub_data ?? {}) as Row;
  if (sub.client_id !== row.client_id || sub.path !== row.path)
    return `sub_data names ${JSON.stringify({ client_id: sub.client_id, path: sub.path })}, not the subscription asked for ${JSON.stringify({ client_id: row.client_id, path: row.path })}`;
  return undefined;
}

/** The row of the spec's data_type table each type is in (Endpoints › MQTT overview, monitoring…). */
const MONITOR_TYPE_ROW: Record<string, string> = {
  connection_num: 'endpoints.monitor.types.totals',
  topic_num: 'endpoints.monitor.types.totals',
  subscribe_num: 'endpoints.monitor.types.totals',
  message_in_num: 'endpoints.monitor.types.totals',
  message_out_num: 'endpoints.monitor.types.totals',
  message_drop_num: 'endpoints.monitor.types.totals',
  topic_in_num: 'endpoints.monitor.types.topic',
  topic_out_num: 'endpoints.monitor.types.topic',
  subscribe_send_success_num: 'endpoints.monitor.types.subscribe',
  subscribe_send_failure_num: 'endpoints.monitor.types.subscribe',
  subscribe_topic_send_success_num: 'endpoints.monitor.types.subscribe-topic',
  subscribe_topic_send_failure_num: 'endpoints.monitor.types.subscribe-topic',
  session_in_num: 'endpoints.monitor.types.session',
  session_out_num: 'endpoints.monitor.types.session',
  connector_send_success_total: 'endpoints.monitor.types.connector-totals',
  connector_send_failure_total: 'endpoints.monitor.types.connector-totals',
  connector_send_success: 'endpoints.monitor.types.connector',
  connector_send_failure: 'endpoints.monitor.types.connector',
};

const hasWildcard = (path: string) => /[+#]/.test(path) || path.startsWith('$share/');

/**
 * Dimension values the target lists, by the dimension set they fill (`topic_name`, `client_id,path`…):
 * topics from the topic list, subscriptions (and, for a filter without wildcards, its topic) from the
 * subscription list, connectors from the connector list. The run's own (new, unsampled) ones come last.
 */
async function dimensionCandidates(ctx: ConformContext): Promise<Record<string, Row[]>> {
  const own = (name: unknown) => String(name).startsWith('conform');
  const byAge = (rows: Row[]) => [
    ...rows.filter((r) => !own(r.topic_name ?? r.client_id ?? r.connector_name)),
    ...rows.filter((r) => own(r.topic_name ?? r.client_id ?? r.connector_name)),
  ];
  const topics = byAge((await readList(ctx, '/api/cluster/topic/list', {}, 'fixture'))?.rows ?? []).filter(
    (r) => !String(r.topic_name).includes('$'),
  );
  const subs = byAge((await readList(ctx, '/api/mqtt/subscribe/list', {}, 'fixture'))?.rows ?? []);
  const connectors = byAge((await readList(ctx, '/api/cluster/connector/list', {}, 'fixture'))?.rows ?? []);
  // A subscription's topics: the keys of its detail's push_subscribe (the topics it pushed), else its filter when it has no wildcard.
  const pushed: Row[] = [];
  // Filters with wildcards are the ones whose pushes spread over topics: ask those first.
  for (const r of [...subs.filter((x) => hasWildcard(String(x.path))), ...subs].slice(0, 3)) {
    const detail = await detailOf(ctx, r);
    const push =
      detail && succeeded(detail) ? ((dataOf(detail)?.sub_data as Row | undefined)?.push_subscribe as Row | undefined) : undefined;
    for (const topic of Object.keys(push && typeof push === 'object' ? push : {}).slice(0, 1))
      pushed.push({ client_id: r.client_id, path: r.path, topic_name: topic });
  }
  const plain = subs.filter((r) => !hasWildcard(String(r.path))).map((r) => ({ client_id: r.client_id, path: r.path, topic_name: r.path }));
  return {
    topic_name: topics.map((r) => ({ topic_name: r.topic_name })),
    'client_id,path': subs.map((r) => ({ client_id: r.client_id, path: r.path })),
    'client_id,path,topic_name': [...pushed, ...plain],
    client_id: subs.map((r) => ({ client_id: r.client_id })),
    connector_name: connectors.filter((r) => r.status === 'Running').map((r) => ({ connector_name: r.connector_name })),
  };
}

const WEBSOCKET_TYPES = new Set(['websocket', 'websockets']);

/**
 * The project's decisions on the overview's values: placement_status tells whether the answering node
 * leads the meta group; the message rates are the monitor's last interval per second; the WebSocket
 * count includes WebSocket-over-TLS connections.
 */
async function runOverviewDecisions(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const overview = await ctx.call(e, {});
  const o = succeeded(overview) ? dataOf(overview) : undefined;
  await ctx.check(e, 'overview.placement-status-is-local', 'decision.overview.placement-status', async () => {
    if (typeof o?.placement_status !== 'string')
      return skip("the overview has no placement_status to judge (its presence is the overview row's business)");
    const status = ctx.endpoint('GET', '/api/status');
    const config = ctx.endpoint('GET', '/api/cluster/config/get');
    if (!status || !config) return skip('no /api/status or config get to find the meta leader and the answering node');
    const meta = dataOf(await ctx.call(status, {}, 'fixture'))?.meta as Row | undefined;
    const group = (meta && 'current_leader' in meta ? meta : (meta?.meta as Row | undefined)) ?? undefined;
    const leader = group?.current_leader;
    const local = dataOf(await ctx.call(config, {}, 'fixture'))?.broker_id;
    if (typeof leader !== 'number' || typeof local !== 'number')
      return skip(`the meta group's leader (${JSON.stringify(leader)}) or the answering node (${JSON.stringify(local)}) is not known`);
    const want = leader === local ? 'Leader' : 'Follower';
    // Node ids below 1 are placeholders (a server without a cluster behind it): agreement shows nothing.
    return o.placement_status === want
      ? pass(`node ${local} answers, node ${leader} leads the meta group: ${want}`, undefined, local < 1 || leader < 1)
      : fail(
          `node ${local} answers and node ${leader} leads the meta group, so placement_status is ${want}, got ${JSON.stringify(o.placement_status)}`,
          overview,
        );
  });
  await ctx.check(e, 'overview.message-rates-from-monitor', 'decision.overview.message-rates', async () => {
    if (!o || typeof o.message_in_rate !== 'number' || typeof o.message_out_rate !== 'number')
      return skip('the overview has no numeric message rates');
    const monitor = ctx.endpoint('GET', '/api/mqtt/monitor/data');
    if (!monitor) return skip('no monitor data to compare with');
    const problems: string[] = [];
    let samples = 0;
    for (const [rate, type] of [
      ['message_in_rate', 'message_in_num'],
      ['message_out_rate', 'message_out_num'],
    ] as const) {
      const points = envelopeOf(await ctx.call(monitor, { data_type: type }))?.data;
      if (!Array.isArray(points)) return skip(`monitor data of ${type} is not an array`);
      // The newest point (the order of the series is another check's business).
      const newest = (points as Row[]).reduce<Row | undefined>(
        (a, p) => (a === undefined || Number(p.date) > Number(a.date) ? p : a),
        undefined,
      );
      const last = newest ? Number(newest.value) : undefined;
      const want = last === undefined ? 0 : Math.round((last / 60) * 100) / 100;
      samples += points.length;
      if (Math.abs(Number(o[rate]) - want) > 0.011)
        problems.push(`${rate} ${String(o[rate])}, but the last ${type} point ${JSON.stringify(last)} per 60 s is ${want}`);
    }
    // A monitor sample may fall between the two requests on a live target: compare once more before failing.
    if (problems.length > 0) return fail(problems.join('; '), overview);
    // Zero rates agree with an idle broker and with a placeholder alike.
    return pass(
      `message_in_rate ${String(o.message_in_rate)} and message_out_rate ${String(o.message_out_rate)} are the last monitor interval's counts per second`,
      undefined,
      samples === 0 || (o.message_in_rate === 0 && o.message_out_rate === 0),
    );
  });
  await ctx.check(e, 'overview.websocket-count', 'decision.overview.websocket-count', async () => {
    if (!o || typeof o.websocket_connection_num !== 'number') return skip('the overview has no websocket_connection_num');
    const got = await readList(ctx, '/api/mqtt/client/list', {}, 'fixture');
    const total = got ? totalOf(got.ex) : undefined;
    if (!got || total === undefined || got.rows.length !== total || total > 100)
      return skip(
        `the client list does not show every connection (${got?.rows.length ?? 0} of ${String(total)}), so they cannot be counted`,
      );
    const types = got.rows.map((r) => String((r.network_connection as Row | null)?.connection_type ?? '').toLowerCase());
    const ws = types.filter((t) => WEBSOCKET_TYPES.has(t)).length;
    const tls = types.filter((t) => t === 'websockets').length;
    if (o.websocket_connection_num !== ws)
      return fail(
        `websocket_connection_num is ${o.websocket_connection_num}, the client list has ${ws} WebSocket connections (${tls} of them over TLS)`,
        overview,
      );
    return pass(
      `websocket_connection_num ${ws} counts the ${ws - tls} WebSocket and ${tls} WebSocket-over-TLS connections`,
      undefined,
      tls === 0,
    );
  });
}

/**
 * A counter data type holds the count within each 60-second interval (decision): messages published
 * on a new topic show as that count in the next point of its topic_in_num series. Needs an MQTT client
 * and the simulator's control to let the minute pass (a live target would need a real minute's wait).
 */
async function runCounterPerInterval(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const happy = await ctx.call(e, { data_type: 'message_in_num' });
  const series = succeeded(happy) ? envelopeOf(happy)?.data : undefined;
  // In time order (the order the target answers in is monitor.ordered-by-date's business).
  const dates = Array.isArray(series) ? series.map((p) => Number((p as Row).date)).sort((a, b) => a - b) : [];
  const gap = dates
    .slice(1)
    .map((d, i) => d - dates[i])
    .find((g) => g !== 60);
  const newestValue = (points: unknown[]) => Number((points as Row[]).reduce((a, p) => (Number(p.date) > Number(a.date) ? p : a)).value);
  const driver = ctx.mqtt;
  const control = ctx.target.control;
  // Another tenant publishing on the same topic name (decision.monitor.aggregate-tenants).
  const tenants = (await readList(ctx, '/api/cluster/tenant/list', {}, 'fixture'))?.rows.map((r) => String(r.tenant_name)) ?? [];
  const other = tenants.find((t) => t !== ctx.names.tenant && t !== driver?.tenant && !t.startsWith('conform'));
  const counted = `conform/${ctx.seed}/counted`;
  const shared = `conform/${ctx.seed}/shared`;
  let blocked = !driver
    ? `needs an MQTT client to publish known messages (${ctx.capabilities?.mqttClient.reason ?? 'none available'})`
    : !control
      ? "needs the simulator's control to let the next monitor minute pass (a live target would need a real minute's wait per check)"
      : undefined;
  let sharedBlocked = blocked ?? (!other || driver!.tenant === undefined ? 'needs a second tenant to publish in' : undefined);
  if (!blocked)
    ({ blocked, sharedBlocked } = await publishCountedMessages(ctx, driver!, control!, { counted, shared, other }, sharedBlocked));
  const { ex, points } = blocked ? { ex: undefined, points: undefined } : await waitForCountedSample(ctx, e, counted);
  await ctx.check(e, 'monitor.counter-per-interval', 'decision.monitor.counter-per-interval', () => {
    if (Array.isArray(series) && series.length > 60)
      return fail(`a series holds ${series.length} points; one point a minute over the hour is at most 60`, happy);
    if (gap !== undefined) return fail(`two points of message_in_num are ${gap} s apart; the interval is 60 s`, happy);
    if (blocked) return skip(blocked);
    if (!Array.isArray(points) || points.length === 0)
      return fail(
        `5 messages were published on ${counted} over a minute ago, but its topic_in_num series is ${JSON.stringify(points)}`,
        ex,
      );
    const value = newestValue(points);
    return value === 5
      ? pass(
          `the 5 messages published within one interval show as the value 5 of the next point (${dates.length} points a minute apart in message_in_num)`,
        )
      : fail(
          `5 messages were published within one interval, the next point of topic_in_num holds ${value} (a count per interval would be 5)`,
          ex,
        );
  });
  await ctx.check(e, 'monitor.aggregate-tenants', 'decision.monitor.aggregate-tenants', async () => {
    if (sharedBlocked) return skip(sharedBlocked);
    if (!Array.isArray(points) || points.length === 0)
      return skip('no sample was taken after the messages (see monitor.counter-per-interval)');
    const got = await ctx.call(e, { data_type: 'topic_in_num', topic_name: shared });
    const sharedPoints = envelopeOf(got)?.data;
    const value = Array.isArray(sharedPoints) && sharedPoints.length > 0 ? newestValue(sharedPoints) : undefined;
    return value === 5
      ? pass(`2 messages in ${String(driver!.tenant)} and 3 in ${other} on ${shared} show as one series of 5`)
      : fail(
          `2 messages in ${String(driver!.tenant)} and 3 in ${other} were published on ${shared}; the series without a tenant shows ${JSON.stringify(value)} (across tenants: 5)`,
          got,
        );
  });
  const del = ctx.endpoint('POST', '/api/cluster/topic/delete');
  if (del && other && !sharedBlocked) await ctx.call(del, { tenant: other, topic_name: shared }, 'cleanup');
}

/** Where the counter checks publish: `counted` in the run's tenant, `shared` in it and in the `other` tenant too. */
interface CounterTopics {
  counted: string;
  shared: string;
  other: string | undefined;
}

/**
 * Publishes the messages the counter checks count: 5 on `counted` and 2 on `shared` from the run's
 * client, then 3 on `shared` from a client of the other tenant. Returns why each check cannot judge
 * (undefined: its messages are all published); `sharedBlocked` comes in already set when there is
 * no second tenant, and then nothing is published there.
 */
async function publishCountedMessages(
  ctx: ConformContext,
  driver: MqttDriver,
  control: TargetControl,
  topics: CounterTopics,
  sharedBlockedBefore: string | undefined,
): Promise<{ blocked: string | undefined; sharedBlocked: string | undefined }> {
  let blocked: string | undefined;
  let sharedBlocked = sharedBlockedBefore;
  const session = await driver.connect(`conform-${ctx.seed}-counter`);
  if ('ok' in session) {
    const reason = `the MQTT client could not connect: ${session.reason}`;
    return { blocked: reason, sharedBlocked: reason };
  }
  try {
    for (let i = 0; i < 5 && !blocked; i++) {
      const r = await session.publish(topics.counted, `count ${i}`, { qos: 1, retain: false });
      if (!r.ok) blocked = `a message could not be published: ${r.reason}`;
    }
    for (let i = 0; i < 2 && !sharedBlocked; i++) {
      const r = await session.publish(topics.shared, `shared ${i}`, { qos: 1, retain: false });
      if (!r.ok) sharedBlocked = `a message could not be published: ${r.reason}`;
    }
  } finally {
    await session.close();
  }
  if (!sharedBlocked) sharedBlocked = await publishInOtherTenant(ctx, control, topics.other!, topics.shared);
  return { blocked, sharedBlocked };
}

/** The other tenant's 3 messages on the shared topic name; returns why they could not all be published. */
async function publishInOtherTenant(
  ctx: ConformContext,
  control: TargetControl,
  other: string,
  shared: string,
): Promise<string | undefined> {
  const elsewhere = await control.mqtt(other).connect(`conform-${ctx.seed}-counter`);
  if ('ok' in elsewhere) return `no MQTT client in tenant ${other}: ${elsewhere.reason}`;
  let problem: string | undefined;
  for (let i = 0; i < 3 && !problem; i++) {
    const r = await elsewhere.publish(shared, `shared elsewhere ${i}`, { qos: 1, retain: false });
    if (!r.ok) problem = `a message could not be published in tenant ${other}: ${r.reason}`;
  }
  await elsewhere.close();
  return problem;
}

/** Reads the counted topic's topic_in_num series, letting time pass until it has a point: at most a minute. */
async function waitForCountedSample(
  ctx: ConformContext,
  e: EndpointContract,
  counted: string,
): Promise<{ ex: Exchange | undefined; points: unknown }> {
  let ex: Exchange | undefined;
  let points: unknown;
  for (let waited = 0; waited <= 60_000; waited += 10_000) {
    ex = await ctx.call(e, { data_type: 'topic_in_num', topic_name: counted });
    points = envelopeOf(ex)?.data;
    if (Array.isArray(points) && points.length > 0) break;
    await letTimePass(ctx, 10_000);
  }
  return { ex, points };
}

/** Seconds between two local-time strings "YYYY-MM-DD HH:MM:SS" (undefined when either is not one). */
function secondsBetween(from: unknown, to: unknown): number | undefined {
  const parse = (x: unknown) =>
    typeof x === 'string' && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$/.test(x) ? Date.parse(`${x.replace(' ', 'T')}Z`) : NaN;
  const d = (parse(to) - parse(from)) / 1000;
  return Number.isFinite(d) ? d : undefined;
}

/**
 * Connection flapping (spec: States, "Connection flapping ban"; decision.flapping.boundary): with
 * detection enabled, a client of the run's own connects max_client_connections times at once (each
 * admitted), then once more (refused: banned), then again (still banned); the ban-log shows the ban
 * lasting ban_time. The client stays banned for ban_time (a blacklist entry that expires by itself).
 */
async function runFlappingBan(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const get = ctx.endpoint('GET', '/api/cluster/config/get');
  const read = async () => (get ? sectionOf(dataOf(await ctx.call(get, {}, 'fixture')), 'mqtt_flapping_detect') : undefined);
  let cfg = await read();
  // Detection off: switch it on for this scenario alone (enable only: the other fields keep their
  // values, as a partial config set says), and off again after, as the config checks restore theirs.
  const set = ctx.endpoint('POST', '/api/cluster/config/set');
  let switchedOn = false;
  if (cfg && cfg.enable !== true && set) {
    const on = await ctx.call(set, { config_type: 'MqttFlappingDetect', config: JSON.stringify({ enable: true }) }, 'fixture');
    if (succeeded(on)) {
      switchedOn = true;
      cfg = await read();
    }
  }
  try {
    await runFlappingBanEnabled(ctx, e, cfg, switchedOn);
  } finally {
    if (switchedOn) await ctx.call(set!, { config_type: 'MqttFlappingDetect', config: JSON.stringify({ enable: false }) }, 'cleanup');
  }
}

async function runFlappingBanEnabled(ctx: ConformContext, e: EndpointContract, cfg: Row | undefined, switchedOn: boolean): Promise<void> {
  const driver = ctx.mqtt!;
  const why = !cfg
    ? 'config get shows no mqtt_flapping_detect section'
    : cfg.enable !== true
      ? `flapping detection is not enabled on the target (MqttFlappingDetect.enable false${switchedOn ? '' : ', and the run could not switch it on'})`
      : !(Number(cfg.max_client_connections) >= 1 && Number(cfg.max_client_connections) <= 50)
        ? `max_client_connections ${JSON.stringify(cfg.max_client_connections)} is not a small count to reach`
        : undefined;
  if (why) {
    for (const [id, a] of [
      ['flapping.ban', 'states.flapping.ban'],
      ['flapping.boundary', 'decision.flapping.boundary'],
    ])
      await ctx.check(e, id, a, () => skip(why));
    return;
  }
  const max = Number(cfg!.max_client_connections);
  const clientId = `conform-${ctx.seed}-flapper`;
  const admitted: boolean[] = [];
  let refusal = '';
  for (let i = 0; i < max + 2; i++) {
    const session = await driver.connect(clientId);
    if ('ok' in session) {
      admitted.push(false);
      refusal ||= session.reason;
    } else {
      admitted.push(true);
      await session.close();
    }
  }
  const banLog = await readList(ctx, '/api/mqtt/ban-log/list', driver.tenant ? { tenant: driver.tenant } : {});
  const ban = banLog?.rows.find((r) => r.resource_name === clientId);
  await ctx.check(e, 'flapping.ban', 'states.flapping.ban', () => {
    if (admitted.slice(max).some((a) => a))
      return fail(
        `${clientId} connected ${max + 2} times at once with max_client_connections ${max}, and connect ${admitted.lastIndexOf(true) + 1} was still admitted: the client must be banned`,
        banLog?.ex,
      );
    if (!ban)
      return fail(`${clientId} was refused after connecting more than ${max} times, but the ban-log shows no ban of it`, banLog?.ex);
    const lasts = secondsBetween(ban.create_time, ban.end_time);
    const banTime = Number(cfg!.ban_time);
    // The read view may describe ban_time in minutes (config.set.flapping-read-minutes).
    if (lasts !== undefined && lasts !== banTime && lasts !== banTime * 60)
      return fail(
        `the ban of ${clientId} lasts ${lasts} s (ban-log ${String(ban.create_time)} → ${String(ban.end_time)}), but ban_time is ${banTime}`,
        banLog?.ex,
      );
    return pass(
      `more than ${max} connects at once: refused (${JSON.stringify(refusal)}), banned ${lasts === undefined ? '' : `for ${lasts} s `}per the ban-log`,
    );
  });
  await ctx.check(e, 'flapping.boundary', 'decision.flapping.boundary', () => {
    const first = admitted.indexOf(false);
    if (first === -1) return fail(`all ${max + 2} connects of ${clientId} were admitted`);
    return first === max
      ? pass(`the first ${max} connects were admitted, connect ${max + 1} was refused`)
      : fail(
          `with max_client_connections ${max}, connect ${first + 1} was the first refused (the decision: the first ${max} are admitted, the next one bans)`,
        );
  });
}

/** The client-lifecycle checks, all skipped with `why` (the run's MQTT client could not connect). */
async function skipClientLifecycle(
  ctx: ConformContext,
  [e, sessions, subs, detail]: readonly [EndpointContract, EndpointContract, EndpointContract, EndpointContract],
  why: string,
): Promise<void> {
  for (const [ep, id] of [
    [e, 'client.connected-listed'],
    [sessions, 'session.connected-listed'],
    [subs, 'subscribe.created-listed'],
    [detail, 'subscribe.created-detail'],
    [e, 'client.disconnected'],
  ] as const) {
    await ctx.check(
      ep,
      id,
      id === 'subscribe.created-detail'
        ? 'endpoints.subscribe.detail.response'
        : id === 'client.disconnected'
          ? 'resources.client.network_connection'
          : 'service.lists',
      () => skip(why),
    );
  }
}

export const mqtt: ScenarioSuite = {
  name: 'mqtt',
  tags: ['mqtt'],
  scenarios: [
    {
      endpoint: 'GET /api/mqtt/overview',
      checks: ['overview.*'],
      assertion: 'resources.overview.totals',
      run: (ctx, e) => runOverviewConsistency(ctx, e),
    },
    {
      endpoint: 'GET /api/mqtt/overview',
      checks: ['overview.placement-status-is-local', 'overview.message-rates-from-monitor', 'overview.websocket-count'],
      assertion: 'decision.overview.placement-status',
      run: runOverviewDecisions,
    },
    {
      endpoint: 'GET /api/mqtt/monitor/data',
      checks: ['monitor.missing-dimension', 'monitor.ordered-by-date', 'monitor.last-hour', 'monitor.every-data-type'],
      assertion: 'errors.case.monitor-missing-param',
      async run(ctx, e, env) {
        await runMonitorChecks(ctx, e, env.happy);
        await runMonitorTypes(ctx, e);
      },
    },
    {
      endpoint: 'GET /api/mqtt/monitor/data',
      checks: ['monitor.missing-dimension.*'],
      assertion: 'errors.case.monitor-missing-param',
      async run(ctx, e) {
        const candidates = await dimensionCandidates(ctx);
        for (const [type, dims] of Object.entries(MONITOR_DIMENSIONS) as [string, readonly string[]][]) {
          if (dims.length === 0 || type === 'topic_in_num') continue; // topic_in_num: monitor.missing-dimension
          // The type's row of the data_type table names its dimensions: [] without them (the error case) and a
          // series with them decide the row together. A type answering points without them breaks it too.
          const row = MONITOR_TYPE_ROW[type];
          await ctx.check(e, `monitor.missing-dimension.${type}`, 'errors.case.monitor-missing-param', async () => {
            const none = await ctx.call(e, { data_type: type });
            const bad = emptyArray(none, `${type} without ${dims.join(', ')}`);
            if (bad) return { ...bad, also: [row] };
            if (dims.length > 1) {
              // Some but not all of the dimensions: still a missing parameter.
              const partial = await ctx.call(e, { data_type: type, [dims[0]]: DIMENSION_VALUES[dims[0]] });
              const badPartial = emptyArray(partial, `${type} with ${dims[0]} but without ${dims.slice(1).join(', ')}`);
              if (badPartial) return { ...badPartial, also: [row] };
            }
            const without = `${type} without ${dims.join(', ')} answers []${dims.length > 1 ? ', also with only some of them' : ''}`;
            // With every dimension, a value the target lists (a few tried): points show the dimensions are the ones it needs.
            for (const dimValues of (candidates[dims.join(',')] ?? []).slice(0, 3)) {
              const withDims = await ctx.call(e, { data_type: type, ...dimValues });
              const points = envelopeOf(withDims)?.data;
              if (succeeded(withDims) && Array.isArray(points) && points.length > 0)
                return { ...pass(`${without}; with ${JSON.stringify(dimValues)} it answers ${points.length} points`), also: [row] };
            }
            return pass(`${without} (no listed ${dims.join(' and ')} gave a series, so the dimensions themselves were not seen at work)`);
          });
        }
      },
    },
    {
      endpoint: 'GET /api/mqtt/subscribe/detail',
      checks: ['subscribe.detail-exclusive', 'subscribe.detail-shared'],
      assertion: 'resources.subscription-detail.share_sub',
      async run(ctx, e) {
        const got = await readList(ctx, '/api/mqtt/subscribe/list', {}, 'fixture');
        const rows = got?.rows ?? [];
        let exclusiveSeen = false;
        await ctx.check(e, 'subscribe.detail-exclusive', 'resources.subscription-detail.share_sub', async () => {
          const row = rows.find((r) => !isShared(r));
          if (!row) return skip('no exclusive subscription on the target');
          const ex = await detailOf(ctx, row);
          if (!ex || !succeeded(ex))
            return fail(
              `the detail of ${String(row.client_id)} ${String(row.path)} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`,
              ex,
            );
          const problem = exclusiveProblems(row, dataOf(ex));
          if (!problem) exclusiveSeen = true;
          return problem ? fail(problem, ex) : pass(`exclusive ${String(row.path)}: share_sub false, group_leader_info null`);
        });
        await ctx.check(e, 'subscribe.detail-shared', 'resources.subscription-detail.share_sub', async () => {
          const row = rows.find(isShared);
          if (!row) return skip('no shared subscription on the target');
          const ex = await detailOf(ctx, row);
          if (!ex || !succeeded(ex))
            return fail(`the detail of the shared ${String(row.path)} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`, ex);
          const data = dataOf(ex);
          // share_sub true means something only from a server that answered false for an exclusive one.
          return data?.share_sub === true
            ? pass(`shared ${String(row.path)}: share_sub true`, undefined, !exclusiveSeen)
            : fail(`${String(row.path)} is a shared subscription, but share_sub is ${JSON.stringify(data?.share_sub)}`, ex);
        });
      },
    },
    {
      endpoint: 'GET /api/mqtt/client/list',
      checks: [
        'client.connected-listed',
        'session.connected-listed',
        'subscribe.created-listed',
        'subscribe.created-detail',
        'client.disconnected',
      ],
      assertion: 'service.lists',
      needs: ['mqtt-client'],
      async run(ctx, e) {
        const driver = ctx.mqtt!;
        const clientId = `conform-${ctx.seed}-mqtt`;
        const path = `conform/${ctx.seed}/sub/+`;
        const session = await driver.connect(clientId);
        const sessions = ctx.endpoint('GET', '/api/mqtt/session/list') ?? e;
        const subs = ctx.endpoint('GET', '/api/mqtt/subscribe/list') ?? e;
        const detail = ctx.endpoint('GET', '/api/mqtt/subscribe/detail') ?? e;
        if ('ok' in session)
          return skipClientLifecycle(
            ctx,
            [e, sessions, subs, detail],
            `the MQTT client (${driver.via}) could not connect: ${session.reason}`,
          );
        const filter = driver.tenant ? { tenant: driver.tenant } : {};
        const find = async (listPath: string) =>
          waitFor(ctx, 3000, 250, async () =>
            (await readList(ctx, listPath, { ...filter, client_id: clientId }))?.rows.find(
              (r) => r.client_id === clientId && (listPath !== '/api/mqtt/subscribe/list' || r.path === path),
            ),
          );
        try {
          const sub = await session.subscribe(path, 1);
          await ctx.check(e, 'client.connected-listed', 'service.lists', async () => {
            const row = await find('/api/mqtt/client/list');
            return row
              ? pass(`the connected client ${clientId} is listed`)
              : fail(`client ${clientId} is connected (${driver.via}) but not in the client list`);
          });
          await ctx.check(sessions, 'session.connected-listed', 'service.lists', async () => {
            const row = await find('/api/mqtt/session/list');
            return row
              ? pass(`the session of ${clientId} is listed`)
              : fail(`client ${clientId} is connected, but its session is not in the session list`);
          });
          let listed: Row | undefined;
          await ctx.check(subs, 'subscribe.created-listed', 'service.lists', async () => {
            if (!sub.ok) return skip(`the subscription could not be made: ${sub.reason}`);
            listed = await find('/api/mqtt/subscribe/list');
            if (!listed) return fail(`${clientId} subscribed to ${path}, but the subscription list does not show it`);
            return typeof listed.qos === 'string'
              ? pass(`listed with qos ${JSON.stringify(listed.qos)} (a text label)`)
              : fail(`the list's qos must be a text label, got ${JSON.stringify(listed.qos)}`);
          });
          await ctx.check(detail, 'subscribe.created-detail', 'endpoints.subscribe.detail.response', async () => {
            if (!listed) return skip('the subscription is not listed');
            const ex = await detailOf(ctx, listed);
            if (!ex || !succeeded(ex))
              return fail(`the detail of ${clientId} ${path} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`, ex);
            const problem = exclusiveProblems(listed, dataOf(ex));
            return problem ? fail(problem, ex) : pass('detail of the new exclusive subscription: share_sub false, group_leader_info null');
          });
        } finally {
          await session.close();
        }
        await ctx.check(e, 'client.disconnected', 'resources.client.network_connection', async () => {
          // Spec: network_connection is null when disconnected; a client without a session may go from the list.
          const row = await waitFor(ctx, 3000, 250, async () => {
            const r = (await readList(ctx, '/api/mqtt/client/list', { ...filter, client_id: clientId }))?.rows.find(
              (x) => x.client_id === clientId,
            );
            return r === undefined || r.network_connection === null ? { gone: r === undefined } : undefined;
          });
          if (!row) return fail(`client ${clientId} disconnected, but the list still shows a network_connection for it`);
          return pass(
            row.gone ? 'the disconnected client left the list' : 'the disconnected client is listed with network_connection null',
          );
        });
      },
    },
    ...MQTT_RECORD_SCENARIOS,
    {
      // Bans a client of the run's own: after the family's lists, so their checks see the target as it was.
      endpoint: 'GET /metrics',
      checks: ['flapping.ban', 'flapping.boundary'],
      assertion: 'states.flapping.ban',
      needs: ['mqtt-client'],
      async run(ctx) {
        const flapping = ctx.endpoint('GET', '/api/mqtt/flapping_detect/list');
        if (flapping) await runFlappingBan(ctx, flapping);
      },
    },
    {
      // Lets up to a minute of target time pass: run after the family's lists (flapping records age out), recorded on the monitor.
      endpoint: 'GET /metrics',
      checks: ['monitor.counter-per-interval', 'monitor.aggregate-tenants'],
      assertion: 'decision.monitor.counter-per-interval',
      async run(ctx) {
        const monitor = ctx.endpoint('GET', '/api/mqtt/monitor/data');
        if (monitor) await runCounterPerInterval(ctx, monitor);
      },
    },
  ],
};
