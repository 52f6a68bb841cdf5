import type { EndpointContract } from '../../contract/core/types.ts';
import { type ConformContext, envelopeOf, pass, succeeded, type Verdict } from './conform-context.ts';
import type { Exchange } from './exchange.ts';
import { pollFor } from './check-helpers.ts';
import { familyByKey, fixtureFields } from './resource-families.ts';

/**
 * Per-path knowledge for a valid ("happy path") request: which fields to send, and which answers
 * besides a plain success the spec also allows. Endpoints not listed get the contract's required
 * parameters with minimal values.
 */
export interface Scenario {
  /** Fields of a valid request, or a reason why none can be built on this target. */
  fields?(ctx: ConformContext): Promise<Record<string, unknown> | Unsendable> | Record<string, unknown> | Unsendable;
  /** An answer other than a plain success that the spec allows; undefined = judge as usual. */
  alternative?(ex: Exchange, ctx: ConformContext): Verdict | undefined;
  /** The request changes state in a way that must not be repeated freely (extra-field checks skip it). */
  unsafe?: boolean;
}

/**
 * Why no valid request can be sent: `skip` says why; `noFixture` when it is a fixture the run could not
 * make (the check is then inconclusive, not skipped: the target was not shown to lack anything).
 */
export interface Unsendable {
  skip: string;
  noFixture?: true;
}

