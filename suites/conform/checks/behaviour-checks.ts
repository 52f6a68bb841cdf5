import type { EndpointContract } from '../../../contract/core/types.ts';
import { A } from '../cite.ts';
import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  inconclusive,
  pass,
  refusedAsInvalid,
  skip,
  succeeded,
} from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';

type Obj = Record<string, unknown>;

const dataOf = (ex: Exchange) => envelopeOf(ex)?.data as Obj | undefined;

/** `/health/ready`: 200 with status ok, or 503 with status not_ready; check_type `ready` (spec: Health). */
export async function runHealthChecks(ctx: ConformContext, e: EndpointContract, happy: Exchange | undefined): Promise<void> {
  if (!happy?.response) return;
  if (e.path === '/health/ready') {
    await ctx.check(e, 'health.ready-body', 'endpoints.health.ready.body', () => {
      const data = dataOf(happy);
      const status = happy.response!.status;
      if (envelopeOf(happy)?.code !== 0) return fail(`the probe answers code 0 in both states, got ${describeAnswer(happy)}`, happy);
      if (data?.check_type !== 'ready') return fail(`check_type must be "ready", got ${JSON.stringify(data?.check_type)}`, happy);
      if (status === 200 && data.status === 'ok') return pass('HTTP 200, status ok');
      if (status === 503 && data.status === 'not_ready') return pass('HTTP 503, status not_ready');
      return fail(`HTTP ${status} with status ${JSON.stringify(data.status)}: 200 goes with "ok", 503 with "not_ready"`, happy);
    });
  }
  if (e.path === '/health/node') {
    await ctx.check(e, 'health.node-body', 'endpoints.health.node', () => {
      const data = dataOf(happy);
      if (happy.response!.status !== 200 || data?.status !== 'ok' || data?.check_type !== 'node')
        return fail(`expected HTTP 200 with {status: "ok", check_type: "node"}, got ${describeAnswer(happy)}`, happy);
      // Spec: "message stating the node is alive".
      if (typeof data.message !== 'string' || !/\balive\b|\bis (up|live|running|healthy)\b/i.test(data.message))
        return fail(`the message must state that the node is alive, got ${JSON.stringify(data.message)}`, happy);
      return pass(`status ok, check_type node, message ${JSON.stringify(data.message)}`);
    });
  }
}

/** Monitor data (spec: MQTT overview, monitoring): missing dimension → [], points by time, last hour only. */
export async function runMonitorChecks(ctx: ConformContext, e: EndpointContract, happy: Exchange | undefined): Promise<void> {
  await ctx.check(e, 'monitor.missing-dimension', 'errors.case.monitor-missing-param', async () => {
    const ex = await ctx.call(e, { data_type: 'topic_in_num' });
    const env = envelopeOf(ex);
    if (!succeeded(ex))
      return fail(`topic_in_num without topic_name must answer an empty array with code 0, got ${describeAnswer(ex)}`, ex);
    if (!Array.isArray(env?.data) || (env.data as unknown[]).length !== 0)
      return fail(`expected data [], got ${JSON.stringify(env?.data).slice(0, 120)}`, ex);
    return pass('topic_in_num without topic_name answers []');
  });
  const points = happy && succeeded(happy) ? (envelopeOf(happy)?.data as { date?: unknown }[] | undefined) : undefined;
  await ctx.check(e, 'monitor.ordered-by-date', 'endpoints.monitor.ordered', () => {
    if (!Array.isArray(points)) return skip('no monitor series to look at (the valid request did not succeed)');
    const dates = points.map((p) => Number(p.date));
    const bad = dates.findIndex((d, i) => i > 0 && d < dates[i - 1]);
    if (bad !== -1) return fail(`points are not ordered by date: ${dates[bad - 1]} before ${dates[bad]} at index ${bad}`, happy);
    return pass(`${dates.length} points ordered by date`, undefined, new Set(dates).size < 2);
  });
  await ctx.check(e, 'monitor.last-hour', 'endpoints.monitor.retention', () => {
    if (!Array.isArray(points)) return skip('no monitor series to look at');
    if (points.length === 0) return inconclusive('empty series');
    const dates = points.map((p) => Number(p.date));
    const newest = Math.max(...dates);
    // Spec: retention is the last hour, so every point lies within 3600 s of the newest.
    const old = dates.filter((d) => newest - d > 3600);
    if (old.length > 0) return fail(`${old.length} points are more than an hour older than the newest (${newest}), e.g. ${old[0]}`, happy);
    // A series shorter than the hour cannot show points kept past it.
    return pass(`${dates.length} points within the last hour of the newest`, undefined, newest - Math.min(...dates) < 1800);
  });
}

