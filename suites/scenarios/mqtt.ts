import { runMonitorChecks, runMonitorTypes } from '../conform/checks/behaviour-checks.ts';
import { runOverviewConsistency } from '../conform/checks/consistency-checks.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { MONITOR_DIMENSIONS } from '../../fixtures/contract/endpoints/mqtt.ts';
import type { FamilySuite } from './family-suite.ts';
import { dataOf, readList, type Row, waitFor } from './helpers.ts';

/**
 * MQTT overview, monitoring, clients, sessions, subscriptions, slow subscriptions and the path-only
 * lists (spec: MQTT overview, monitoring, clients, sessions, subscriptions; Cluster overview; Monitor
 * point). The monitor rules: a missing required dimension gives [], points in time order, within one
 * hour of the newest. Subscription detail for an exclusive and a shared subscription. With an MQTT
 * client: a connected client, its session and subscriptions appear in their lists.
 */

const DIMENSION_VALUES: Record<string, string> = { topic_name: 'conform/any', client_id: 'conform-any', path: 'conform/#', connector_name: 'conform-any' };

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
  if (data.share_sub !== false) return `share_sub must be false for the exclusive subscription ${String(row.path)}, got ${JSON.stringify(data.share_sub)}`;
  if (data.group_leader_info !== null) return `group_leader_info must be null for an exclusive subscription, got ${JSON.stringify(data.group_leader_info).slice(0, 80)}`;
  const sub = (data.sub_data ?? {}) as Row;
  if (sub.client_id !== row.client_id || sub.path !== row.path) return `sub_data names ${JSON.stringify({ client_id: sub.client_id, path: sub.path })}, not the subscription asked for ${JSON.stringify({ client_id: row.client_id, path: row.path })}`;
  return undefined;
}

