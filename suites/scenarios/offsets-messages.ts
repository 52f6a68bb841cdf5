import type { EndpointContract } from '../../contract/core/types.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, failureCause, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { familyByKey } from '../../contract/index.ts';
import { messageTopic } from '../conform/scenarios.ts';
import type { ScenarioSuite, ScenarioEnv } from './scenario-suite.ts';
import { dataOf, letTimePass, type Row } from '../conform/check-helpers.ts';
import type { MqttOutcome } from '../targets/target.ts';

/**
 * Offsets and messages (spec: path only; shapes from the reference notes, INFO): a message sent to a
 * topic is read back from the offset the send answered; a committed offset shows in its group.
 */

/** The dead-letter record's rows (spec: Events) and what each must show for the run's failed message. */
const DEAD_LETTER_FIELDS = [
  'connector_name',
  'source_topic',
  'error_message',
  'retry_times',
  'original_key',
  'original_data',
  'original_timestamp',
  'dead_letter_timestamp',
] as const;
const U32_MAX = 4_294_967_295;
const isUint = (v: unknown, max = Number.MAX_SAFE_INTEGER) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

/** Reads a topic's messages from offset 0 (path-only message read); [] when it cannot be read. */
async function readTopic(
  ctx: ConformContext,
  read: EndpointContract,
  tenant: string,
  topic: string,
): Promise<{ ex: Exchange; messages: Row[] }> {
  const ex = await ctx.call(read, { tenant, topic, offset: 0 });
  return { ex, messages: succeeded(ex) ? (((dataOf(ex)?.messages ?? []) as Row[]) ?? []) : [] };
}

/** The two connectors of the dead-letter checks: `fields` with strategy dead_message_queue, `plain` without failure_strategy. */
interface DeadLetterConnectors {
  /** Topic prefix of the run's messages. */
  base: string;
  deadTopic: string;
  /** The webhook the dead_message_queue connector sends to (marked down). */
  url: string;
  name: string;
  fields: Row;
  plainUrl: string;
  plainName: string;
  plain: Row;
}

function deadLetterConnectors(ctx: ConformContext, tenant: string): DeadLetterConnectors {
  const base = `conform/${ctx.seed}`;
  const deadTopic = `${base}/dead-letters`;
  const url = `http://conform-${ctx.seed}-dead.invalid/hook`;
  const name = `conform-conn-${ctx.seed}-dl`;
  const fields = {
    tenant,
    connector_name: name,
    connector_type: 'webhook',
    config: JSON.stringify({ url }),
    topic_name: `${base}/dl/#`,
    failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 100, topic_name: deadTopic },
  };
  const plainUrl = `http://conform-${ctx.seed}-discard.invalid/hook`;
  const plainName = `conform-conn-${ctx.seed}-nofs`;
  const plain = {
    tenant,
    connector_name: plainName,
    connector_type: 'webhook',
    config: JSON.stringify({ url: plainUrl }),
    topic_name: `${base}/nofs/#`,
  };
  return { base, deadTopic, url, name, fields, plainUrl, plainName, plain };
}

/** Every dead-letter check skipped for one reason (the connectors cannot be made or their messages not published). */
async function skipDeadLetterChecks(
  ctx: ConformContext,
  read: EndpointContract,
  create: EndpointContract | undefined,
  why: string,
): Promise<void> {
  const ids = ['dead-letter.record', ...DEAD_LETTER_FIELDS.map((f) => `dead-letter.${f}`), 'dead-letter.tenant'];
  const assertionOf = (id: string) =>
    id === 'dead-letter.record'
      ? 'events.dead-letter'
      : id === 'dead-letter.tenant'
        ? 'notes.dead-letter.tenant'
        : `events.dead-letter.${id.slice('dead-letter.'.length)}`;
  for (const id of ids) await ctx.check(read, id, assertionOf(id), () => skip(why));
  if (create) await ctx.check(create, 'failure-strategy.omitted-discards', 'decision.failure-strategy.omitted', () => skip(why));
}

