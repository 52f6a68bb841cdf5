import type { EndpointContract } from '../../../contract/core/types.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded, type Verdict } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';
import { type CreatedResources, familyByKey, fixtureFields } from '../resource-families.ts';

type Obj = Record<string, unknown>;

const dataOf = (ex: Exchange) => envelopeOf(ex)?.data as Obj | undefined;

/** Runs a comparison twice before failing it: counts move on a live target between two requests. */
async function settled(law: () => Promise<Verdict>): Promise<Verdict> {
  const first = await law();
  if (first.status !== 'fail') return first;
  const second = await law();
  return second.status === 'fail' ? { ...second, message: `${second.message} (seen twice)` } : second;
}

async function totalOf(ctx: ConformContext, path: string): Promise<{ total?: number; ex?: Exchange }> {
  const e = ctx.endpoint('GET', path);
  if (!e) return {};
  const ex = await ctx.call(e, {}, 'check');
  const total = (dataOf(ex) as { total_count?: unknown } | undefined)?.total_count;
  return { total: typeof total === 'number' ? total : undefined, ex };
}

/**
 * The overview's totals agree with the lists they summarise (spec: Cluster overview — "connectors
 * (all tenants)", "totals across tenants"; lists: total_count = all matching records).
 */
export async function runOverviewConsistency(ctx: ConformContext, e: EndpointContract): Promise<void> {
  if (e.path !== '/api/mqtt/overview') return;
  const pairs: [string, string][] = [
    ['connector_num', '/api/cluster/connector/list'],
    ['topic_num', '/api/cluster/topic/list'],
    ['session_num', '/api/mqtt/session/list'],
    ['subscribe_num', '/api/mqtt/subscribe/list'],
  ];
  for (const [field, path] of pairs) {
    const list = ctx.endpoint('GET', path);
    if (!list) continue;
    // A list that samples (sessions: at most 100) reports the sample's size on some servers; the spec's total_count is the total.
    await ctx.check(
      e,
      `overview.${field}-matches-list`,
      field === 'connector_num' ? 'resources.overview.connectors' : 'resources.overview.totals',
      async () =>
        settled(async () => {
          const overview = await ctx.call(e, {});
          const count = dataOf(overview)?.[field];
          if (typeof count !== 'number') return fail(`the overview has no numeric ${field}: ${describeAnswer(overview)}`, overview);
          const { total, ex } = await totalOf(ctx, path);
          if (total === undefined) return skip(`${path} gave no total_count (${ex ? describeAnswer(ex) : 'no answer'})`);
          if (total !== count) return fail(`overview ${field} is ${count}, but ${path} has total_count ${total}`, overview);
          return pass(`${field} ${count} = total_count of ${path}`, undefined, count === 0);
        }),
    );
  }
  const status = ctx.endpoint('GET', '/api/status');
  if (status) {
    await ctx.check(e, 'overview.node-list-matches-status', 'resources.overview.node_list', async () => {
      const overview = await ctx.call(e, {});
      const st = await ctx.call(status, {});
      const a = dataOf(overview)?.node_list;
      const b = dataOf(st)?.broker_node_list;
      if (!Array.isArray(a) || !Array.isArray(b)) return skip('node lists not available on both endpoints');
      const ids = (l: unknown[]) => JSON.stringify(l.map((n) => (n as Obj).node_id).sort());
      if (ids(a) !== ids(b)) return fail(`overview node_list ${ids(a)} differs from the status broker_node_list ${ids(b)}`, overview);
      // Two lists of one node (or none) agree whatever the server does. The overview was asked without parameters (endpoints.overview.params).
      return { ...pass(`${a.length} nodes on both`, undefined, a.length < 2), also: ['endpoints.overview.params'] };
    });
  }
}

