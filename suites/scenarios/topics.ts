import { type ConformContext, describeAnswer, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { FamilySuite } from './family-suite.ts';
import { dataOf, readList, type Row, totalOf, waitFor } from './helpers.ts';

/**
 * Topics (spec: Topic; Topics; Limits: topic delete topic_name 1-256). Beyond the generic checks
 * (exact tenant and fuzzy topic_name filters, sorting, paging, create → list → delete, the
 * topic_type values): topic_type partitions the list by `$`, detail agrees with the list, and —
 * with an MQTT client — detail shows a subscriber and a retained message, which a delete removes.
 */

const LIST = '/api/cluster/topic/list';

async function totalWith(ctx: ConformContext, params: Row): Promise<{ total?: number; rows: Row[]; ex?: Exchange }> {
  const got = await readList(ctx, LIST, params);
  return got ? { total: totalOf(got.ex), rows: got.rows, ex: got.ex } : { rows: [] };
}

async function detailOf(ctx: ConformContext, tenant: string, topic: string): Promise<Exchange | undefined> {
  const e = ctx.endpoint('GET', '/api/cluster/topic/detail');
  return e ? ctx.call(e, { tenant, topic_name: topic }) : undefined;
}

export const topics: FamilySuite = {
  family: 'topics',
  tags: ['topics'],
  scenarios: [
    {
      endpoint: 'GET /api/cluster/topic/list',
      checks: ['topic.type-filter', 'topic.type-default-all'],
      assertion: 'endpoints.topic.list.query',
      async run(ctx, e) {
        const all = await totalWith(ctx, { topic_type: 'all' });
        const system = await totalWith(ctx, { topic_type: 'system' });
        const normal = await totalWith(ctx, { topic_type: 'normal' });
        await ctx.check(e, 'topic.type-filter', 'endpoints.topic.list.query', (): Verdict => {
          if (all.total === undefined || system.total === undefined || normal.total === undefined) return fail(`topic_type all/system/normal must each answer a page: ${[all, system, normal].map((x) => (x.ex ? describeAnswer(x.ex) : 'no answer')).join('; ')}`, system.ex ?? normal.ex);
          const notSystem = system.rows.filter((r) => !String(r.topic_name).includes('$'));
          if (notSystem.length > 0) return fail(`topic_type=system lists names without $, e.g. ${JSON.stringify(notSystem[0].topic_name)}`, system.ex);
          const notNormal = normal.rows.filter((r) => String(r.topic_name).includes('$'));
          if (notNormal.length > 0) return fail(`topic_type=normal lists names with $, e.g. ${JSON.stringify(notNormal[0].topic_name)}`, normal.ex);
          if (system.total + normal.total !== all.total) return fail(`system (${system.total}) and normal (${normal.total}) topics do not add up to all (${all.total})`, all.ex);
          return pass(`${all.total} topics = ${system.total} system ($) + ${normal.total} normal`, undefined, system.total === 0 || normal.total === 0);
        });
        await ctx.check(e, 'topic.type-default-all', 'endpoints.topic.list.query', async () => {
          const implicit = await totalWith(ctx, {});
          if (implicit.total === undefined || all.total === undefined) return skip('the list gave no total_count');
          // Only when both kinds exist does "all" differ from "normal" or "system".
          return implicit.total === all.total ? pass(`no topic_type lists all ${all.total} topics`, undefined, !(system.total! > 0 && normal.total! > 0)) : fail(`without topic_type the list has ${implicit.total} topics, with topic_type=all ${all.total}; the default is all`, implicit.ex);
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/topic/detail',
      checks: ['topic.detail-matches-list', 'topic.detail-unknown'],
      assertion: 'endpoints.topic.detail.response',
      async run(ctx, e, env) {
        const t = ctx.state.topic;
        await ctx.check(e, 'topic.detail-matches-list', 'endpoints.topic.detail.response', async () => {
          if (!t || !env.happy || !succeeded(env.happy)) return skip('no topic detail to compare');
          const info = dataOf(env.happy)?.topic_info as Row | undefined;
          const got = await readList(ctx, LIST, { tenant: t.tenant, topic_name: t.topic_name });
          const row = got?.rows.find((r) => r.topic_name === t.topic_name && r.tenant === t.tenant);
          if (!row) return fail(`topic ${t.topic_name} is not in the list`, got?.ex);
          const differ = ['topic_id', 'topic_name', 'tenant', 'partition', 'replication', 'create_time'].filter((k) => k in row && JSON.stringify(info?.[k]) !== JSON.stringify(row[k]));
          return differ.length > 0 ? fail(`detail's topic_info differs from the list record in ${differ.map((k) => `${k} (${JSON.stringify(info?.[k])} vs ${JSON.stringify(row[k])})`).join(', ')}`, env.happy) : pass('topic_info is the list record');
        });
        await ctx.check(e, 'topic.detail-unknown', 'decision.topic.not-found', async () => {
          const ex = await ctx.call(e, { tenant: t?.tenant ?? ctx.names.tenant, topic_name: `conform/${ctx.seed}/no-such-topic` });
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          return succeeded(ex) ? fail(`detail of a topic that does not exist was answered as a success: ${describeAnswer(ex)}`, ex) : pass(`refused: ${describeAnswer(ex)}`);
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/topic/detail',
      checks: ['topic.detail-sub-list', 'topic.detail-retained', 'topic.delete-removes-retained'],
      assertion: 'resources.topic-detail.sub_list',
      needs: ['mqtt-client'],
      async run(ctx, e) {
        const mqtt = ctx.mqtt!;
        const topic = `conform/${ctx.seed}/mqtt/retained`;
        const clientId = `conform-${ctx.seed}-topic`;
        const session = await mqtt.connect(clientId);
        if ('ok' in session) {
          for (const id of ['topic.detail-sub-list', 'topic.detail-retained', 'topic.delete-removes-retained']) await ctx.check(e, id, id === 'topic.delete-removes-retained' ? 'endpoints.topic.delete.effect' : id === 'topic.detail-sub-list' ? 'resources.topic-detail.sub_list' : 'resources.topic-detail.retain_message_at', () => skip(`the MQTT client (${mqtt.via}) could not connect: ${session.reason}`));
          return;
        }
        let tenant: string | undefined;
        try {
          const sub = await session.subscribe(topic, 1);
          const pub = await session.publish(topic, 'mqsim conform retained message', { qos: 1, retain: true });
          // The topic's tenant: the driver's, else the one the topic list shows it in.
          tenant = await waitFor(ctx, 3000, 250, async () => mqtt.tenant ?? ((await readList(ctx, LIST, { topic_name: topic }))?.rows.find((r) => r.topic_name === topic)?.tenant as string | undefined));
          const detail = tenant ? await detailOf(ctx, tenant, topic) : undefined;
          const data = detail && succeeded(detail) ? dataOf(detail) : undefined;
          await ctx.check(e, 'topic.detail-sub-list', 'resources.topic-detail.sub_list', () => {
            if (!sub.ok) return skip(`the subscription could not be made: ${sub.reason}`);
            if (!data) return fail(`the detail of ${topic} (subscribed by ${clientId}) could not be read: ${detail ? describeAnswer(detail) : 'the topic is not listed'}`, detail);
            const list = (Array.isArray(data.sub_list) ? data.sub_list : []) as Row[];
            return list.some((s) => s.client_id === clientId && s.path === topic) ? pass(`sub_list holds {client_id: ${clientId}, path: ${topic}}`) : fail(`${clientId} subscribes to ${topic}, but sub_list is ${JSON.stringify(list).slice(0, 200)}`, detail);
          });
          await ctx.check(e, 'topic.detail-retained', 'resources.topic-detail.retain_message_at', () => {
            if (!pub.ok) return skip(`the retained message could not be published: ${pub.reason}`);
            if (!data) return fail(`the detail of ${topic} could not be read`, detail);
            if (data.retain_message === null || data.retain_message === undefined) return fail(`a retained message was published to ${topic}, but retain_message is ${JSON.stringify(data.retain_message)}`, detail);
            if (typeof data.retain_message_at !== 'number') return fail(`retain_message_at must give the retained message's time, got ${JSON.stringify(data.retain_message_at)}`, detail);
            return pass(`retain_message shown, retain_message_at ${data.retain_message_at}`);
          });
        } finally {
          await session.close();
        }
        const del = ctx.endpoint('POST', '/api/cluster/topic/delete');
        if (!del || !tenant) return;
        await ctx.check(del, 'topic.delete-removes-retained', 'endpoints.topic.delete.effect', async () => {
          const ex = await ctx.call(del, { tenant, topic_name: topic });
          if (!succeeded(ex)) return fail(`deleting ${topic} was refused: ${describeAnswer(ex)}`, ex);
          const after = await detailOf(ctx, tenant!, topic);
          if (!after || !succeeded(after)) return pass('after the delete the topic detail is gone');
          const data = dataOf(after);
          return data?.retain_message === null || data?.retain_message === undefined ? pass('after the delete the topic has no retained message') : fail('the spec: deleting a topic removes its retained message, but detail still shows it', after);
        });
      },
    },
  ],
};