/**
 * Node removal (spec: Node removal, rule 1): an online node without `force` is refused. Never sends
 * `force`, and only ever names a node the target reports as online, so a conforming target keeps it.
 */
export async function runNodeLeaveChecks(ctx: ConformContext, e: EndpointContract): Promise<void> {
  await ctx.check(e, 'node-leave.refuses-online-node', 'endpoints.node-leave.online', async () => {
    const ids = ctx.state.onlineNodeIds ?? [];
    if (ids.length === 0) return skip('the target reports no online node to name');
    const nodeId = ids[ids.length - 1];
    const ex = await ctx.call(e, { node_id: nodeId });
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (succeeded(ex)) return fail(`node ${nodeId} is online and force was not given, but the removal was accepted`, ex);
    const env = envelopeOf(ex);
    if (!env) return fail(`refusal without an envelope: ${describeAnswer(ex)}`, ex);
    ctx.state.refusesOnlineNodeLeave = true;
    return pass(`removal of online node ${nodeId} refused (${describeAnswer(ex)})`);
  });
  await ctx.check(e, 'node-leave.node-id-minimum', 'endpoints.node-leave.body', async () => {
    const ex = await ctx.call(e, { node_id: 0 });
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (succeeded(ex)) return fail('node_id 0 is below the minimum 1 but was accepted', ex);
    return refusedAsInvalid(ex)
      ? pass('node_id 0 refused as invalid')
      : pass(`node_id 0 refused (${describeAnswer(ex)}; a 400 would name the problem better)`);
  });
}

/** Codes of a generic failure (Errors: "| 1 (and in one sample 100) | generic failure of an operation, with a text |"). */
const GENERIC_FAILURE: readonly number[] = [1, 100];

/** Error cases the spec's Errors table spells out. */
export async function runErrorCaseChecks(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const key = `${e.method} ${e.path}`;
  if (key === 'GET /api/cluster/connector/detail') {
    const name = `conform-missing-${ctx.seed}`;
    await ctx.check(e, 'error.connector-not-found', 'errors.case.connector-not-found', async () => {
      const ex = await ctx.call(e, { tenant: ctx.names.tenant, connector_name: name });
      const env = envelopeOf(ex);
      const want = `Connector ${name} does not exist.`;
      // The text names the connector_name of the query: the detail reads its Query (tenant, connector_name).
      const also = ['endpoints.connector.detail.query'];
      if (!env || env.code === 0)
        return { ...fail(`detail of a connector that does not exist must fail, got ${describeAnswer(ex)}`, ex), also };
      // The case row gives code 1 (the codes table: "1 (and in one sample 100)"): a generic failure with a text.
      if (!GENERIC_FAILURE.includes(env.code))
        return { ...fail(`the case row gives code 1 (or 100), got ${describeAnswer(ex)}`, ex), also: [...also, 'errors.code.1'] };
      return {
        ...(env.text?.includes(want) ? pass(`"${want}"`) : fail(`expected the text "${want}", got ${describeAnswer(ex)}`, ex)),
        also: [...also, 'errors.code.1'],
      };
    });
  }
  if (key === 'POST /api/cluster/tenant/update') {
    const name = `${ctx.names.tenant}-missing`;
    await ctx.check(e, 'error.tenant-not-found', 'errors.case.tenant-update-unknown', async () => {
      const ex = await ctx.call(e, { tenant_name: name, desc: 'x' });
      const env = envelopeOf(ex);
      if (!env || env.code === 0) return fail(`updating a tenant that does not exist must fail, got ${describeAnswer(ex)}`, ex);
      if (!GENERIC_FAILURE.includes(env.code))
        return { ...fail(`the case row gives code 1 (or 100), got ${describeAnswer(ex)}`, ex), also: ['errors.code.1'] };
      if (!(env.text?.includes(name) && /not (been )?found/i.test(env.text)))
        return { ...fail(`expected a text saying tenant ${name} was not found, got ${describeAnswer(ex)}`, ex), also: ['errors.code.1'] };
      return { ...pass(`refused: "${env.text}"`), also: ['errors.code.1'] };
    });
  }
  if (key === 'GET /api/cluster/config/get') {
    await ctx.check(e, 'error.unknown-broker-id', 'errors.case.config-get', async () => {
      const ex = await ctx.call(e, { broker_id: 987_654 });
      const env = envelopeOf(ex);
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (env && env.code !== 0) return pass(`refused (${describeAnswer(ex)})`);
      return fail(`config get for an unknown broker_id must be an error, got ${describeAnswer(ex)}`, ex);
    });
  }
}

