import { type ConformContext, describeAnswer, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import type { MqttOutcome } from '../targets/target.ts';
import { dataOf, readList, type Row, totalOf, waitFor } from '../conform/check-helpers.ts';
import { duplicateCreate, topicQuota } from './duplicates.ts';

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

/** A shard detail's fields, as a topic's storage_list shows it per partition (notes §7). */
const SHARD_DETAIL_KEYS = ['shard_name', 'topic_name', 'config', 'shard', 'offset', 'desc'];

/** What the topic detail showed of a topic the run's client subscribed to and published a retained message on. */
interface RetainedRead {
  topic: string;
  clientId: string;
  sub: MqttOutcome;
  pub: MqttOutcome;
  /** The topic's tenant: the driver's, else the one the topic list shows it in. */
  tenant: string | undefined;
  detail: Exchange | undefined;
  data: Row | undefined;
}

/**
 * With an MQTT client: a subscriber and a retained message show in the topic's detail (sub_list,
 * retain_message and its time, its payload bytes and shape), and deleting the topic removes them.
 */
async function runDetailWithMqttClient(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const mqtt = ctx.mqtt!;
  const topic = `conform/${ctx.seed}/mqtt/retained`;
  const clientId = `conform-${ctx.seed}-topic`;
  const session = await mqtt.connect(clientId);
  if ('ok' in session) {
    for (const id of ['topic.detail-sub-list', 'topic.detail-retained', 'topic.delete-removes-retained'])
      await ctx.check(
        e,
        id,
        id === 'topic.delete-removes-retained'
          ? 'endpoints.topic.delete.effect'
          : id === 'topic.detail-sub-list'
            ? 'resources.topic-detail.sub_list'
            : 'resources.topic-detail.retain_message_at',
        () => skip(`the MQTT client (${mqtt.via}) could not connect: ${session.reason}`),
      );
    return;
  }
  let tenant: string | undefined;
  try {
    const sub = await session.subscribe(topic, 1);
    const pub = await session.publish(topic, 'mqsim conform retained message', { qos: 1, retain: true });
    // The topic's tenant: the driver's, else the one the topic list shows it in.
    tenant = await waitFor(
      ctx,
      3000,
      250,
      async () =>
        mqtt.tenant ??
        ((await readList(ctx, LIST, { topic_name: topic }))?.rows.find((r) => r.topic_name === topic)?.tenant as string | undefined),
    );
    const detail = tenant ? await detailOf(ctx, tenant, topic) : undefined;
    const data = detail && succeeded(detail) ? dataOf(detail) : undefined;
    const read: RetainedRead = { topic, clientId, sub, pub, tenant, detail, data };
    await checkSubList(ctx, e, read);
    await checkRetained(ctx, e, read);
    await checkRetainPayloadBytes(ctx, e, read);
    await checkRetainMessageShape(ctx, e, read);
  } finally {
    await session.close();
  }
  await checkDeleteRemovesRetained(ctx, topic, tenant);
}

async function checkSubList(ctx: ConformContext, e: EndpointContract, r: RetainedRead): Promise<void> {
  const { sub, data, topic, clientId, detail } = r;
  await ctx.check(e, 'topic.detail-sub-list', 'resources.topic-detail.sub_list', () => {
    if (!sub.ok) return skip(`the subscription could not be made: ${sub.reason}`);
    if (!data)
      return fail(
        `the detail of ${topic} (subscribed by ${clientId}) could not be read: ${detail ? describeAnswer(detail) : 'the topic is not listed'}`,
        detail,
      );
    const list = (Array.isArray(data.sub_list) ? data.sub_list : []) as Row[];
    return list.some((s) => s.client_id === clientId && s.path === topic)
      ? pass(`sub_list holds {client_id: ${clientId}, path: ${topic}}`)
      : fail(`${clientId} subscribes to ${topic}, but sub_list is ${JSON.stringify(list).slice(0, 200)}`, detail);
  });
}

async function checkRetained(ctx: ConformContext, e: EndpointContract, r: RetainedRead): Promise<void> {
  const { pub, data, topic, detail } = r;
  await ctx.check(e, 'topic.detail-retained', 'resources.topic-detail.retain_message_at', () => {
    if (!pub.ok) return skip(`the retained message could not be published: ${pub.reason}`);
    if (!data) return fail(`the detail of ${topic} could not be read`, detail);
    if (data.retain_message === null || data.retain_message === undefined)
      return fail(`a retained message was published to ${topic}, but retain_message is ${JSON.stringify(data.retain_message)}`, detail);
    if (typeof data.retain_message_at !== 'number')
      return fail(`retain_message_at must give the retained message's time, got ${JSON.stringify(data.retain_message_at)}`, detail);
    return pass(`retain_message shown, retain_message_at ${data.retain_message_at}`);
  });
}

/** Decision: the payload as a byte array (the UTF-8 bytes of what was published); no retained message, both null. */
async function checkRetainPayloadBytes(ctx: ConformContext, e: EndpointContract, r: RetainedRead): Promise<void> {
  const { pub, data, detail } = r;
  await ctx.check(e, 'topic.retain-payload-bytes', 'decision.topic.retain-payload', async () => {
    const sent = 'mqsim conform retained message';
    const message = data?.retain_message as Row | null | undefined;
    if (!pub.ok || !message || typeof message !== 'object') return skip('no retained message shown to look at (see topic.detail-retained)');
    const bytes = message.payload;
    if (!Array.isArray(bytes) || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
      return fail(`a retained message's payload is a byte array, got ${JSON.stringify(bytes).slice(0, 80)}`, detail);
    if (Buffer.from(bytes as number[]).toString('utf8') !== sent)
      return fail(
        `the payload bytes read ${JSON.stringify(
          Buffer.from(bytes as number[])
            .toString('utf8')
            .slice(0, 80),
        )}, not the published ${JSON.stringify(sent)}`,
        detail,
      );
    // A topic of the run without a retained message: retain_message null, retain_message_at null (when the field is there at all).
    const t = ctx.state.topic;
    const plain = t ? await detailOf(ctx, t.tenant, t.topic_name) : undefined;
    const info = plain && succeeded(plain) ? dataOf(plain) : undefined;
    if (!info)
      return pass(
        `the payload is the ${bytes.length} UTF-8 bytes of the published text (no topic without a retained message to compare)`,
        undefined,
        true,
      );
    if (info.retain_message !== null || ('retain_message_at' in info && info.retain_message_at !== null))
      return fail(
        `${t!.topic_name} has no retained message, but shows ${JSON.stringify({ retain_message: info.retain_message, retain_message_at: info.retain_message_at }).slice(0, 160)}`,
        plain,
      );
    return pass(
      `the payload is the ${bytes.length} UTF-8 bytes of the published text; ${t!.topic_name}, without one, shows retain_message null`,
    );
  });
}

async function checkRetainMessageShape(ctx: ConformContext, e: EndpointContract, r: RetainedRead): Promise<void> {
  const { pub, data, topic, tenant, detail } = r;
  await ctx.check(e, 'topic.detail-retain-message-shape', 'notes.shape.retain-message', async () => {
    const m = data?.retain_message as Row | null | undefined;
    if (!pub.ok || !m || typeof m !== 'object') return skip('no retained message shown to look at (see topic.detail-retained)');
    const missing = ['tenant', 'topic_name', 'payload', 'expired_at', 'create_time'].filter((k) => !(k in m));
    if (missing.length > 0) return fail(`retain_message lacks ${missing.join(', ')}: ${JSON.stringify(m).slice(0, 160)}`, detail);
    if (m.topic_name !== topic || (tenant !== undefined && m.tenant !== tenant))
      return fail(
        `retain_message names ${JSON.stringify({ tenant: m.tenant, topic_name: m.topic_name })}, not the topic it is the retained message of`,
        detail,
      );
    // Without a retained message it is null: the run's fixture topic has none.
    const t = ctx.state.topic;
    const plain = t && t.topic_name !== topic ? await detailOf(ctx, t.tenant, t.topic_name) : undefined;
    if (!plain || !succeeded(plain))
      return pass(
        'retain_message is {tenant, topic_name, payload, expired_at, create_time} (no topic without a retained message to compare)',
        undefined,
        true,
      );
    const none = dataOf(plain)?.retain_message;
    if (none !== null)
      return fail(`a topic without a retained message shows retain_message ${JSON.stringify(none)?.slice(0, 120)} (null)`, plain);
    return pass(
      'retain_message is {tenant, topic_name, payload, expired_at, create_time} for the retained message, null for a topic without one',
    );
  });
}

/** After the client has gone: deleting the topic (in the tenant it was found in) removes its retained message. */
async function checkDeleteRemovesRetained(ctx: ConformContext, topic: string, tenant: string | undefined): Promise<void> {
  const del = ctx.endpoint('POST', '/api/cluster/topic/delete');
  if (!del || !tenant) return;
  await ctx.check(del, 'topic.delete-removes-retained', 'endpoints.topic.delete.effect', async () => {
    const ex = await ctx.call(del, { tenant, topic_name: topic });
    if (!succeeded(ex)) return fail(`deleting ${topic} was refused: ${describeAnswer(ex)}`, ex);
    const after = await detailOf(ctx, tenant!, topic);
    if (!after || !succeeded(after)) return pass('after the delete the topic detail is gone');
    const data = dataOf(after);
    return data?.retain_message === null || data?.retain_message === undefined
      ? pass('after the delete the topic has no retained message')
      : fail('the spec: deleting a topic removes its retained message, but detail still shows it', after);
  });
}

export const topics: ScenarioSuite = {
  name: 'topics',
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
          if (all.total === undefined || system.total === undefined || normal.total === undefined)
            return fail(
              `topic_type all/system/normal must each answer a page: ${[all, system, normal].map((x) => (x.ex ? describeAnswer(x.ex) : 'no answer')).join('; ')}`,
              system.ex ?? normal.ex,
            );
          const notSystem = system.rows.filter((r) => !String(r.topic_name).includes('$'));
          if (notSystem.length > 0)
            return fail(`topic_type=system lists names without $, e.g. ${JSON.stringify(notSystem[0].topic_name)}`, system.ex);
          const notNormal = normal.rows.filter((r) => String(r.topic_name).includes('$'));
          if (notNormal.length > 0)
            return fail(`topic_type=normal lists names with $, e.g. ${JSON.stringify(notNormal[0].topic_name)}`, normal.ex);
          if (system.total + normal.total !== all.total)
            return fail(`system (${system.total}) and normal (${normal.total}) topics do not add up to all (${all.total})`, all.ex);
          return pass(
            `${all.total} topics = ${system.total} system ($) + ${normal.total} normal`,
            undefined,
            system.total === 0 || normal.total === 0,
          );
        });
        await ctx.check(e, 'topic.type-default-all', 'endpoints.topic.list.query', async () => {
          const implicit = await totalWith(ctx, {});
          if (implicit.total === undefined || all.total === undefined) return skip('the list gave no total_count');
          // Only when both kinds exist does "all" differ from "normal" or "system".
          return implicit.total === all.total
            ? pass(`no topic_type lists all ${all.total} topics`, undefined, !(system.total! > 0 && normal.total! > 0))
            : fail(
                `without topic_type the list has ${implicit.total} topics, with topic_type=all ${all.total}; the default is all`,
                implicit.ex,
              );
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/topic/detail',
      checks: ['topic.detail-matches-list', 'topic.detail-unknown', 'topic.detail-storage-list-shape'],
      assertion: 'endpoints.topic.detail.response',
      async run(ctx, e, env) {
        const t = ctx.state.topic;
        await ctx.check(e, 'topic.detail-matches-list', 'endpoints.topic.detail.response', async () => {
          if (!t || !env.happy || !succeeded(env.happy)) return skip('no topic detail to compare');
          const info = dataOf(env.happy)?.topic_info as Row | undefined;
          const got = await readList(ctx, LIST, { tenant: t.tenant, topic_name: t.topic_name });
          const row = got?.rows.find((r) => r.topic_name === t.topic_name && r.tenant === t.tenant);
          if (!row) return fail(`topic ${t.topic_name} is not in the list`, got?.ex);
          const differ = ['topic_id', 'topic_name', 'tenant', 'partition', 'replication', 'create_time'].filter(
            (k) => k in row && JSON.stringify(info?.[k]) !== JSON.stringify(row[k]),
          );
          return differ.length > 0
            ? fail(
                `detail's topic_info differs from the list record in ${differ.map((k) => `${k} (${JSON.stringify(info?.[k])} vs ${JSON.stringify(row[k])})`).join(', ')}`,
                env.happy,
              )
            : pass('topic_info is the list record');
        });
        await ctx.check(e, 'topic.detail-storage-list-shape', 'notes.shape.storage-list', () => {
          const list = env.happy && succeeded(env.happy) ? dataOf(env.happy)?.storage_list : undefined;
          if (!list || typeof list !== 'object' || Array.isArray(list))
            return skip(`the topic detail shows no storage_list map (${JSON.stringify(list)?.slice(0, 80)})`);
          const entries = Object.entries(list as Row);
          if (entries.length === 0) return skip("the topic's storage_list is empty");
          for (const [partition, detail] of entries) {
            const d = (detail ?? {}) as Row;
            const missing = SHARD_DETAIL_KEYS.filter((k) => !(k in d));
            const offset = (d.offset ?? {}) as Row;
            const offsetMissing = ['start_offset', 'end_offset', 'high_watermark'].filter((k) => !(k in offset));
            if (!/^\d+$/.test(partition) || missing.length > 0 || offsetMissing.length > 0)
              return fail(
                `storage_list[${JSON.stringify(partition)}] is not a partition's shard detail: ${[...missing, ...offsetMissing.map((k) => `offset.${k}`)].join(', ') || 'the key is no partition number'} missing`,
                env.happy,
              );
          }
          return pass(
            `storage_list maps ${entries.length} partition(s) to {${SHARD_DETAIL_KEYS.join(', ')}} with offset {start_offset, end_offset, high_watermark}`,
          );
        });
        await ctx.check(e, 'topic.detail-unknown', 'decision.topic.not-found', async () => {
          const ex = await ctx.call(e, { tenant: t?.tenant ?? ctx.names.tenant, topic_name: `conform/${ctx.seed}/no-such-topic` });
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          return succeeded(ex)
            ? fail(`detail of a topic that does not exist was answered as a success: ${describeAnswer(ex)}`, ex)
            : pass(`refused: ${describeAnswer(ex)}`);
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/topic/detail',
      checks: [
        'topic.detail-sub-list',
        'topic.detail-retained',
        'topic.delete-removes-retained',
        'topic.retain-payload-bytes',
        'topic.detail-retain-message-shape',
      ],
      assertion: 'resources.topic-detail.sub_list',
      needs: ['mqtt-client'],
      run: runDetailWithMqttClient,
    },
    duplicateCreate('topic', 'decision.topic-create.duplicate'),
    topicQuota('decision.topic-create.duplicate'),
  ],
};
