import type { EndpointContract } from '../../../fixtures/contract/types.ts';
import type { Level } from '../report-model.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, levelFor, pass, requestSource, skip, type Verdict } from '../conform-context.ts';
import { collectTimeValues, hasTimeFields, timeProblem, type TimeValue } from '../data-validator.ts';
import { envelopeProblems, readEnvelope } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';
import { buildParams } from '../param-values.ts';
import { type CreatedResources, familyByCreatePath, familyByDeletePath } from '../resource-families.ts';
import { scenarioOf } from '../scenarios.ts';

/** Endpoints whose valid request is a behaviour check of its own (see behaviour-checks.ts). */
export const OWN_HAPPY_PATH = new Set(['POST /api/cluster/config/set', 'POST /api/cluster/node/leave']);

const PROMETHEUS_LINE = /^(#\s*(HELP|TYPE|EOF|UNIT)\b.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?\s+[-+]?([0-9.eE+-]+|NaN|[+-]?Inf)(\s+-?\d+)?)$/;

/** The valid request of an endpoint: its parameters, or why none can be sent. */
export async function happyRequest(ctx: ConformContext, e: EndpointContract, resources: CreatedResources): Promise<{ params: Record<string, unknown>; send: () => Promise<Exchange> } | { skip: string }> {
  const created = familyByCreatePath(e.path);
  if (created && e.method === 'POST') {
    const fields = created.fields(ctx, '-hp');
    return { params: buildParams(e, fields), send: async () => (await resources.create(created, fields, 'check'))! };
  }
  const deleted = familyByDeletePath(e.path);
  if (deleted && e.method === 'POST') {
    const fields = deleted.fields(ctx, '-hp');
    if (!resources.isTracked(deleted, fields) && resources.createEndpoint(deleted)) await resources.create(deleted, fields, 'fixture');
    return { params: buildParams(e, fields), send: async () => (await resources.delete(deleted, fields, 'check'))! };
  }
  const scenario = scenarioOf(e);
  const fields = scenario.fields ? await scenario.fields(ctx) : {};
  if ('skip' in fields && typeof fields.skip === 'string') return { skip: fields.skip };
  const params = buildParams(e, fields as Record<string, unknown>);
  return { params, send: () => ctx.call(e, params) };
}

function judgeText(ctx: ConformContext, e: EndpointContract, ex: Exchange): Verdict {
  const res = ex.response!;
  if (res.status !== 200) return fail(`expected HTTP 200, got ${describeAnswer(ex)}`, ex);
  const type = res.headers['content-type'] ?? '';
  if (e.response.kind === 'prometheus') {
    if (!/^text\/plain|openmetrics/i.test(type)) return fail(`expected a text/plain Prometheus exposition, got Content-Type ${JSON.stringify(type)}`, ex);
    const lines = res.text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
    const bad = lines.filter((l) => !PROMETHEUS_LINE.test(l));
    if (bad.length > 0) return fail(`${bad.length} lines are not Prometheus exposition lines, e.g. ${JSON.stringify(bad[0].slice(0, 100))}`, ex);
    return pass(`Prometheus text, ${lines.filter((l) => !l.startsWith('#')).length} samples`, ex, lines.length === 0);
  }
  // GET /: the version text, or the cluster status object in an envelope (both described by the spec).
  const env = readEnvelope(res.json, res.text);
  if (env.ok) {
    if (env.envelope.code !== 0) return fail(`the status-object form must succeed, got ${describeAnswer(ex)}`, ex);
    const status = ctx.endpoint('GET', '/api/status');
    if (status) {
      const check = ctx.validator.checkData(status, env.envelope.data);
      if (!check.ok) return fail(`the status-object form does not match the cluster status schema: ${check.errors.join('; ')}`, ex);
    }
    return pass('cluster status object form', ex);
  }
  if (res.text.trim().length === 0) return fail('empty body: expected the version text or the status object', ex);
  return pass(`version text form: ${JSON.stringify(res.text.trim().slice(0, 60))}`, ex);
}

/**
 * The valid request of every endpoint, answered as the spec says: success (or a documented
 * alternative), a sound envelope, and `data` matching the contract's schema (records and the paged
 * wrapper for lists). Returns the exchange for later checks.
 */
export async function runHappyPath(ctx: ConformContext, e: EndpointContract, resources: CreatedResources): Promise<Exchange | undefined> {
  const reqLevel = levelFor('MUST', requestSource(e));
  const plan = await happyRequest(ctx, e, resources).catch((err: Error) => ({ skip: `could not prepare the request: ${err.message}` }));
  if ('skip' in plan) {
    await ctx.check(e, 'happy-path', reqLevel, () => skip(plan.skip));
    return undefined;
  }
  const ex = await plan.send();
  if (!ex) {
    await ctx.check(e, 'happy-path', reqLevel, () => skip('the contract lacks the endpoint this check needs'));
    return undefined;
  }
  if (e.specTable === 'path-only') {
    // The spec lists the endpoint (existence is a spec rule) even though its shapes come from elsewhere.
    await ctx.check(e, 'exists', 'MUST', () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (ex.response.status === 404 || ex.response.status === 405) return fail(`the spec lists ${e.method} ${e.path}, got ${describeAnswer(ex)}`, ex);
      return pass(`answered ${describeAnswer(ex)}`);
    });
  }

  if (e.response.kind !== 'envelope') {
    await ctx.check(e, 'happy-path', levelFor('MUST', e.response.source === 'spec' && e.specTable === 'index' ? 'spec' : 'reference'), () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      return judgeText(ctx, e, ex);
    });
    return ex;
  }

  await recordAnswerChecks(ctx, e, ex, reqLevel);
  return ex;
}