/** What became of the message sent to each connector: the dead-letter topic as read, and when the plain one gave up. */
interface DeadLetterOutcome {
  payload: string;
  published: MqttOutcome;
  publishedPlain: MqttOutcome;
  got: { ex: Exchange | undefined; messages: Row[] };
  /** Virtual ms after the publish at which the plain connector's send_fail_total showed the failure. */
  plainFailedAt: number | undefined;
  plainDetail: Exchange | undefined;
}

/**
 * Publishes one message on each connector's topic, then polls (3 s at most): the failure, one retry
 * 100 ms later, then the record (or, without a strategy, the failure given up at once).
 */
async function publishAndPoll(
  ctx: ConformContext,
  read: EndpointContract,
  detail: EndpointContract,
  c: DeadLetterConnectors,
  made: { made: Exchange | undefined; madePlain: Exchange | undefined },
): Promise<DeadLetterOutcome> {
  const tenant = ctx.names.tenant;
  const session = await ctx.mqtt!.connect(`conform-${ctx.seed}-dl-feeder`);
  const payload = `conform dead letter ${ctx.seed}`;
  const published = 'ok' in session ? session : await session.publish(`${c.base}/dl/x`, payload, { qos: 1, retain: false });
  const publishedPlain = 'ok' in session ? session : await session.publish(`${c.base}/nofs/x`, payload, { qos: 1, retain: false });
  if (!('ok' in session)) await session.close();
  let got = { ex: undefined as Exchange | undefined, messages: [] as Row[] };
  let plainFailedAt: number | undefined;
  let plainDetail: Exchange | undefined;
  for (let waited = 0; waited <= 3000; waited += 250) {
    if (succeeded(made.made!) && got.messages.length === 0) got = await readTopic(ctx, read, tenant, c.deadTopic);
    if (succeeded(made.madePlain!) && plainFailedAt === undefined) {
      plainDetail = await ctx.call(detail, { tenant, connector_name: c.plainName });
      if (Number(dataOf(plainDetail)?.send_fail_total) >= 1) plainFailedAt = waited;
    }
    if ((got.messages.length > 0 || !succeeded(made.made!)) && (plainFailedAt !== undefined || !succeeded(made.madePlain!))) break;
    await letTimePass(ctx, 250);
  }
  return { payload, published, publishedPlain, got, plainFailedAt, plainDetail };
}

/** The dead-letter record naming the connector, parsed; or why there is none to look at. */
function deadLetterRecord(got: DeadLetterOutcome['got'], c: DeadLetterConnectors): { record?: Row; problem?: string } {
  const content = got.messages.map((m) => m.content).find((cn) => typeof cn === 'string' && cn.includes(c.name));
  if (content === undefined)
    return {
      problem: `a message to ${c.name} failed (target down, 1 retry 100 ms apart), but no record naming the connector is in its dead-letter topic ${c.deadTopic} after 3 s: ${got.ex ? describeAnswer(got.ex) : 'not read'}, ${got.messages.length} messages`,
    };
  try {
    const parsed = JSON.parse(String(content)) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { record: parsed as Row };
    return { problem: `the dead-letter record is not a JSON object: ${String(content).slice(0, 120)}` };
  } catch {
    return { problem: `the dead-letter record is not JSON: ${String(content).slice(0, 120)}` };
  }
}

