import { CONNECTOR_CATALOGUE, FAILURE_STRATEGY_SPEC, type ConfigKeySpec, type ConnectorTypeSpec, type CrossFieldRule } from '../../fixtures/contract/connector-catalogue.ts';
import type { EndpointContract, Source } from '../../fixtures/contract/types.ts';
import { runErrorCaseChecks } from '../conform/checks/behaviour-checks.ts';
import { runConnectorStates } from '../conform/checks/consistency-checks.ts';
import { A } from '../conform/cite.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { type CreatedResources, RESOURCE_FAMILIES } from '../conform/resource-families.ts';
import type { FamilySuite } from './family-suite.ts';
import { expectRefused, readList, refusalNames, refused, type Row } from './helpers.ts';

/**
 * Connectors (spec: Connector; Connector status; Connectors; Failure strategy; Connector catalogue;
 * Errors). Cases are generated from fixtures/contract/connector-catalogue.ts: every one of the 17
 * types is created with its minimal config (accepted, and — INFO, the list's config form is a
 * decision — its defaults listed), and refused with a few broken configs (a required key missing,
 * a number outside its range, a value outside its enum, a wrong URL scheme, a cross-key rule
 * broken). Failure-strategy rules and the two error texts of the spec complete the family.
 */

const CONNECTOR = RESOURCE_FAMILIES.find((f) => f.key === 'connector')!;

interface ConfigCase {
  id: string;
  what: string;
  config: Row;
  source: Source;
  /** Keys the refusal may name (any one of them). */
  keys: string[];
}

/** A catalogue rule cites its type's bullet; a key rule the project added (a range the spec leaves open) its decision. */
const keyAssertion = (t: { id: string }, source: Source | undefined): string => (source === undefined || source === 'spec' ? `catalogue.${t.id}` : 'decision.connector.unstated-ranges');

/** A few broken configs of one type: the first case of each kind the type's keys and rules allow. */
export function invalidConfigs(t: ConnectorTypeSpec): ConfigCase[] {
  const base = { ...t.example } as Row;
  const cases: ConfigCase[] = [];
  const first = (pred: (k: ConfigKeySpec) => boolean) => t.keys.find(pred);
  const req = first((k) => k.required === true);
  if (req) {
    const { [req.name]: _gone, ...rest } = base;
    cases.push({ id: `missing-${req.name}`, what: `the required key ${req.name} is missing`, config: rest, source: req.source ?? 'spec', keys: [req.name] });
  }
  const low = first((k) => k.type === 'integer' && k.minimum !== undefined);
  if (low) cases.push({ id: `${low.name}-below-${low.minimum}`, what: `${low.name} ${low.minimum! - 1} is below ${low.minimum}`, config: { ...base, [low.name]: low.minimum! - 1 }, source: low.source ?? 'spec', keys: [low.name] });
  const high = first((k) => k.type === 'integer' && k.maximum !== undefined);
  if (high) cases.push({ id: `${high.name}-above-${high.maximum}`, what: `${high.name} ${high.maximum! + 1} is above ${high.maximum}`, config: { ...base, [high.name]: high.maximum! + 1 }, source: high.source ?? 'spec', keys: [high.name] });
  const en = first((k) => k.enum !== undefined);
  if (en) {
    const bad = en.enum!.every((v) => typeof v === 'number') ? 7 : 'bogus';
    cases.push({ id: `${en.name}-not-in-enum`, what: `${en.name} ${JSON.stringify(bad)} is none of ${en.enum!.join(', ')}`, config: { ...base, [en.name]: bad }, source: en.source ?? 'spec', keys: [en.name] });
  }
  const scheme = first((k) => k.prefixes !== undefined);
  if (scheme) cases.push({ id: `${scheme.name}-bad-scheme`, what: `${scheme.name} must start with ${scheme.prefixes!.join(' or ')}`, config: { ...base, [scheme.name]: 'ftp://localhost:21/x' }, source: scheme.source ?? 'spec', keys: [scheme.name] });
  const long = first((k) => k.type === 'string' && k.maxLength !== undefined && k.maxLength < 3000);
  if (long) cases.push({ id: `${long.name}-too-long`, what: `${long.name} of ${long.maxLength! + 1} characters is over ${long.maxLength}`, config: { ...base, [long.name]: 'x'.repeat(long.maxLength! + 1) }, source: long.source ?? 'spec', keys: [long.name] });
  // Types with few rules on their keys (greptime): a second required key missing.
  const second = t.keys.filter((k) => k.required === true)[1];
  if (cases.length < 2 && second) {
    const { [second.name]: _gone, ...rest } = base;
    cases.push({ id: `missing-${second.name}`, what: `the required key ${second.name} is missing`, config: rest, source: second.source ?? 'spec', keys: [second.name] });
  }
  for (const rule of t.rules) {
    const c = ruleCase(t, rule, base);
    if (c) cases.push(c);
  }
  return cases;
}