/**
 * The three verdicts on the answer to a valid request: accepted (or a documented alternative), a
 * sound envelope, and `data` matching the contract's schema.
 */
export async function recordAnswerChecks(ctx: ConformContext, e: EndpointContract, ex: Exchange, reqLevel: Level): Promise<void> {
  const scenario = scenarioOf(e);
  const okStatuses = [200, ...(e.response.otherStatuses ?? [])];
  const accepted = await ctx.check(e, 'happy-path', reqLevel, () => {
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    const env = envelopeOf(ex);
    if (env && env.code === 0 && okStatuses.includes(ex.response.status)) return pass(`valid request accepted (${describeAnswer(ex)})`);
    const alternative = scenario.alternative?.(ex, ctx);
    if (alternative) return alternative;
    return fail(`a valid request was refused: ${describeAnswer(ex)}`, ex);
  });

  await ctx.check(e, 'success-envelope', 'MUST', () => {
    if (!ex.response) return skip('no answer');
    const problems = envelopeProblems(ex.response.json, ex.response.text);
    if (problems.length > 0) return fail(`envelope: ${problems.join('; ')}`, ex);
    return pass(`envelope form ${envelopeOf(ex)?.form}`);
  });

  await ctx.check(e, 'data-schema', levelFor('MUST', e.response.source), () => {
    const env = envelopeOf(ex);
    if (accepted.status !== 'pass' || !env || env.code !== 0) return skip('no successful answer to validate');
    const check = ctx.validator.checkData(e, env.data);
    if (!check.ok) return fail(`data does not match the contract schema (${e.response.source}): ${check.errors.join('; ')}`, ex);
    const rows = e.list ? ((env.data as { data?: unknown[] }).data?.length ?? 0) : undefined;
    if (rows === 0) return pass('data matches the schema, but the page has no record to check', ex, true);
    return pass(rows !== undefined ? `data matches the schema (${rows} records checked)` : 'data matches the schema');
  });
  if (accepted.status === 'pass') await runTimeForms(ctx, e, ex);
}

/**
 * Every time field of the answer in the form the spec gives it (spec: "Output time varies by field:
 * Unix seconds, Unix milliseconds (mq9 records), or local-time string"): `time-forms` for the forms
 * the spec states, `time-forms.decision` (INFO) for the fields whose form the project decided.
 */
export async function runTimeForms(ctx: ConformContext, e: EndpointContract, ex: Exchange): Promise<void> {
  const schema = e.response.data;
  const env = envelopeOf(ex);
  if (!schema || !hasTimeFields(schema) || !env || env.code !== 0) return;
  const values = e.list
    ? ((env.data as { data?: unknown[] } | undefined)?.data ?? []).slice(0, 100).flatMap((row, i) => collectTimeValues(schema, row, `.data[${i}]`))
    : collectTimeValues(schema, env.data);
  const judge = (list: TimeValue[], what: string): Verdict => {
    const problems = list.map(timeProblem).filter((p): p is string => p !== undefined);
    if (problems.length > 0) return fail(`${problems.length} of ${list.length} ${what} are not in their form: ${problems.slice(0, 4).join('; ')}`, ex);
    const fields = [...new Set(list.map((t) => `${t.path.replace(/\[\d+\]/g, '[]')} (${t.form})`))];
    if (list.filter((t) => t.value !== null).length === 0) return pass(`the answer holds no ${what.replace(/^time values/, 'time value')} to check`, undefined, true);
    return pass(`${list.length} ${what} in their form: ${fields.slice(0, 8).join(', ')}${fields.length > 8 ? ', …' : ''}`);
  };
  const specValues = values.filter((t) => !t.decision);
  const decisionValues = values.filter((t) => t.decision);
  await ctx.check(e, 'time-forms', levelFor('MUST', e.response.source), () => judge(specValues, 'time values'));
  if (decisionValues.length > 0) await ctx.check(e, 'time-forms.decision', 'INFO', () => judge(decisionValues, 'time values whose form is a project decision'));
}