/** What each field of the record must show for the run's failed message; a problem, or undefined when it does. */
function deadLetterFieldProblems(
  c: DeadLetterConnectors,
  payload: string,
  record: Row | undefined,
): Record<(typeof DEAD_LETTER_FIELDS)[number], (v: unknown) => string | undefined> {
  const bytes = [...Buffer.from(payload, 'utf8')];
  const { name, base } = c;
  return {
    connector_name: (v) => (v === name ? undefined : `connector_name ${JSON.stringify(v)}, the failing connector is ${name}`),
    source_topic: (v) =>
      v === `${base}/dl/x` ? undefined : `source_topic ${JSON.stringify(v)}, the message was published on ${base}/dl/x`,
    error_message: (v) => (typeof v === 'string' && v.length > 0 ? undefined : `error_message ${JSON.stringify(v)} is no failure reason`),
    retry_times: (v) =>
      !isUint(v, U32_MAX)
        ? `retry_times ${JSON.stringify(v)} is not a u32`
        : v !== 1
          ? `retry_times ${String(v)}, but 1 retry was made (retry_total_times 1)`
          : undefined,
    original_key: (v) =>
      v === null || typeof v === 'string' ? undefined : `original_key ${JSON.stringify(v)} is neither a string nor null`,
    original_data: (v) =>
      JSON.stringify(v) === JSON.stringify(bytes)
        ? undefined
        : `original_data ${JSON.stringify(v)?.slice(0, 80)} is not the payload's bytes ${JSON.stringify(bytes).slice(0, 40)}…`,
    original_timestamp: (v) => (isUint(v) ? undefined : `original_timestamp ${JSON.stringify(v)} is not a u64`),
    dead_letter_timestamp: (v) =>
      !isUint(v)
        ? `dead_letter_timestamp ${JSON.stringify(v)} is not a u64`
        : isUint(record?.original_timestamp) && Number(v) < Number(record!.original_timestamp)
          ? `dead_letter_timestamp ${String(v)} is before original_timestamp ${String(record!.original_timestamp)}`
          : undefined,
  };
}

/** The dead_message_queue connector: its record is in the dead-letter topic, each field as the spec says, read in its tenant. */
async function checkDeadLetterRecord(
  ctx: ConformContext,
  read: EndpointContract,
  c: DeadLetterConnectors,
  made: Exchange | undefined,
  out: DeadLetterOutcome,
): Promise<void> {
  const { got } = out;
  const blocked = !succeeded(made!)
    ? `the dead_message_queue connector could not be created (${describeAnswer(made!)})`
    : !out.published.ok
      ? `the message could not be published: ${out.published.reason}`
      : undefined;
  const { record, problem } = blocked ? {} : deadLetterRecord(got, c);
  await ctx.check(read, 'dead-letter.record', 'events.dead-letter', () =>
    blocked ? skip(blocked) : problem ? fail(problem, got.ex) : pass(`after the retry a JSON record is in ${c.deadTopic}`),
  );
  const fieldProblem = deadLetterFieldProblems(c, out.payload, record);
  for (const f of DEAD_LETTER_FIELDS) {
    await ctx.check(read, `dead-letter.${f}`, `events.dead-letter.${f}`, () => {
      if (!record) return skip(blocked ?? 'no dead-letter record to look at');
      if (!(f in record)) return fail(`the dead-letter record has no ${f}: ${JSON.stringify(record).slice(0, 160)}`, got.ex);
      const p = fieldProblem[f](record[f]);
      return p ? fail(p, got.ex) : pass(`${f} ${JSON.stringify(record[f])?.slice(0, 60)}`);
    });
  }
  await ctx.check(read, 'dead-letter.tenant', 'notes.dead-letter.tenant', () =>
    record
      ? pass(`the dead-letter topic ${c.deadTopic} is read in the connector's tenant ${ctx.names.tenant}`)
      : skip(blocked ?? 'no dead-letter record to look at'),
  );
}