export const mqtt: FamilySuite = {
  family: 'mqtt',
  tags: ['mqtt'],
  scenarios: [
    {
      endpoint: 'GET /api/mqtt/overview',
      checks: ['overview.*'],
      assertion: 'resources.overview.totals',
      run: (ctx, e) => runOverviewConsistency(ctx, e),
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
        for (const [type, dims] of Object.entries(MONITOR_DIMENSIONS) as [string, readonly string[]][]) {
          if (dims.length === 0 || type === 'topic_in_num') continue; // topic_in_num: monitor.missing-dimension
          await ctx.check(e, `monitor.missing-dimension.${type}`, 'errors.case.monitor-missing-param', async () => {
            const none = await ctx.call(e, { data_type: type });
            const bad = emptyArray(none, `${type} without ${dims.join(', ')}`);
            if (bad) return bad;
            if (dims.length > 1) {
              // Some but not all of the dimensions: still a missing parameter.
              const partial = await ctx.call(e, { data_type: type, [dims[0]]: DIMENSION_VALUES[dims[0]] });
              const badPartial = emptyArray(partial, `${type} with ${dims[0]} but without ${dims.slice(1).join(', ')}`);
              if (badPartial) return badPartial;
            }
            return pass(`${type} without ${dims.join(', ')} answers []${dims.length > 1 ? ', also with only some of them' : ''}`);
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
          if (!ex || !succeeded(ex)) return fail(`the detail of ${String(row.client_id)} ${String(row.path)} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`, ex);
          const problem = exclusiveProblems(row, dataOf(ex));
          if (!problem) exclusiveSeen = true;
          return problem ? fail(problem, ex) : pass(`exclusive ${String(row.path)}: share_sub false, group_leader_info null`);
        });
        await ctx.check(e, 'subscribe.detail-shared', 'resources.subscription-detail.share_sub', async () => {
          const row = rows.find(isShared);
          if (!row) return skip('no shared subscription on the target');
          const ex = await detailOf(ctx, row);
          if (!ex || !succeeded(ex)) return fail(`the detail of the shared ${String(row.path)} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`, ex);
          const data = dataOf(ex);
          // share_sub true means something only from a server that answered false for an exclusive one.
          return data?.share_sub === true ? pass(`shared ${String(row.path)}: share_sub true`, undefined, !exclusiveSeen) : fail(`${String(row.path)} is a shared subscription, but share_sub is ${JSON.stringify(data?.share_sub)}`, ex);
        });
      },
    },
    {
      endpoint: 'GET /api/mqtt/client/list',
      checks: ['client.connected-listed', 'session.connected-listed', 'subscribe.created-listed', 'subscribe.created-detail', 'client.disconnected'],
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
        if ('ok' in session) {
          for (const [ep, id] of [[e, 'client.connected-listed'], [sessions, 'session.connected-listed'], [subs, 'subscribe.created-listed'], [detail, 'subscribe.created-detail'], [e, 'client.disconnected']] as const) {
            await ctx.check(ep, id, id === 'subscribe.created-detail' ? 'endpoints.subscribe.detail.response' : id === 'client.disconnected' ? 'resources.client.network_connection' : 'service.lists', () => skip(`the MQTT client (${driver.via}) could not connect: ${session.reason}`));
          }
          return;
        }
        const filter = driver.tenant ? { tenant: driver.tenant } : {};
        const find = async (listPath: string) =>
          waitFor(ctx, 3000, 250, async () => (await readList(ctx, listPath, { ...filter, client_id: clientId }))?.rows.find((r) => r.client_id === clientId && (listPath !== '/api/mqtt/subscribe/list' || r.path === path)));
        try {
          const sub = await session.subscribe(path, 1);
          await ctx.check(e, 'client.connected-listed', 'service.lists', async () => {
            const row = await find('/api/mqtt/client/list');
            return row ? pass(`the connected client ${clientId} is listed`) : fail(`client ${clientId} is connected (${driver.via}) but not in the client list`);
          });
          await ctx.check(sessions, 'session.connected-listed', 'service.lists', async () => {
            const row = await find('/api/mqtt/session/list');
            return row ? pass(`the session of ${clientId} is listed`) : fail(`client ${clientId} is connected, but its session is not in the session list`);
          });
          let listed: Row | undefined;
          await ctx.check(subs, 'subscribe.created-listed', 'service.lists', async () => {
            if (!sub.ok) return skip(`the subscription could not be made: ${sub.reason}`);
            listed = await find('/api/mqtt/subscribe/list');
            if (!listed) return fail(`${clientId} subscribed to ${path}, but the subscription list does not show it`);
            return typeof listed.qos === 'string' ? pass(`listed with qos ${JSON.stringify(listed.qos)} (a text label)`) : fail(`the list's qos must be a text label, got ${JSON.stringify(listed.qos)}`);
          });
          await ctx.check(detail, 'subscribe.created-detail', 'endpoints.subscribe.detail.response', async () => {
            if (!listed) return skip('the subscription is not listed');
            const ex = await detailOf(ctx, listed);
            if (!ex || !succeeded(ex)) return fail(`the detail of ${clientId} ${path} was refused: ${ex ? describeAnswer(ex) : 'no endpoint'}`, ex);
            const problem = exclusiveProblems(listed, dataOf(ex));
            return problem ? fail(problem, ex) : pass('detail of the new exclusive subscription: share_sub false, group_leader_info null');
          });
        } finally {
          await session.close();
        }
        await ctx.check(e, 'client.disconnected', 'resources.client.network_connection', async () => {
          // Spec: network_connection is null when disconnected; a client without a session may go from the list.
          const row = await waitFor(ctx, 3000, 250, async () => {
            const r = (await readList(ctx, '/api/mqtt/client/list', { ...filter, client_id: clientId }))?.rows.find((x) => x.client_id === clientId);
            return r === undefined || r.network_connection === null ? { gone: r === undefined } : undefined;
          });
          if (!row) return fail(`client ${clientId} disconnected, but the list still shows a network_connection for it`);
          return pass(row.gone ? 'the disconnected client left the list' : 'the disconnected client is listed with network_connection null');
        });
      },
    },
  ],
};
