import { type ConformContext, describeAnswer, envelopeOf, succeeded } from './conform-context.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { listingEndpointId } from '../../contract/family-rules.ts';
import { type CreatedResources, fixtureFields } from './resource-families.ts';
import { dataOf, type Row } from './check-helpers.ts';
import { findKey } from './scenarios.ts';

/**
 * Creates the run's fixtures in a tenant of its own (`conform-<seed>`): user, ACL rule, blacklist
 * entry, rewrite and auto-subscribe rules, schema and binding, connector, topic and shard, each only
 * when the contract has its create endpoint. A fixture left over by an interrupted run with the same
 * seed is deleted and created again. After, learns what later checks need: a topic, a shard, the
 * online nodes. `probed` is the MQTT listener probe going on meanwhile: discover waits for it before
 * it falls back to reading the topic or shard list (the probe's client may have published a topic
 * there, as it had in a run that probed first). Returns one line per problem (reported as notes,
 * never as a crash).
 */
export async function setUpFixtures(
  ctx: ConformContext,
  resources: CreatedResources,
  probed: Promise<unknown> = Promise.resolve(),
): Promise<string[]> {
  const problems: string[] = [];
  for (const family of ctx.families) {
    if (!resources.createEndpoint(family)) continue;
    const missing = (family.dependsOn ?? []).filter(
      (d) => !resources.fixtures.has(d) && ctx.families.some((f) => f.key === d && resources.createEndpoint(f)),
    );
    if (missing.length > 0) {
      resources.fixtureProblems.set(family.key, `it needs the ${missing.join(', ')} fixture, which could not be created`);
      problems.push(`fixture ${family.key} not created: it needs ${missing.join(', ')}, which could not be created`);
      continue;
    }
    const fields = fixtureFields(ctx, family, '');
    let ex = await resources.create(family, fields, 'fixture');
    if (ex && !succeeded(ex) && resources.deleteEndpoint(family)) {
      // A leftover of an interrupted run with the same seed: remove it and try once more.
      const removed = await resources.delete(family, fields, 'cleanup');
      if (removed && succeeded(removed)) ex = await resources.create(family, fields, 'fixture');
    }
    if (ex && succeeded(ex)) resources.fixtures.set(family.key, fields);
    else if (ex) {
      resources.fixtureProblems.set(family.key, `its create was refused (${describeAnswer(ex)})`);
      problems.push(`fixture ${family.key} not created (${describeAnswer(ex)}); checks that need it are inconclusive`);
    }
  }
  if (!resources.fixtures.has('topic') || !resources.fixtures.has('shard')) await probed.catch(() => {});
  await discover(ctx, resources);
  return problems;
}

async function discover(ctx: ConformContext, resources: CreatedResources): Promise<void> {
  const topic = resources.fixtures.get('topic');
  if (topic) ctx.state.topic = { tenant: String(topic.tenant), topic_name: String(topic.topic_name) };
  else {
    const list = ctx.endpoint('GET', '/api/cluster/topic/list');
    if (list) {
      const ex = await ctx.call(list, { limit: 1 }, 'fixture');
      const row = ((envelopeOf(ex)?.data as { data?: Record<string, unknown>[] } | undefined)?.data ?? [])[0];
      if (row && typeof row.topic_name === 'string') ctx.state.topic = { tenant: String(row.tenant ?? ''), topic_name: row.topic_name };
    }
  }

  const shard = resources.fixtures.get('shard');
  if (shard) ctx.state.shardName = String(shard.shard_name);
  else {
    for (const [method, path, params] of [
      ['POST', '/api/storage-engine/shard/list', {}],
      ['GET', '/api/cluster/topic/detail', ctx.state.topic ?? {}],
    ] as const) {
      const e = ctx.endpoint(method, path);
      if (!e || ctx.state.shardName) continue;
      const ex = await ctx.call(e, params, 'fixture');
      const name = succeeded(ex) ? findKey(envelopeOf(ex)?.data, 'shard_name') : undefined;
      if (typeof name === 'string' && name.length > 0) ctx.state.shardName = name;
    }
  }
  const segments = ctx.endpoint('POST', '/api/storage-engine/segment/list');
  if (segments && ctx.state.shardName) {
    const ex = await ctx.call(segments, { shard_name: ctx.state.shardName }, 'fixture');
    const seq = succeeded(ex) ? findKey(envelopeOf(ex)?.data, 'segment_seq') : undefined;
    if (typeof seq === 'number') ctx.state.segmentSeq = seq;
  }
  ctx.state.onlineNodeIds = await onlineNodeIds(ctx);
}

/**
 * Records a list needs before its laws can be decided: more than 20, so a default page size can be
 * told from 10 and 20; distinct names, so sorts and filters have records that differ. For every
 * family whose list is checked in this run, POPULATION instances (`<fixture>-p0` …) are created in the
 * run's tenant; they are deleted with the rest at the end.
 */
const POPULATION = 21;

export async function populateLists(
  ctx: ConformContext,
  resources: CreatedResources,
  checked: readonly EndpointContract[],
): Promise<string[]> {
  const problems: string[] = [];
  const listed = new Set(checked.filter((e) => e.list).map((e) => e.id));
  for (const family of ctx.families) {
    const list = listingEndpointId(family);
    if (list === undefined || !listed.has(list) || !resources.fixtures.has(family.key)) continue;
    for (let i = 0; i < POPULATION; i++) {
      const ex = await resources.create(family, fixtureFields(ctx, family, `-p${i}`), 'fixture');
      if (ex && !succeeded(ex)) {
        problems.push(
          `list population of ${family.key}: instance ${i + 1} of ${POPULATION} not created (${describeAnswer(ex)}); its list laws may be inconclusive`,
        );
        break;
      }
    }
  }
  return problems;
}

/**
 * Node ids the target reports as online (status endpoint, else the MQTT overview): read once here for
 * `ctx.state`, and again by the node scenarios after a node leaves.
 */
export async function onlineNodeIds(ctx: ConformContext): Promise<number[]> {
  for (const [path, key] of [
    ['/api/status', 'broker_node_list'],
    ['/api/info', 'broker_node_list'],
    ['/api/mqtt/overview', 'node_list'],
  ] as const) {
    const e = ctx.endpoint('GET', path);
    if (!e) continue;
    const ex = await ctx.call(e, {}, 'fixture');
    const nodes = dataOf(ex)?.[key];
    if (Array.isArray(nodes)) {
      const ids = nodes.map((n) => Number((n as Row).node_id)).filter((n) => Number.isInteger(n) && n >= 1);
      if (ids.length > 0) return ids.sort((a, b) => a - b);
    }
  }
  return [];
}