/** The connector without failure_strategy gives its failed message up at once: no retries, no dead letter (discard). */
async function checkOmittedDiscards(
  ctx: ConformContext,
  read: EndpointContract,
  create: EndpointContract,
  c: DeadLetterConnectors,
  madePlain: Exchange | undefined,
  out: DeadLetterOutcome,
): Promise<void> {
  const { plainName } = c;
  const { publishedPlain, plainFailedAt, plainDetail } = out;
  await ctx.check(create, 'failure-strategy.omitted-discards', 'decision.failure-strategy.omitted', async () => {
    if (!succeeded(madePlain!))
      return fail(`a connector create without failure_strategy was refused: ${describeAnswer(madePlain!)}`, madePlain);
    if (!publishedPlain.ok) return skip(`the message could not be published: ${publishedPlain.reason}`);
    if (plainFailedAt === undefined)
      return fail(
        `a message to ${plainName} (no failure_strategy, target down) was not given up within 3 s: ${plainDetail ? describeAnswer(plainDetail) : ''} send_fail_total ${JSON.stringify(dataOf(plainDetail!)?.send_fail_total)}`,
        plainDetail,
      );
    const dead = await readTopic(ctx, read, ctx.names.tenant, 'dead_letter_queue');
    if (dead.messages.some((m) => String(m.content).includes(plainName)))
      return fail(`${plainName} has no failure_strategy, yet its failed message went to dead_letter_queue`, dead.ex);
    return plainFailedAt <= 1250
      ? pass(
          `the failed message was given up at once (within ${plainFailedAt} ms of the next send), without retries or a dead letter: discard`,
        )
      : fail(`the failed message was given up only after ${plainFailedAt} ms: retried, not discarded`, plainDetail);
  });
}

/**
 * Dead letters (spec: Events; Failure strategy). A connector of the run's own with strategy
 * dead_message_queue (1 retry, 100 ms apart) points at a target the simulator's control marks down; a
 * message published on its topic fails, is retried once and written to the dead-letter topic, read
 * back with message read. A second connector without failure_strategy gives the failed message up at
 * once (discard, decision.failure-strategy.omitted).
 */
async function runDeadLetter(ctx: ConformContext, read: EndpointContract, env: ScenarioEnv): Promise<void> {
  const control = ctx.target.control!;
  const driver = ctx.mqtt!;
  const create = ctx.endpoint('POST', '/api/cluster/connector/create');
  const detail = ctx.endpoint('GET', '/api/cluster/connector/detail');
  const tenant = ctx.names.tenant;
  const why =
    !create || !detail
      ? 'the contract has no connector create or detail'
      : driver.tenant !== undefined && driver.tenant !== tenant
        ? `the MQTT client publishes in tenant ${driver.tenant}, the run's connectors are in ${tenant}`
        : undefined;
  if (why) return skipDeadLetterChecks(ctx, read, create, why);
  const c = deadLetterConnectors(ctx, tenant);
  const family = familyByKey('connector');
  control.setConnectorTargetDown(c.url, true);
  control.setConnectorTargetDown(c.plainUrl, true);
  const made = await env.resources.create(family, c.fields, 'fixture');
  const madePlain = await env.resources.create(family, c.plain, 'fixture');
  try {
    // Both are taken up by a node within a second.
    await letTimePass(ctx, 1000);
    const out = await publishAndPoll(ctx, read, detail!, c, { made, madePlain });
    await checkDeadLetterRecord(ctx, read, c, made, out);
    await checkOmittedDiscards(ctx, read, create!, c, madePlain, out);
  } finally {
    control.setConnectorTargetDown(c.url, false);
    control.setConnectorTargetDown(c.plainUrl, false);
    if (made && succeeded(made)) await env.resources.delete(family, c.fields, 'cleanup');
    if (madePlain && succeeded(madePlain)) await env.resources.delete(family, c.plain, 'cleanup');
  }
}