/** A method the path does not serve (decision: HTTP 405). INFO: the spec does not say. */
export async function runWrongMethodCheck(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const other = e.method === 'GET' ? 'POST' : 'GET';
  if (ctx.endpoint(other, e.path)) return;
  await ctx.check(e, 'wrong-method', A.decisionWrongMethod, async () => {
    const ex = await ctx.send({ method: other, path: e.path, ...(other === 'POST' ? { body: {} } : {}) }, 'check', e.id);
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (ex.response.status === 405) return pass(`${other} answered 405`);
    if (ex.response.status >= 400 && ex.response.status < 500)
      return fail(`${other} answered ${describeAnswer(ex)}; the contract gives 405`, ex);
    return fail(`${other} on a ${e.method} endpoint must be refused, got ${describeAnswer(ex)}`, ex);
  });
}

/** A tenant update shows in the tenant list at once (spec: Tenants). */
export async function runUpdateVisible(ctx: ConformContext, e: EndpointContract, happy: Exchange | undefined): Promise<void> {
  if (e.path !== '/api/cluster/tenant/update' || !happy || !succeeded(happy)) return;
  const list = ctx.endpoint('GET', '/api/cluster/tenant/list');
  if (!list) return;
  const sent = happy.sent.body as Obj;
  await ctx.check(e, 'update.visible-in-list', 'endpoints.tenant.update', async () => {
    const ex = await ctx.call(list, { tenant_name: sent.tenant_name });
    const rows = ((dataOf(ex) as { data?: Obj[] } | undefined)?.data ?? []) as Obj[];
    const row = rows.find((r) => r.tenant_name === sent.tenant_name);
    if (!row) return fail(`the updated tenant ${String(sent.tenant_name)} is not listed`, ex);
    if (row.desc !== sent.desc)
      return fail(`desc was updated to ${JSON.stringify(sent.desc)} but the list shows ${JSON.stringify(row.desc)}`, ex);
    return pass('the new description is listed');
  });
}

/** Config get with a broker_id answers that node's configuration (spec: forwarded to the node). */
export async function runConfigForwarding(ctx: ConformContext, e: EndpointContract): Promise<void> {
  if (e.path !== '/api/cluster/config/get') return;
  const httpPorts = new Map<number, number>();
  await ctx.check(e, 'config.get-by-broker-id', 'config.get.forward', async () => {
    const ids = ctx.state.onlineNodeIds ?? [];
    if (ids.length === 0) return skip('the target reports no online node');
    // The optional broker_id of the Query (config.get.query) is read: each value answers that node.
    const also = ['config.get.query'];
    for (const id of ids) {
      const ex = await ctx.call(e, { broker_id: id });
      if (!succeeded(ex)) return { ...fail(`config get for online node ${id} failed: ${describeAnswer(ex)}`, ex), also };
      const got = dataOf(ex)?.broker_id;
      if (Number(got) !== id)
        return { ...fail(`config get with broker_id ${id} answered the configuration of broker ${JSON.stringify(got)}`, ex), also };
      httpPorts.set(id, Number(dataOf(ex)?.http_port));
    }
    return { ...pass(`each of the ${ids.length} online nodes answers with its own configuration`), also };
  });
  await ctx.check(e, 'config.get-local', 'config.get.local', async () => {
    // The local node is the one whose http_port the run's requests go to; without broker_id config get answers its configuration.
    let port: number;
    try {
      const url = new URL(ctx.target.baseUrl);
      port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    } catch {
      return skip(`the target's base URL ${ctx.target.baseUrl} names no port`);
    }
    const local = [...httpPorts].filter(([, p]) => p === port).map(([id]) => id);
    if (local.length !== 1)
      return skip(
        `the run's port ${port} is the http_port of ${local.length === 0 ? 'no node (a proxy or a port mapping is in between)' : `several nodes (${local.join(', ')})`}, so the local node is not known`,
      );
    const ex = await ctx.call(e, {});
    if (!succeeded(ex)) return fail(`config get without broker_id failed: ${describeAnswer(ex)}`, ex);
    const got = Number(dataOf(ex)?.broker_id);
    // One node answers whatever a server does: evidence needs the others to answer with their own.
    return got === local[0]
      ? pass(`without broker_id the answer is node ${got}'s, the node on port ${port}`, undefined, httpPorts.size < 2)
      : fail(
          `the run talks to node ${local[0]} (http_port ${port}), but config get without broker_id answered broker ${JSON.stringify(dataOf(ex)?.broker_id)}'s configuration`,
          ex,
        );
  });
}

/** The data_type rows whose required dimensions are "none", with their types. */
const NO_DIMENSION_ROWS: Record<string, readonly string[]> = {
  'endpoints.monitor.types.totals': [
    'connection_num',
    'topic_num',
    'subscribe_num',
    'message_in_num',
    'message_out_num',
    'message_drop_num',
  ],
  'endpoints.monitor.types.connector-totals': ['connector_send_success_total', 'connector_send_failure_total'],
};