/** A config that breaks one cross-key rule of the catalogue. */
function ruleCase(t: ConnectorTypeSpec, rule: CrossFieldRule, base: Row): ConfigCase | undefined {
  const id = `rule-${rule.id}`;
  switch (rule.kind) {
    case 'required-when': {
      const config = { ...base, [rule.when.key]: rule.when.equals };
      for (const k of rule.keys) delete config[k];
      // Only this rule is broken: what the same condition wants empty is emptied.
      for (const other of t.rules) if (other.kind === 'empty-when' && other.when.key === rule.when.key && other.when.equals === rule.when.equals) for (const k of other.keys) config[k] = '';
      return { id, what: `${rule.when.key} ${JSON.stringify(rule.when.equals)} needs ${rule.keys.join(', ')}`, config, source: rule.source, keys: [...rule.keys] };
    }
    case 'empty-when': {
      const config = { ...base, [rule.when.key]: rule.when.equals };
      // Keep the rule's other requirements met: fill whatever the same condition requires.
      for (const other of t.rules) if (other.kind === 'required-when' && other.when.key === rule.when.key && other.when.equals === rule.when.equals) for (const k of other.keys) config[k] = `conform-${k}`;
      for (const k of rule.keys) config[k] = '';
      config[rule.keys[0]] = 'not-empty';
      return { id, what: `with ${rule.when.key} ${JSON.stringify(rule.when.equals)}, ${rule.keys[0]} must be empty`, config, source: rule.source, keys: [rule.keys[0]] };
    }
    case 'one-of-groups': {
      if (rule.groups.length < 2) return undefined;
      const config = { ...base };
      for (const g of rule.groups.slice(0, 2)) for (const k of g) config[k] = k === 'oauth' ? '{"issuer_url":"https://auth.example"}' : `conform-${k}`;
      return { id, what: `authentication is one of ${rule.groups.map((g) => g.join('+')).join(', ')}; two were given`, config, source: rule.source, keys: rule.groups.slice(0, 2).flat() };
    }
    case 'placeholder-count':
      return { id, what: `${rule.key} needs exactly ${rule.count} ${rule.token} placeholders`, config: { ...base, [rule.key]: `INSERT INTO t VALUES (${Array(rule.count - 1).fill(rule.token).join(', ')})` }, source: rule.source, keys: [rule.key] };
    case 'placeholder-set':
      return { id, what: `${rule.key} needs the placeholders ${rule.numbers.map((n) => `${rule.prefix}${n}`).join(', ')}`, config: { ...base, [rule.key]: `INSERT INTO t VALUES (${rule.numbers.slice(0, -1).map((n) => `${rule.prefix}${n}`).join(', ')})` }, source: rule.source, keys: [rule.key] };
    default:
      return undefined;
  }
}

/** The list's config as an object: the JSON text, unwrapped when the server nests it under one key. */
export function listedConfig(config: unknown): Row | undefined {
  if (typeof config !== 'string') return undefined;
  try {
    const parsed = JSON.parse(config) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const keys = Object.keys(parsed);
    // The real server serialises its config enum: {"LocalFile": {...}}.
    if (keys.length === 1 && typeof (parsed as Row)[keys[0]] === 'object' && !Array.isArray((parsed as Row)[keys[0]])) return (parsed as Row)[keys[0]] as Row;
    return parsed as Row;
  } catch {
    return undefined;
  }
}

/** Keys of `t` whose default is missing or different in the listed config. */
export function missingDefaults(t: ConnectorTypeSpec, listed: Row): string[] {
  return t.keys
    .filter((k) => k.default !== undefined && !(k.name in t.example))
    .filter((k) => JSON.stringify(listed[k.name]) !== JSON.stringify(k.default))
    .map((k) => `${k.name} ${JSON.stringify(listed[k.name])} (default ${JSON.stringify(k.default)})`);
}

/** Creates a connector of the run; deletes it again at once when `keep` is false. */
async function attempt(ctx: ConformContext, resources: CreatedResources, suffix: string, overrides: Row, keep = false): Promise<{ ex: Exchange; fields: Row }> {
  const fields: Record<string, unknown> = { ...CONNECTOR.fields(ctx, suffix), ...overrides };
  const ex = (await resources.create(CONNECTOR, fields, 'check'))!;
  if (succeeded(ex) && !keep) await resources.delete(CONNECTOR, fields, 'cleanup');
  return { ex, fields };
}