export const offsetsMessages: ScenarioSuite = {
  name: 'offsets-messages',
  tags: ['offsets-messages'],
  scenarios: [
    {
      endpoint: 'POST /api/mqtt/message/read',
      checks: ['dead-letter.*'],
      assertion: 'events.dead-letter',
      needs: ['control', 'mqtt-client'],
      run: runDeadLetter,
    },
    {
      endpoint: 'POST /api/mqtt/message/send',
      checks: ['message.send-read-roundtrip'],
      assertion: 'notes.message-read.response',
      async run(ctx, e) {
        const read = ctx.endpoint('POST', '/api/mqtt/message/read');
        const t = await messageTopic(ctx);
        await ctx.check(e, 'message.send-read-roundtrip', 'notes.message-read.response', async () => {
          if (!read || !t) return skip('no message read endpoint or no topic');
          const payload = `mqsim conform round trip ${ctx.seed}`;
          const sent = await ctx.call(e, { tenant: t.tenant, topic: t.topic_name, payload });
          const offset = (dataOf(sent)?.offsets as unknown[] | undefined)?.[0];
          if (!succeeded(sent) || typeof offset !== 'number') return fail(`the send answered no offset: ${describeAnswer(sent)}`, sent);
          const got = await ctx.call(read, { tenant: t.tenant, topic: t.topic_name, offset });
          const messages = (dataOf(got)?.messages ?? []) as Row[];
          const found = messages.find((m) => m.offset === offset);
          if (!found) return fail(`reading from offset ${offset} did not return the record at ${offset}: ${describeAnswer(got)}`, got);
          return found.content === payload
            ? pass(`the message sent at offset ${offset} is read back`)
            : fail(`offset ${offset} holds ${JSON.stringify(found.content)}, sent ${JSON.stringify(payload)}`, got);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/offset/commit',
      checks: ['offset.commit-visible'],
      assertion: 'notes.offset-group.response',
      async run(ctx, e, env) {
        const group = ctx.endpoint('POST', '/api/cluster/offset/group');
        await ctx.check(e, 'offset.commit-visible', 'notes.offset-group.response', async () => {
          const sent = env.happy?.sent.body as Row | undefined;
          if (!group || !env.happy || !succeeded(env.happy) || !sent) return skip('no successful commit to read back');
          const got = await ctx.call(group, { tenant: sent.tenant, group_name: sent.group_name });
          const offsets = (dataOf(got)?.offsets ?? []) as Row[];
          const want = (sent.offsets as Row[])[0];
          const row = offsets.find((o) => o.shard_name === want.shard_name);
          if (!row)
            return fail(
              `the committed offset of ${String(want.shard_name)} is not in the group's offsets: ${JSON.stringify(offsets).slice(0, 160)}`,
              got,
            );
          return row.offset === want.offset
            ? pass(`offset ${String(want.offset)} of ${String(want.shard_name)} read back`)
            : fail(`committed ${String(want.offset)}, the group shows ${String(row.offset)}`, got);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/offset/timestamp',
      checks: ['offset.timestamp-unknown-shard'],
      assertion: 'decision.path-only.not-found',
      run: (ctx, e) =>
        notFound(
          ctx,
          e,
          'offset.timestamp-unknown-shard',
          { shard_name: `conform-${ctx.seed}-no-such-shard`, timestamp: 0, strategy: 'earliest' },
          'the offset timestamp of a shard that does not exist',
        ),
    },
    {
      endpoint: 'POST /api/mqtt/message/read',
      checks: ['message.read-unknown-topic'],
      assertion: 'decision.path-only.not-found',
      run: (ctx, e) =>
        notFound(
          ctx,
          e,
          'message.read-unknown-topic',
          { tenant: ctx.names.tenant, topic: `conform/${ctx.seed}/no-such-topic`, offset: 0 },
          'a message read of a topic that does not exist',
        ),
    },
  ],
};

/** Decision: a path-only read of something unknown fails with code 1 (`does not exist`). */
async function notFound(ctx: ConformContext, e: EndpointContract, id: string, params: Row, what: string): Promise<void> {
  await ctx.check(e, id, 'decision.path-only.not-found', async () => {
    const ex = await ctx.call(e, params);
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    // A route that is not there answers nothing about unknown names: that is the exists check's finding.
    if (failureCause(e, ex) === 'not-found')
      return skip(`${e.method} ${e.path} is not served (${describeAnswer(ex)}); see its exists check`);
    if (succeeded(ex)) return fail(`${what} was answered as a success: ${describeAnswer(ex)}`, ex);
    const env = envelopeOf(ex);
    if (!env || ![1, 100].includes(env.code) || !/does not exist|not (been )?found/i.test(env.text ?? ''))
      return fail(`${what}: expected code 1 with a text that it does not exist, got ${describeAnswer(ex)}`, ex);
    return pass(`${what}: refused (${describeAnswer(ex)})`);
  });
}