/** Connector states (spec: States — Idle has no node; a Running connector is run by a node). */
export async function runConnectorStates(ctx: ConformContext, e: EndpointContract, happy: Exchange | undefined): Promise<void> {
  if (e.path !== '/api/cluster/connector/list' || !happy || !succeeded(happy)) return;
  await ctx.check(e, 'connector.state-and-broker', 'resources.connector.broker_id', () => {
    const rows = ((dataOf(happy) as { data?: Obj[] } | undefined)?.data ?? []) as Obj[];
    for (const r of rows) {
      const broker = r.broker_id;
      const unassigned = broker === null || broker === undefined || broker === '' || broker === '-';
      if (r.status === 'Idle' && !unassigned)
        return fail(
          `connector ${String(r.connector_name)} is Idle but has broker_id ${JSON.stringify(broker)}; the spec: broker_id is null until a node runs it`,
          happy,
        );
      if (r.status === 'Running' && unassigned)
        return fail(`connector ${String(r.connector_name)} is Running but names no broker_id`, happy);
    }
    return pass(
      `${rows.length} connectors: Idle ones have no broker, Running ones have one`,
      undefined,
      !rows.some((r) => r.status === 'Idle' || r.status === 'Running'),
    );
  });
}

/** A tenant created without a config gets the spec's default quota (spec: Tenant). */
export async function runTenantDefaults(ctx: ConformContext, e: EndpointContract, resources: CreatedResources): Promise<void> {
  if (e.path !== '/api/cluster/tenant/create') return;
  const fields = resources.fixtures.get('tenant');
  const list = ctx.endpoint('GET', '/api/cluster/tenant/list');
  const config = e.params.find((p) => p.name === 'config');
  const defaults = Object.fromEntries((config?.properties ?? []).filter((p) => p.default !== undefined).map((p) => [p.name, p.default]));
  if (!fields || !list || Object.keys(defaults).length === 0) return;
  await ctx.check(e, 'tenant.default-quota', 'endpoints.tenant.create', async () => {
    const ex = await ctx.call(list, { tenant_name: fields.tenant_name });
    const row = (((dataOf(ex) as { data?: Obj[] } | undefined)?.data ?? []) as Obj[]).find((r) => r.tenant_name === fields.tenant_name);
    if (!row) return fail(`the tenant ${String(fields.tenant_name)} created without a config is not listed`, ex);
    const got = (row.config ?? {}) as Obj;
    const wrong = Object.entries(defaults).filter(([k, v]) => got[k] !== v);
    if (wrong.length > 0)
      return fail(
        `quota fields without their defaults: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(got[k])} (default ${JSON.stringify(v)})`).join(', ')}`,
        ex,
      );
    return pass(`the ${Object.keys(defaults).length} quota defaults apply`);
  });
}

/** What a segment's replicas must agree on (spec: Storage segment and replica). Returns the broken rules. */
export function replicaProblems(detail: Obj): string[] {
  const problems: string[] = [];
  const segment = (detail.segment ?? {}) as Obj;
  const replicas = (Array.isArray(detail.replicas) ? detail.replicas : []) as Obj[];
  const listed = (Array.isArray(segment.replicas) ? segment.replicas : []) as Obj[];
  const isr = (Array.isArray(segment.isr) ? segment.isr : []).map(Number);
  const ids = (l: Obj[]) => JSON.stringify(l.map((r) => Number(r.node_id)).sort((a, b) => a - b));
  if (ids(replicas) !== ids(listed)) problems.push(`replica states ${ids(replicas)} do not match the segment's replicas ${ids(listed)}`);
  const leaders = replicas.filter((r) => r.is_leader === true);
  if (leaders.length !== 1) problems.push(`${leaders.length} replicas claim is_leader; exactly one must`);
  for (const r of replicas) {
    const id = Number(r.node_id);
    if (r.is_leader === true && id !== Number(segment.leader))
      problems.push(`replica on node ${id} is_leader but the segment's leader is ${String(segment.leader)}`);
    if (r.in_isr !== isr.includes(id))
      problems.push(`replica on node ${id} has in_isr ${String(r.in_isr)} but the segment's isr is ${JSON.stringify(isr)}`);
    if (r.available === false) {
      if (!(typeof r.error === 'string' && r.error.length > 0)) problems.push(`unavailable replica on node ${id} carries no error text`);
      continue;
    }
    if (r.is_leader === true && r.role !== 'Leader') problems.push(`the leader replica on node ${id} has role ${JSON.stringify(r.role)}`);
    if (r.is_leader !== true && r.role === 'Leader') problems.push(`replica on node ${id} has role Leader but is_leader false`);
    const leo = Number(r.leo);
    if (Number(r.log_start_offset) > leo)
      problems.push(`replica on node ${id}: log_start_offset ${String(r.log_start_offset)} above leo ${leo}`);
    // The high watermark is shard-level (spec), so it can pass the LEO of a sealed segment; the rule
    // "at most the LEO of every ISR member" holds for the active segment.
    if (segment.status === 'Write' && r.in_isr === true && Number(r.high_watermark) > leo)
      problems.push(`in-sync replica on node ${id}: high_watermark ${String(r.high_watermark)} above its leo ${leo}`);
    const progress = (Array.isArray(r.follower_progress) ? r.follower_progress : []) as Obj[];
    if (r.is_leader === true) {
      for (const f of progress) {
        const follower = replicas.find((x) => Number(x.node_id) === Number(f.node_id));
        if (Number(f.lag) !== leo - Number(f.leo))
          problems.push(
            `follower_progress of node ${String(f.node_id)}: lag ${String(f.lag)} is not leader leo ${leo} minus ${String(f.leo)}`,
          );
        // The leader learns a follower's LEO at its next fetch, so its view may lag behind, never lead.
        if (follower && follower.available !== false && Number(f.leo) > Number(follower.leo))
          problems.push(
            `follower_progress says node ${String(f.node_id)} is at leo ${String(f.leo)}, beyond its replica state's ${String(follower.leo)}`,
          );
      }
      if (r.fetch !== null && r.fetch !== undefined) problems.push(`the leader replica on node ${id} has a fetch object (followers only)`);
    } else {
      if (progress.length > 0) problems.push(`follower replica on node ${id} has follower_progress (leader only)`);
      const fetch = r.fetch as Obj | null | undefined;
      if (fetch && Number(fetch.leader_node_id) !== Number(segment.leader))
        problems.push(`follower on node ${id} fetches from ${String(fetch.leader_node_id)}, not the leader ${String(segment.leader)}`);
    }
  }
  return problems;
}

/**
 * Replica states of a replicated segment agree with each other and with the segment. The run makes
 * a shard with as many replicas as there are nodes (up to 3), reads segment 0, and deletes the shard.
 */
export async function runReplicaInvariants(ctx: ConformContext, e: EndpointContract, resources: CreatedResources): Promise<void> {
  if (e.path !== '/api/storage-engine/segment/detail') return;
  const family = familyByKey(ctx, 'shard');
  await ctx.check(e, 'segment.replica-invariants', 'endpoints.segment.detail.response', async () => {
    const nodes = Math.min(3, (ctx.state.onlineNodeIds ?? []).length);
    let shardName = ctx.state.shardName;
    let made: Record<string, unknown> | undefined;
    if (family && resources.createEndpoint(family) && nodes >= 2) {
      const fields: Record<string, unknown> = {
        ...fixtureFields(ctx, family, '-rep'),
        config: JSON.stringify({ replica_num: nodes, storage_type: 'EngineSegment', retention_sec: 86_400 }),
      };
      const created = await resources.create(family, fields, 'fixture');
      if (created && succeeded(created)) {
        made = fields;
        shardName = String(fields.shard_name);
      }
    }
    if (!shardName) return skip('no shard to read');
    try {
      const ex = await ctx.call(e, { shard_name: shardName, segment_seq: 0 });
      if (!succeeded(ex)) return fail(`segment 0 of ${shardName} could not be read: ${describeAnswer(ex)}`, ex);
      const detail = dataOf(ex);
      if (!detail) return fail('segment detail has no data', ex);
      const problems = replicaProblems(detail);
      // Reading a shard's segment is what "inspect storage-engine shards and segments" offers (service.storage);
      // two or more replicas answered with their state show the remote ones fetched (endpoints.segment.detail.forwarding).
      const replicas = (Array.isArray(detail.replicas) ? detail.replicas : []) as Obj[];
      const answered = replicas.filter((r) => r.available !== false).length;
      const also = ['service.storage', ...(answered >= 2 ? ['endpoints.segment.detail.forwarding'] : [])];
      if (problems.length > 0) return { ...fail(problems.slice(0, 5).join('; '), ex), also };
      const n = replicas.length;
      return { ...pass(`${n} replica states agree with the segment and with each other`, undefined, n < 2), also };
    } finally {
      if (made && family) await resources.delete(family, made, 'cleanup');
    }
  });
}