async function refusedCheck(ctx: ConformContext, e: EndpointContract, id: string, assertion: string, ex: Exchange, what: string, params: readonly string[]): Promise<void> {
  await ctx.check(e, id, assertion, () => expectRefused(ex, what));
  if (refused(ex)) {
    await ctx.check(e, `${id}.names-param`, A.errorsNamesParam, () =>
      params.some((p) => refusalNames(ex, p)) ? pass(`the message names ${params.join(' or ')}`) : fail(`the refusal does not name ${params.join(' or ')}: ${describeAnswer(ex)}`, ex),
    );
  }
}

/** The spec's failure-strategy cases: [id, what, strategy object, accepted?]. */
const STRATEGY_CASES: [string, string, Row, boolean][] = [
  ['failure-strategy.discard', 'strategy discard alone', { strategy: 'discard' }, true],
  ['failure-strategy.discard_after_retry', 'discard_after_retry with 3 retries 1000 ms apart', { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 1000 }, true],
  ['failure-strategy.dead_message_queue', 'dead_message_queue with its defaults', { strategy: 'dead_message_queue' }, true],
  ['failure-strategy.retry-zero.discard_after_retry', 'retry_total_times 0 with discard_after_retry (must be above 0)', { strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 1000 }, false],
  ['failure-strategy.retry-zero.dead_message_queue', 'retry_total_times 0 with dead_message_queue (must be above 0)', { strategy: 'dead_message_queue', retry_total_times: 0 }, false],
  ['failure-strategy.wait-zero.discard_after_retry', 'wait_time_ms 0 (must be above 0)', { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 0 }, false],
  ['failure-strategy.wait-zero.dead_message_queue', 'wait_time_ms 0 (must be above 0)', { strategy: 'dead_message_queue', wait_time_ms: 0 }, false],
  ['failure-strategy.topic-empty', 'an empty dead-letter topic_name (not empty when given)', { strategy: 'dead_message_queue', topic_name: '' }, false],
  ['failure-strategy.topic-257', 'a dead-letter topic_name of 257 characters (at most 256)', { strategy: 'dead_message_queue', topic_name: 'd'.repeat(257) }, false],
  ['failure-strategy.topic-256', 'a dead-letter topic_name of 256 characters', { strategy: 'dead_message_queue', topic_name: 'd'.repeat(256) }, true],
  ['failure-strategy.unknown', 'strategy "bogus" (one of discard, discard_after_retry, dead_message_queue)', { strategy: 'bogus' }, false],
];

/** The failure-strategy row a case is about: the field it sets beyond the strategy, else the strategy row. */
function strategyAssertion(strategy: Row): string {
  if ('topic_name' in strategy) return 'failure.topic_name';
  if ('wait_time_ms' in strategy && strategy.wait_time_ms === 0) return 'failure.wait_time_ms';
  if ('retry_total_times' in strategy) return 'failure.retry_total_times';
  return 'failure.strategy';
}

