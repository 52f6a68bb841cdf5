import { recordIdentity } from '../../../contract/family-rules.ts';
import type { EndpointContract, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { A, cite } from '../cite.ts';
import { assertionById } from '../../../contract/assertions/index.ts';
import { fieldEvidence } from '../field-assertions.ts';

const levelOfAssertion = (id: string) => assertionById(id).level;
import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  failureCause,
  inconclusive,
  pass,
  refused,
  skip,
  succeeded,
  type Verdict,
} from '../conform-context.ts';
import type { CheckRecord, CheckRule } from '../report-model.ts';
import { collectTimeValues, hasTimeFields, timeProblem, type TimeValue } from '../data-validator.ts';
import { envelopeProblems, readEnvelope } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';
import { buildParams, declaredParams } from '../../../contract/minimal-params.ts';
import { type CreatedResources, familyByCreate, familyByDelete, fixtureFields, listingEndpoint } from '../resource-families.ts';
import { scenarioOf, type Unsendable } from '../scenarios.ts';

/** Endpoints whose valid request is a behaviour check of its own (see behaviour-checks.ts). */
export const OWN_HAPPY_PATH = new Set(['POST /api/cluster/config/set', 'POST /api/cluster/node/leave']);

const PROMETHEUS_LINE = /^(#\s*(HELP|TYPE|EOF|UNIT)\b.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?\s+[-+]?([0-9.eE+-]+|NaN|[+-]?Inf)(\s+-?\d+)?)$/;

/** Is the instance with these fields in its family's list (undefined when the list cannot tell)? */
async function isListed(
  ctx: ConformContext,
  family: ResourceFamilyContract,
  fields: Record<string, unknown>,
): Promise<boolean | undefined> {
  const list = listingEndpoint(ctx, family);
  const recorded = recordIdentity(family, fields);
  if (!list || !recorded) return undefined;
  const props = Object.keys(((list.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(recorded).filter(([k]) => props.includes(k));
  if (identity.length === 0) return undefined;
  const ex = await ctx.call(list, { limit: Math.max(list.list?.defaultLimit ?? 0, 10_000) }, 'fixture');
  const rows = (envelopeOf(ex)?.data as { data?: Record<string, unknown>[] } | undefined)?.data;
  if (!succeeded(ex) || !Array.isArray(rows)) return undefined;
  return rows.some((r) => identity.every(([k, v]) => r[k] === v));
}

/** The valid request of an endpoint: its parameters, or why none can be sent. */
async function happyRequest(
  ctx: ConformContext,
  e: EndpointContract,
  resources: CreatedResources,
): Promise<{ params: Record<string, unknown>; send: () => Promise<Exchange> } | Unsendable> {
  const created = familyByCreate(ctx, e);
  if (created) {
    const fields = fixtureFields(ctx, created, '-hp');
    return { params: buildParams(e, fields), send: async () => (await resources.create(created, fields, 'check'))! };
  }
  const deleted = familyByDelete(ctx, e);
  if (deleted) {
    const fields = fixtureFields(ctx, deleted, '-hp');
    if (!resources.isTracked(deleted, fields) && resources.createEndpoint(deleted)) await resources.create(deleted, fields, 'fixture');
    // Whether the instance is listed before its delete: only then does its absence afterwards show the delete.
    ctx.state.listedBeforeDelete.set(e.id, await isListed(ctx, deleted, fields));
    return { params: buildParams(e, fields), send: async () => (await resources.delete(deleted, fields, 'check'))! };
  }
  const scenario = scenarioOf(e);
  const fields = scenario.fields ? await scenario.fields(ctx) : {};
  if ('skip' in fields && typeof fields.skip === 'string') return fields as Unsendable;
  const params = buildParams(e, fields as Record<string, unknown>);
  return { params, send: () => ctx.call(e, params) };
}

/** The version the status object reports, to recognise the version text of `GET /`. */
async function statusVersion(ctx: ConformContext): Promise<string | undefined> {
  for (const path of ['/api/status', '/api/info']) {
    const e = ctx.endpoint('GET', path);
    if (!e) continue;
    const ex = await ctx.call(e, {}, 'fixture');
    const v = (envelopeOf(ex)?.data as { version?: unknown } | undefined)?.version;
    if (envelopeOf(ex)?.code === 0 && typeof v === 'string' && v.trim().length > 0) return v.trim();
  }
  return undefined;
}

async function judgeText(ctx: ConformContext, e: EndpointContract, ex: Exchange): Promise<Verdict> {
  const res = ex.response!;
  if (res.status !== 200) return fail(`expected HTTP 200, got ${describeAnswer(ex)}`, ex);
  const type = res.headers['content-type'] ?? '';
  if (e.response.kind === 'prometheus') {
    if (!/^text\/plain|openmetrics/i.test(type))
      return fail(`expected a text/plain Prometheus exposition, got Content-Type ${JSON.stringify(type)}`, ex);
    const lines = res.text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    const bad = lines.filter((l) => !PROMETHEUS_LINE.test(l));
    if (bad.length > 0)
      return fail(`${bad.length} lines are not Prometheus exposition lines, e.g. ${JSON.stringify(bad[0].slice(0, 100))}`, ex);
    const samples = lines.filter((l) => !l.startsWith('#')).length;
    return pass(`Prometheus text, ${samples} samples`, ex, samples === 0);
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
  const text = res.text.trim();
  if (text.length === 0) return fail('empty body: expected the version text or the status object', ex);
  if (/^<!doctype html|^<html/i.test(text) || /text\/html/i.test(type))
    return fail(`an HTML page, neither the service's version text nor the status object: ${JSON.stringify(text.slice(0, 80))}`, ex);
  // Spec (Versioning): the version shows as text at GET / in one form and as the status object's `version` in the other.
  const version = await statusVersion(ctx);
  if (version === undefined)
    return inconclusive(
      `version text form ${JSON.stringify(text.slice(0, 60))}, but no status object gave a version to compare it with`,
      ex,
    );
  if (!text.includes(version))
    return fail(
      `the text ${JSON.stringify(text.slice(0, 80))} does not carry the version ${JSON.stringify(version)} the status object reports`,
      ex,
    );
  return pass(`version text form carrying ${JSON.stringify(version)}`, ex);
}

/** Where the valid request's shape comes from: the spec's Index table, or (path-only endpoints) the notes. */
function happyAssertion(e: EndpointContract): string {
  return e.specTable === 'path-only' ? A.pathOnlyRequest : cite(e, 'exists');
}

/** A verdict with further assertions its evidence decides. */
const withAlso = (v: Verdict, also: readonly string[]): Verdict => ({ ...v, also: [...(v.also ?? []), ...also] });

/**
 * What an endpoint served at its contract path with its contract method shows (a server with
 * another path layout, another method or a version segment answers 404 or 405 there): spec,
 * general conventions "Path prefix" and "Methods", Versioning.
 */
const SERVED_AS_LISTED = ['conventions.path-prefix', 'conventions.methods', 'versioning.layout', 'versioning.no-other-segment'];

/** What a capability of the service (What the service does) rests on: the endpoints that give it. */
const SERVICE_OF: Record<string, string> = {
  'cluster.status': 'service.status',
  'mqtt.overview': 'service.status',
  'mqtt.monitor.data': 'service.status',
  'health.ready': 'service.probes',
  'health.node': 'service.probes',
};

/**
 * The further assertions the valid request's verdict decides (the engine keeps those of the check's
 * level): the endpoint served at its path with its method, success as code 0 (Errors: "| 0 | success
 * |"), the parameters where the conventions put them (query string for GET, a JSON body for POST:
 * a valid request with a required parameter elsewhere is refused), the service capability the
 * endpoint gives, and the login body.
 */
function happyAlso(e: EndpointContract, ex: Exchange | undefined): string[] {
  const also = [...SERVED_AS_LISTED];
  if (e.response.kind === 'envelope') also.push('errors.code.0');
  const sent = ex ? (e.method === 'GET' ? ex.sent.query : ex.sent.body) : undefined;
  const carriesRequired = declaredParams(e).some(
    (p) => p.required && sent !== null && typeof sent === 'object' && p.name in (sent as Record<string, unknown>),
  );
  if (carriesRequired) also.push(e.method === 'GET' ? 'conventions.get-params' : 'conventions.post-params');
  if (SERVICE_OF[e.id]) also.push(SERVICE_OF[e.id]);
  if (e.id === 'auth.login') also.push('endpoints.login.body');
  return also;
}

/**
 * The valid request of every endpoint, answered as the spec says: success (or a documented
 * alternative), a sound envelope, and `data` matching the contract's schema (records and the paged
 * wrapper for lists). Returns the exchange for later checks.
 */
export async function runHappyPath(ctx: ConformContext, e: EndpointContract, resources: CreatedResources): Promise<Exchange | undefined> {
  const plan = await happyRequest(ctx, e, resources).catch((err: Error): Unsendable => ({
    skip: `could not prepare the request: ${err.message}`,
  }));
  if ('skip' in plan) {
    // A fixture the run could not make shows nothing about the target: inconclusive, not skipped.
    await ctx.check(e, 'happy-path', happyAssertion(e), () => (plan.noFixture ? inconclusive(plan.skip) : skip(plan.skip)));
    return undefined;
  }
  const ex = await plan.send();
  if (!ex) {
    await ctx.check(e, 'happy-path', happyAssertion(e), () => skip('the contract lacks the endpoint this check needs'));
    return undefined;
  }
  if (e.specTable === 'path-only') {
    // The spec lists the endpoint (existence is a spec rule) even though its shapes come from elsewhere:
    // it must answer, and a server error or no answer is not serving it.
    await ctx.check(e, 'exists', cite(e, 'exists'), () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (ex.response.status === 404 || ex.response.status === 405)
        return withAlso(fail(`the spec lists ${e.method} ${e.path}, got ${describeAnswer(ex)}`, ex), SERVED_AS_LISTED);
      if (failureCause(e, ex)) return fail(`the spec lists ${e.method} ${e.path}; a request to it got ${describeAnswer(ex)}`, ex);
      return withAlso(pass(`answered ${describeAnswer(ex)}`), SERVED_AS_LISTED);
    });
  }

  if (e.response.kind !== 'envelope') {
    // The text answer is the endpoint's response statement (GET /: the version text or the status object, which is also Versioning's report of the version; /metrics: Prometheus text).
    const also = [...happyAlso(e, ex), cite(e, 'response'), ...(e.id === 'root' ? ['versioning.version-report'] : [])];
    await ctx.check(e, 'happy-path', happyAssertion(e), async () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      return withAlso(await judgeText(ctx, e, ex), also);
    });
    return ex;
  }

  await recordAnswerChecks(ctx, e, ex);
  return ex;
}

/**
 * The verdicts on the answer to a valid request: accepted (or a documented alternative; a 5xx, no
 * answer or a non-JSON body is a failure), a sound envelope, a JSON media type, and `data` matching
 * the contract's schema.
 */
export async function recordAnswerChecks(
  ctx: ConformContext,
  e: EndpointContract,
  ex: Exchange,
  options: { refusalRule?: CheckRule } = {},
): Promise<CheckRecord> {
  const scenario = scenarioOf(e);
  const okStatuses = [200, ...(e.response.otherStatuses ?? [])];
  // A refusal may name a rule the caller's other checks share (every config section's valid set), so they are one finding.
  const withRule = (v: Verdict): Verdict =>
    v.status === 'fail' && options.refusalRule && refused(ex) ? { ...v, rule: options.refusalRule } : v;
  const accepted = await ctx.check(e, 'happy-path', happyAssertion(e), () => withAlso(withRule(acceptedVerdict()), happyAlso(e, ex)));
  function acceptedVerdict(): Verdict {
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    const env = envelopeOf(ex);
    if (env && env.code === 0 && okStatuses.includes(ex.response.status)) return pass(`valid request accepted (${describeAnswer(ex)})`);
    if (failureCause(e, ex)) return fail(`a valid request got ${describeAnswer(ex)}`, ex);
    // A delete of an instance that was not listed (its create was not applied): its refusal shows nothing about delete.
    if (ctx.state.listedBeforeDelete.get(e.id) === false)
      return inconclusive(
        `the instance to delete was not listed before the delete (its create was not applied), so the refusal (${describeAnswer(ex)}) shows nothing about delete`,
        ex,
      );
    const alternative = scenario.alternative?.(ex, ctx);
    if (alternative) return alternative;
    return fail(`a valid request was refused: ${describeAnswer(ex)}`, ex);
  }

  const read = ex.response ? readEnvelope(ex.response.json, ex.response.text) : undefined;
  const form = read?.ok ? read.envelope.form : undefined;
  await ctx.check(e, 'success-envelope', form === 'A' ? A.envelopeFormA : form === 'B' ? A.envelopeFormB : A.envelopeForms, () => {
    if (!ex.response) return skip('no answer');
    const problems = envelopeProblems(ex.response.json, ex.response.text);
    if (problems.length > 0) return fail(`envelope: ${problems.join('; ')}`, ex);
    return pass(`envelope form ${envelopeOf(ex)?.form}`);
  });
  // Form B's row is decided only by an answer in form B; once per selection (on one fixed endpoint, so
  // shards of a run hold it once), say why a form-A target leaves it untested.
  if (form === 'A' && e.id === ctx.formBNoteAt) {
    await ctx.check(e, 'success-envelope.form-b', A.envelopeFormB, () =>
      skip(
        `the target answers in envelope form A (first seen at ${e.method} ${e.path}); form B's row is decided only by a target that answers form B`,
      ),
    );
  }

  await ctx.check(e, 'content-type', A.wireFormat, () => {
    if (!ex.response || ex.response.json === undefined) return skip('no JSON answer to look at');
    const type = ex.response.headers['content-type'] ?? '';
    // Spec (General conventions): "Wire format | JSON request and response bodies" — a JSON body labelled as something else is not a JSON response to a client that honours the media type.
    if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type))
      return fail(`a JSON body served with Content-Type ${JSON.stringify(type)}; the wire format is JSON (application/json)`, ex);
    return pass(`Content-Type ${type}`);
  });

  const responseAssertion = cite(e, 'response');
  let furtherBroken: { assertion: string; problem: string }[] = [];
  await ctx.check(e, 'data-schema', responseAssertion, () => {
    const env = envelopeOf(ex);
    if (accepted.status !== 'pass' || !env || env.code !== 0) return skip('no successful answer to validate');
    const records = e.list ? ((env.data as { data?: unknown[] } | null)?.data ?? []) : [env.data];
    const fields = fieldEvidence(e, Array.isArray(records) ? records : [], ctx.validator, levelOfAssertion(responseAssertion));
    const check = ctx.validator.checkData(e, env.data);
    if (!check.ok) {
      // The finding names the field row of the spec that is broken, when the error is in one.
      const broken = fields.broken[0];
      furtherBroken = fields.broken.slice(1);
      return {
        ...fail(
          `data does not match the contract schema (${e.response.source}): ${broken ? `${broken.problem}; ` : ''}${check.errors.join('; ')}`,
          ex,
        ),
        ...(broken ? { assertion: broken.assertion } : {}),
      };
    }
    const rows = e.list ? records.length : undefined;
    if (rows === 0) return inconclusive('the page has no record whose shape could be checked', ex);
    return {
      ...pass(rows !== undefined ? `data matches the schema (${rows} records checked)` : 'data matches the schema'),
      also: fields.shown,
    };
  });
  // Each further field row the answer breaks is a rule of its own, with a finding of its own.
  for (const broken of furtherBroken)
    await ctx.check(e, 'data-schema.field', broken.assertion, () => fail(`data does not match the contract schema: ${broken.problem}`, ex));
  if (accepted.status === 'pass') await runTimeForms(ctx, e, ex);
  return accepted;
}

/**
 * Every time field of the answer in the form the spec gives it (spec: "Output time varies by field:
 * Unix seconds, Unix milliseconds (mq9 records), or local-time string"): `time-forms` for the forms
 * the spec states, `time-forms.decision` (INFO) for the fields whose form the project decided.
 */
async function runTimeForms(ctx: ConformContext, e: EndpointContract, ex: Exchange): Promise<void> {
  const schema = e.response.data;
  const env = envelopeOf(ex);
  if (!schema || !hasTimeFields(schema) || !env || env.code !== 0) return;
  const values = e.list
    ? ((env.data as { data?: unknown[] } | undefined)?.data ?? [])
        .slice(0, 100)
        .flatMap((row, i) => collectTimeValues(schema, row, `.data[${i}]`))
    : collectTimeValues(schema, env.data);
  const judge = (list: TimeValue[], what: string): Verdict => {
    const problems = list.map(timeProblem).filter((p): p is string => p !== undefined);
    if (problems.length > 0)
      return fail(`${problems.length} of ${list.length} ${what} are not in their form: ${problems.slice(0, 4).join('; ')}`, ex);
    // 0, -1 and null are "never"/"none yet" in every unit: only other values tell seconds from milliseconds.
    const telling = list.filter((t) => t.value !== null && t.value !== 0 && t.value !== -1);
    const fields = [...new Set(telling.map((t) => `${t.path.replace(/\[\d+\]/g, '[]')} (${t.form})`))];
    if (telling.length === 0)
      return inconclusive(
        `the answer holds no time value that tells its unit (only ${list.length ? 'zero, -1 or null values' : 'none'})`,
        ex,
      );
    return pass(`${telling.length} ${what} in their form: ${fields.slice(0, 8).join(', ')}${fields.length > 8 ? ', …' : ''}`);
  };
  const specValues = values.filter((t) => !t.decision);
  const decisionValues = values.filter((t) => t.decision);
  if (specValues.length > 0 || decisionValues.length === 0)
    await ctx.check(e, 'time-forms', e.response.source === 'spec' ? A.outputTime : cite(e, 'response'), () =>
      judge(specValues, 'time values'),
    );
  if (decisionValues.length > 0)
    await ctx.check(e, 'time-forms.decision', A.decisionTimeForms, () =>
      judge(decisionValues, 'time values whose form is a project decision'),
    );
}