/** Finds the first value of `key` anywhere in a JSON value (shard names hide at different depths). */
export function findKey(value: unknown, key: string, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, key)) return (value as Record<string, unknown>)[key];
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const found = findKey(v, key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function topicFields(ctx: ConformContext, key = 'topic_name'): Record<string, unknown> | Unsendable {
  const t = ctx.state.topic;
  return t
    ? { tenant: t.tenant, [key]: t.topic_name }
    : { skip: 'no topic to read: the fixture topic could not be created and the topic list is empty', noFixture: true };
}

function shardFields(ctx: ConformContext): Record<string, unknown> | Unsendable {
  return ctx.state.shardName
    ? { shard_name: ctx.state.shardName, segment_seq: ctx.state.segmentSeq ?? 0 }
    : { skip: 'no shard to read: none could be created or found', noFixture: true };
}

/** mq9 endpoints may answer that the messaging component is not running (spec: mq9). */
function notRunningAllowed(ex: Exchange): Verdict | undefined {
  const env = envelopeOf(ex);
  if (env && env.code !== 0 && env.text && /not running/i.test(env.text)) {
    return pass(`the messaging component is not running ("${env.text}"), an answer the spec allows`, ex, true);
  }
  return undefined;
}

const SCENARIOS: Record<string, Scenario> = {
  'POST /api/v1/login': {
    fields: (ctx) => ctx.target.credentials ?? { skip: 'no credentials for this target: pass --username and --password' },
  },
  'POST /api/cluster/tenant/update': {
    fields: (ctx) => ({ tenant_name: ctx.names.tenant, desc: 'updated by mqsim conform' }),
  },
  'GET /api/cluster/topic/detail': { fields: (ctx) => topicFields(ctx) },
  'GET /api/cluster/topic/list': { fields: (ctx) => ({ tenant: ctx.names.tenant }) },
  'GET /api/cluster/schema-bind/list': { fields: (ctx) => ({ tenant: ctx.names.tenant, schema_name: 'conform-schema' }) },
  'GET /api/cluster/connector/detail': {
    fields: async (ctx) => {
      await waitForRunningConnector(ctx);
      return { tenant: ctx.names.tenant, connector_name: `conform-conn-${ctx.seed}` };
    },
    alternative: (ex, ctx) => {
      // Spec: detail exists only while the connector runs; otherwise this exact text.
      const env = envelopeOf(ex);
      const want = `Connector thread conform-conn-${ctx.seed} does not exist.`;
      if (env && env.code !== 0 && env.text?.includes(want))
        return pass(`the connector is not running yet; "${want}" is the spec's answer for that`, ex, true);
      return undefined;
    },
  },
  'GET /api/mqtt/subscribe/detail': {
    fields: async (ctx) => {
      const list = ctx.endpoint('GET', '/api/mqtt/subscribe/list');
      if (!list) return { skip: 'the contract has no subscription list to pick a subscription from' };
      const ex = await ctx.call(list, { limit: 1 }, 'fixture');
      const first = succeeded(ex) ? ((envelopeOf(ex)?.data as { data?: Record<string, unknown>[] })?.data ?? [])[0] : undefined;
      if (!first) return { skip: 'no subscription exists on the target (the subscription list is empty)' };
      return { tenant: first.tenant, client_id: first.client_id, path: first.path };
    },
  },
  'GET /api/mqtt/monitor/data': { fields: () => ({ data_type: 'connection_num' }) },
  'GET /api/mq9/mail/list': { alternative: notRunningAllowed },
  'GET /api/mq9/agent/list': { alternative: notRunningAllowed },
  'POST /api/storage-engine/segment/detail': { fields: shardFields },
  'POST /api/storage-engine/segment/replica-state': { fields: shardFields },
  'POST /api/storage-engine/segment/list': { fields: shardFields },
  'POST /api/cluster/offset/timestamp': {
    fields: (ctx) =>
      ctx.state.shardName
        ? { shard_name: ctx.state.shardName, timestamp: 0, strategy: 'earliest' }
        : { skip: 'no shard to query: none could be created or found', noFixture: true },
  },
  'POST /api/cluster/offset/group': { fields: (ctx) => ({ tenant: ctx.names.tenant, group_name: ctx.names.group }) },
  'POST /api/cluster/offset/commit': {
    fields: (ctx) => {
      const t = ctx.state.topic;
      if (!ctx.state.shardName || !t) return { skip: 'no shard and topic to commit an offset for', noFixture: true };
      return {
        tenant: ctx.names.tenant,
        group_name: ctx.names.group,
        offsets: [{ shard_name: ctx.state.shardName, topic_name: t.topic_name, partition: 0, offset: 0 }],
      };
    },
  },
  'POST /api/mqtt/message/send': { fields: (ctx) => messageFields(ctx, 'send') },
  'POST /api/cluster/message/send': { fields: (ctx) => messageFields(ctx, 'send') },
  'POST /api/mqtt/message/read': { fields: (ctx) => messageFields(ctx, 'read') },
  'POST /api/cluster/message/read': { fields: (ctx) => messageFields(ctx, 'read') },
  'POST /api/cluster/node/leave': { unsafe: true },
  'POST /api/cluster/config/set': { unsafe: true },
};

/**
 * The topic the message endpoints use: one of their own, created at first use (after the node-leave
 * scenario, which may have removed the node holding the fixture topic's only replica); the fixture
 * topic when no topic can be created.
 */
export async function messageTopic(ctx: ConformContext): Promise<{ tenant: string; topic_name: string } | undefined> {
  if (ctx.state.messageTopic) return ctx.state.messageTopic;
  const family = familyByKey(ctx, 'topic');
  const resources = ctx.resources;
  if (family && resources && resources.createEndpoint(family)) {
    const fields = fixtureFields(ctx, family, '-msg');
    const ex = await resources.create(family, fields, 'fixture');
    if (ex && succeeded(ex)) {
      ctx.state.messageTopic = { tenant: String(fields.tenant), topic_name: String(fields.topic_name) };
      // One record from the start, so a read has something to return whichever endpoint runs first (and in any shard).
      const send = ctx.endpoint('POST', '/api/mqtt/message/send') ?? ctx.endpoint('POST', '/api/cluster/message/send');
      if (send)
        await ctx.call(
          send,
          { tenant: fields.tenant, topic: fields.topic_name, payload: 'mqsim conform first record', key: 'conform' },
          'fixture',
        );
    }
  }
  return ctx.state.messageTopic ?? ctx.state.topic;
}

async function messageFields(ctx: ConformContext, op: 'send' | 'read'): Promise<Record<string, unknown> | Unsendable> {
  const t = await messageTopic(ctx);
  if (!t) return { skip: 'no topic to use: none could be created or found', noFixture: true };
  const base = { tenant: t.tenant, topic: t.topic_name, topic_name: t.topic_name };
  return op === 'send' ? { ...base, payload: 'mqsim conform', key: 'conform' } : { ...base, offset: 0 };
}

export function scenarioOf(e: EndpointContract): Scenario {
  return SCENARIOS[`${e.method} ${e.path}`] ?? {};
}

/** Polls the connector list up to 5 s of target time (see pollFor) until the fixture connector is Running (spec: detail needs a running connector). */
async function waitForRunningConnector(ctx: ConformContext): Promise<void> {
  const list = ctx.endpoint('GET', '/api/cluster/connector/list');
  if (!list) return;
  const name = `conform-conn-${ctx.seed}`;
  await pollFor(ctx, 5000, 250, async () => {
    const ex = await ctx.call(list, { tenant: ctx.names.tenant, connector_name: name }, 'fixture');
    const rows = (envelopeOf(ex)?.data as { data?: Record<string, unknown>[] } | undefined)?.data ?? [];
    const row = rows.find((r) => r.connector_name === name);
    return !row || row.status === 'Running' || !succeeded(ex) ? true : undefined;
  });
}