/** The server's clock when the run logged in: the `iat` of its token (Unix seconds), when it has one. */
function serverClockAtLogin(ctx: ConformContext): number | undefined {
  const payload = ctx.target.token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const iat = Number((JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iat?: unknown }).iat);
    return Number.isFinite(iat) && iat > 0 ? iat : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the series answered are not shown to be the server's own, or undefined when they are. A canned
 * answer (a mock of the API document: one example per response) gives every data type the same series
 * with a date of its own making; a server's series differ between types (connections are not messages
 * are not topics) and reach into the hour before the run logged in (retention: the last hour).
 */
export function cannedSeriesReason(
  series: ReadonlyMap<string, readonly { date?: unknown }[]>,
  clock: number | undefined,
): string | undefined {
  const answered = [...series].filter(([, points]) => points.length > 0);
  if (answered.length === 0) return 'every data type answered an empty series: nothing shows the series are kept';
  if (new Set(answered.map(([, points]) => JSON.stringify(points))).size < 2)
    return `the ${answered.length} data types that answered points all answered the same series: a canned answer would look the same`;
  if (clock === undefined) return undefined;
  const newest = Math.max(...answered.flatMap(([, points]) => points.map((p) => Number(p.date))).filter(Number.isFinite));
  if (!(newest >= clock - 3600))
    return `the newest point (date ${newest}) is more than an hour older than the server's clock when the run logged in (${clock}): the series are not of the last hour`;
  return undefined;
}

/**
 * Every data_type of the spec's table answers an array of monitor points with code 0 — and the series
 * are the server's: they differ between data types and reach into the last hour of the server's clock
 * (`cannedSeriesReason`), else the check is inconclusive (a mock's canned example is an array too).
 */
export async function runMonitorTypes(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const types = e.params.find((p) => p.name === 'data_type')?.enum ?? [];
  if (types.length === 0) return;
  await ctx.check(e, 'monitor.every-data-type', 'endpoints.monitor.response', async () => {
    let points = 0;
    const series = new Map<string, { date?: unknown }[]>();
    for (const type of types) {
      const ex = await ctx.call(e, { data_type: type });
      const data = envelopeOf(ex)?.data;
      if (!succeeded(ex) || !Array.isArray(data))
        return fail(`data_type ${String(type)} must answer an array with code 0, got ${describeAnswer(ex)}`, ex);
      const check = ctx.validator.checkData(e, data);
      if (!check.ok) return fail(`data_type ${String(type)}: ${check.errors.join('; ')}`, ex);
      points += data.length;
      series.set(String(type), data as { date?: unknown }[]);
    }
    const canned = cannedSeriesReason(series, serverClockAtLogin(ctx));
    if (canned) return inconclusive(`${types.length} data types answer arrays (${points} points in all), but ${canned}`);
    // The rows of types that need no dimension ("| … | none |"): each of their types answered points without one.
    const rows = Object.entries(NO_DIMENSION_ROWS)
      .filter(([, ts]) => ts.every((t) => types.includes(t) && (series.get(t)?.length ?? 0) > 0))
      .map(([row]) => row);
    return {
      ...pass(`${types.length} data types answer arrays (${points} points in all), differing between types and of the last hour`),
      also: rows,
    };
  });
}

/** A token lasts token_ttl_hours × 3600 seconds (spec: Authentication rule 4 and the admin section). */
export async function runTokenLifetime(ctx: ConformContext, login: EndpointContract, happy: Exchange | undefined): Promise<void> {
  if (!happy || !succeeded(happy)) return;
  const get = ctx.endpoint('GET', '/api/cluster/config/get');
  if (!get) return;
  await ctx.check(login, 'login.expires-in-matches-ttl', 'auth.admin.token_ttl_hours', async () => {
    const config = await ctx.call(get, {}, 'fixture');
    const ttl = Number((dataOf(config)?.admin as Obj | undefined)?.token_ttl_hours);
    if (!Number.isFinite(ttl)) return skip('config get shows no admin.token_ttl_hours to compare with');
    const expires = Number(dataOf(happy)?.expires_in);
    if (expires !== Math.round(ttl * 3600))
      return fail(`expires_in is ${expires}, but admin.token_ttl_hours ${ttl} gives ${Math.round(ttl * 3600)}`, happy);
    // 0 = 0 × 3600 is true of any answer that holds zeros.
    return pass(`expires_in ${expires} = token_ttl_hours ${ttl} × 3600`, undefined, !(ttl > 0));
  });
}