export const connectors: FamilySuite = {
  family: 'connectors',
  tags: ['connectors'],
  scenarios: [
    {
      endpoint: 'GET /api/cluster/connector/list',
      checks: ['connector.state-and-broker'],
      assertion: 'resources.connector.broker_id',
      run: (ctx, e, env) => runConnectorStates(ctx, e, env.happy),
    },
    {
      endpoint: 'GET /api/cluster/connector/list',
      checks: ['connector.config-listed'],
      assertion: 'resources.connector.config',
      async run(ctx, e, env) {
        // Spec (Connector): "config | string | type-specific configuration as a JSON string"; the catalogue:
        // "The `config` string of each type has these keys". The run's fixture connector is read back.
        await ctx.check(e, 'connector.config-listed', 'resources.connector.config', async () => {
          const fields = env.resources.fixtures.get('connector');
          if (!fields) return skip('the run has no connector of its own to read back');
          const got = await readList(ctx, e.path, { tenant: fields.tenant, connector_name: fields.connector_name });
          const row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
          if (!row) return skip(`the connector ${String(fields.connector_name)} is not on the listed page`);
          let listed: unknown;
          try {
            listed = typeof row.config === 'string' ? JSON.parse(row.config) : undefined;
          } catch {
            listed = undefined;
          }
          if (!listed || typeof listed !== 'object' || Array.isArray(listed)) return fail(`the listed config is not the JSON text of an object: ${JSON.stringify(row.config).slice(0, 120)}`, got?.ex);
          const sent = JSON.parse(String(fields.config)) as Row;
          const missing = Object.keys(sent).filter((k) => !(k in (listed as Row)));
          if (missing.length > 0) return fail(`the listed config does not hold the type's keys that were sent (${missing.join(', ')}); it has ${Object.keys(listed as Row).slice(0, 6).join(', ')}`, got?.ex);
          return pass(`the listed config holds the ${Object.keys(sent).length} keys sent (${Object.keys(sent).join(', ')})`);
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/connector/detail',
      checks: ['error.connector-not-found'],
      assertion: 'errors.case.connector-not-found',
      run: (ctx, e) => runErrorCaseChecks(ctx, e),
    },
    {
      endpoint: 'GET /api/cluster/connector/detail',
      checks: ['error.connector-not-running'],
      assertion: 'errors.case.connector-not-running',
      async run(ctx, e, env) {
        const control = ctx.target.control;
        const create = ctx.endpoint('POST', CONNECTOR.createPath);
        await ctx.check(e, 'error.connector-not-running', 'errors.case.connector-not-running', async () => {
          if (!create) return skip('the contract has no connector create');
          const { ex: made, fields } = await attempt(ctx, env.resources, '-nr', {}, true);
          if (!succeeded(made)) return skip(`a connector could not be created (${describeAnswer(made)})`);
          const name = String(fields.connector_name);
          try {
            // With the simulator's control the connector is stopped for sure; elsewhere it is read at once, while Idle.
            if (control) control.stopConnector(String(fields.tenant), name);
            const ex = await ctx.call(e, { tenant: fields.tenant, connector_name: name });
            const want = `Connector thread ${name} does not exist.`;
            const env2 = envelopeOf(ex);
            if (succeeded(ex)) return control ? fail(`connector ${name} is Stopped, but its detail was answered: ${describeAnswer(ex)}`, ex) : skip(`connector ${name} was already running when read, so the not-running answer could not be observed`);
            if (!env2 || ![1, 100].includes(env2.code)) return fail(`expected code 1 and "${want}", got ${describeAnswer(ex)}`, ex);
            return env2.text?.includes(want) ? pass(`"${want}"`) : fail(`expected the text "${want}", got ${describeAnswer(ex)}`, ex);
          } finally {
            await env.resources.delete(CONNECTOR, fields, 'cleanup');
          }
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/connector/list',
      checks: ['connector.stopped-listed'],
      assertion: 'states.connector.values',
      async run(ctx, e, env) {
        // Only the simulator's in-process control can stop a connector (the API has no stop), so a
        // real server skips this; on the simulator it shows the Stopped value in a list record.
        const control = ctx.target.control;
        await ctx.check(e, 'connector.stopped-listed', 'states.connector.values', async () => {
          if (!control) return skip('the API cannot stop a connector; only the simulator\'s control (--target sim) can');
          const { ex: made, fields } = await attempt(ctx, env.resources, '-st', {}, true);
          if (!succeeded(made)) return skip(`a connector could not be created (${describeAnswer(made)})`);
          try {
            control.stopConnector(String(fields.tenant), String(fields.connector_name));
            const got = await readList(ctx, e.path, { tenant: fields.tenant, connector_name: fields.connector_name });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
            if (!row) return fail(`the stopped connector ${String(fields.connector_name)} is not listed`, got?.ex);
            if (row.status !== 'Stopped') return fail(`a stopped connector is listed with status ${JSON.stringify(row.status)}; the spec's values are Idle, Running, Stopped`, got?.ex);
            return pass('the stopped connector is listed as Stopped');
          } finally {
            await env.resources.delete(CONNECTOR, fields, 'cleanup');
          }
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.type.*'],
      assertion: 'catalogue.type-ids',
      async run(ctx, e, env) {
        const list = ctx.endpoint('GET', '/api/cluster/connector/list');
        for (const t of CONNECTOR_CATALOGUE) {
          const { ex, fields } = await attempt(ctx, env.resources, `-ty-${t.id}`, { connector_type: t.id, config: JSON.stringify(t.example) }, true);
          await ctx.check(e, `connector.type.${t.id}.accepted`, `catalogue.${t.id}`, () => (succeeded(ex) ? pass(`a ${t.id} connector with the minimal config ${JSON.stringify(t.example)} was accepted`) : fail(`a ${t.id} connector with a valid minimal config was refused: ${describeAnswer(ex)}`, ex)));
          if (!succeeded(ex) || !list) continue;
          await ctx.check(e, `connector.type.${t.id}.config-defaults`, 'decision.connector.config-normalised', async () => {
            const got = await readList(ctx, list.path, { tenant: fields.tenant, connector_name: fields.connector_name });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
            if (!row) return fail(`the ${t.id} connector is not listed`, got?.ex);
            const config = listedConfig(row.config);
            if (!config) return fail(`the listed config is not JSON text of an object: ${JSON.stringify(row.config).slice(0, 120)}`, got?.ex);
            const missing = missingDefaults(t, config);
            return missing.length > 0 ? fail(`the listed config lacks the catalogue's defaults: ${missing.slice(0, 5).join(', ')}`, got?.ex) : pass(`the listed config shows the ${t.keys.filter((k) => k.default !== undefined && !(k.name in t.example)).length} defaults of the omitted keys`);
          });
          await env.resources.delete(CONNECTOR, fields, 'cleanup');
        }
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.config.*'],
      assertion: 'catalogue.type-ids',
      async run(ctx, e, env) {
        for (const t of CONNECTOR_CATALOGUE) {
          for (const c of invalidConfigs(t)) {
            const { ex } = await attempt(ctx, env.resources, `-cf-${t.id}`, { connector_type: t.id, config: JSON.stringify(c.config) });
            await refusedCheck(ctx, e, `connector.config.${t.id}.${c.id}`, keyAssertion(t, c.source), ex, `${t.id}: ${c.what}`, c.keys);
          }
        }
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.unknown-type', 'connector.config-not-json', 'connector.type-case-insensitive'],
      assertion: 'endpoints.connector.create.connector_type',
      async run(ctx, e, env) {
        const unknown = await attempt(ctx, env.resources, '-ut', { connector_type: 'carrier-pigeon' });
        await refusedCheck(ctx, e, 'connector.unknown-type', 'endpoints.connector.create.connector_type', unknown.ex, 'connector_type "carrier-pigeon" is no catalogue identifier', ['connector_type']);
        const notJson = await attempt(ctx, env.resources, '-nj', { config: 'local_file_path=/tmp/x' });
        await refusedCheck(ctx, e, 'connector.config-not-json', 'endpoints.connector.create.config', notJson.ex, 'config that is not JSON text', ['config']);
        const upper = await attempt(ctx, env.resources, '-uc', { connector_type: 'FILE' });
        await ctx.check(e, 'connector.type-case-insensitive', 'decision.connector.type-case', () => (succeeded(upper.ex) ? pass('connector_type FILE accepted as file') : fail(`connector_type FILE was refused (the reference server matches type ids case-insensitively): ${describeAnswer(upper.ex)}`, upper.ex)));
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['failure-strategy.*'],
      assertion: 'failure.strategy',
      async run(ctx, e, env) {
        let n = 0;
        for (const [id, what, strategy, ok] of STRATEGY_CASES) {
          const { ex } = await attempt(ctx, env.resources, `-fs${n++}`, { failure_strategy: strategy });
          if (ok) await ctx.check(e, id, strategyAssertion(strategy), (): Verdict => (succeeded(ex) ? pass(`${what}: accepted`) : fail(`${what} is valid but was refused: ${describeAnswer(ex)}`, ex)));
          else await refusedCheck(ctx, e, id, strategyAssertion(strategy), ex, what, ['failure_strategy', ...Object.keys(strategy)]);
        }
        await ctx.check(e, 'failure-strategy.dead-letter-defaults', 'failure.retry_total_times', async () => {
          const { ex, fields } = await attempt(ctx, env.resources, '-dd', { failure_strategy: { strategy: 'dead_message_queue' } }, true);
          if (!succeeded(ex)) return skip(`the connector could not be created (${describeAnswer(ex)})`);
          try {
            const got = await readList(ctx, '/api/cluster/connector/list', { tenant: fields.tenant, connector_name: fields.connector_name });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name);
            const shown = row?.failure_strategy as Row | undefined;
            if (!shown || typeof shown !== 'object') return skip('the connector list shows no failure_strategy (the spec\'s Connector record has none), so its defaults cannot be observed');
            const want = FAILURE_STRATEGY_SPEC.strategies.dead_message_queue.defaults;
            const wrong = Object.entries(want).filter(([k, v]) => shown[k] !== v);
            return wrong.length > 0 ? fail(`dead_message_queue defaults: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(shown[k])} (default ${JSON.stringify(v)})`).join(', ')}`, got?.ex) : pass('retry_total_times 3, wait_time_ms 1000, topic_name dead_letter_queue');
          } finally {
            await env.resources.delete(CONNECTOR, fields, 'cleanup');
          }
        });
      },
    },
  ],
};
