import { CONNECTOR_CATALOGUE, FAILURE_STRATEGY_SPEC } from '../../contract/core/connector-catalogue.ts';
import { runErrorCaseChecks } from '../conform/checks/behaviour-checks.ts';
import { runConnectorStates } from '../conform/checks/consistency-checks.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { familyEndpoint } from '../../contract/family-rules.ts';
import type { ScenarioEnv, ScenarioSuite } from './scenario-suite.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { expectRefused, readList, refusalNames, type Row, withAlso } from '../conform/check-helpers.ts';
import { implicitTenant } from './duplicates.ts';

/**
 * Connectors (spec: Connector; Connector status; Connectors; Failure strategy; Connector catalogue;
 * Errors). Cases are generated from contract/core/connector-catalogue.ts: every one of the 17
 * types is created with its minimal config (accepted, and — INFO, the list's config form is a
 * decision — its defaults listed), and refused with a few broken configs (a required key missing,
 * a number outside its range, a value outside its enum, a wrong URL scheme, a cross-key rule
 * broken). Failure-strategy rules and the two error texts of the spec complete the family.
 */

import { attempt, CONNECTOR, refusedCheck } from './connector-requests.ts';
import { caseRule, invalidConfigs, keyAssertion, listedConfig, missingDefaults } from './connector-configs.ts';
import { runConnectorRuntime } from './connector-runtime.ts';

/** The spec's failure-strategy cases: [id, what, strategy object, accepted?]. */
const STRATEGY_CASES: [string, string, Row, boolean][] = [
  ['failure-strategy.discard', 'strategy discard alone', { strategy: 'discard' }, true],
  [
    'failure-strategy.discard_after_retry',
    'discard_after_retry with 3 retries 1000 ms apart',
    { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 1000 },
    true,
  ],
  ['failure-strategy.dead_message_queue', 'dead_message_queue with its defaults', { strategy: 'dead_message_queue' }, true],
  [
    'failure-strategy.retry-zero.discard_after_retry',
    'retry_total_times 0 with discard_after_retry (must be above 0)',
    { strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 1000 },
    false,
  ],
  [
    'failure-strategy.retry-zero.dead_message_queue',
    'retry_total_times 0 with dead_message_queue (must be above 0)',
    { strategy: 'dead_message_queue', retry_total_times: 0 },
    false,
  ],
  [
    'failure-strategy.wait-zero.discard_after_retry',
    'wait_time_ms 0 (must be above 0)',
    { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 0 },
    false,
  ],
  [
    'failure-strategy.wait-zero.dead_message_queue',
    'wait_time_ms 0 (must be above 0)',
    { strategy: 'dead_message_queue', wait_time_ms: 0 },
    false,
  ],
  [
    'failure-strategy.topic-empty',
    'an empty dead-letter topic_name (not empty when given)',
    { strategy: 'dead_message_queue', topic_name: '' },
    false,
  ],
  [
    'failure-strategy.topic-257',
    'a dead-letter topic_name of 257 characters (at most 256)',
    { strategy: 'dead_message_queue', topic_name: 'd'.repeat(257) },
    false,
  ],
  [
    'failure-strategy.topic-256',
    'a dead-letter topic_name of 256 characters',
    { strategy: 'dead_message_queue', topic_name: 'd'.repeat(256) },
    true,
  ],
  ['failure-strategy.unknown', 'strategy "bogus" (one of discard, discard_after_retry, dead_message_queue)', { strategy: 'bogus' }, false],
];

/** The failure-strategy row a case is about: the field it sets beyond the strategy, else the strategy row. */
function strategyAssertion(strategy: Row): string {
  if ('topic_name' in strategy) return 'failure.topic_name';
  if ('wait_time_ms' in strategy && strategy.wait_time_ms === 0) return 'failure.wait_time_ms';
  if ('retry_total_times' in strategy) return 'failure.retry_total_times';
  return 'failure.strategy';
}

/** A file config with an unknown key and a null key is accepted, the null key taking its default (decision.connector.config-keys). */
async function checkUnknownAndNullKeys(ctx: ConformContext, e: EndpointContract, env: ScenarioEnv): Promise<void> {
  const file = CONNECTOR_CATALOGUE.find((t) => t.id === 'file')!;
  const rotationDefault = file.keys.find((k) => k.name === 'rotation_strategy')?.default;
  const loose = await attempt(
    ctx,
    env.resources,
    '-ck',
    {
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: `/tmp/conform-${ctx.seed}.log`, conform_unknown_key: 'x', rotation_strategy: null }),
    },
    true,
  );
  await ctx.check(e, 'connector.config.unknown-and-null-keys', 'decision.connector.config-keys', async () => {
    if (!succeeded(loose.ex))
      return fail(`a file config with an unknown key and rotation_strategy null was refused: ${describeAnswer(loose.ex)}`, loose.ex);
    try {
      const got = await readList(ctx, '/api/cluster/connector/list', {
        tenant: loose.fields.tenant,
        connector_name: loose.fields.connector_name,
      });
      const row = got?.rows.find((r) => r.connector_name === loose.fields.connector_name);
      const config = row ? listedConfig(row.config) : undefined;
      if (!config) return skip(`the connector's config could not be read back from the list (${got ? describeAnswer(got.ex) : 'no list'})`);
      return config.rotation_strategy === rotationDefault
        ? pass(`accepted; rotation_strategy null took its default ${JSON.stringify(rotationDefault)}`)
        : fail(
            `rotation_strategy was null, so its default ${JSON.stringify(rotationDefault)} applies, but the list shows ${JSON.stringify(config.rotation_strategy)}`,
            got?.ex,
          );
    } finally {
      await env.resources.delete(CONNECTOR, loose.fields, 'cleanup');
    }
  });
}

/** A mysql or postgres config without port takes the contract's default port (decision.connector.relational-port). */
async function checkRelationalPortDefault(ctx: ConformContext, e: EndpointContract, env: ScenarioEnv): Promise<void> {
  await ctx.check(e, 'connector.config.relational-port-default', 'decision.connector.relational-port', async () => {
    const shown: string[] = [];
    for (const id of ['mysql', 'postgres']) {
      const t = CONNECTOR_CATALOGUE.find((x) => x.id === id)!;
      const { port: _omitted, ...rest } = t.example as Row;
      const want = t.keys.find((k) => k.name === 'port')?.default;
      const made = await attempt(ctx, env.resources, `-rp-${id}`, { connector_type: id, config: JSON.stringify(rest) }, true);
      if (!succeeded(made.ex))
        return fail(
          `a ${id} config without port was refused (the contract applies ${JSON.stringify(want)}): ${describeAnswer(made.ex)}`,
          made.ex,
        );
      try {
        const got = await readList(ctx, '/api/cluster/connector/list', {
          tenant: made.fields.tenant,
          connector_name: made.fields.connector_name,
        });
        const row = got?.rows.find((r) => r.connector_name === made.fields.connector_name);
        const config = row ? listedConfig(row.config) : undefined;
        if (!config) return skip(`the ${id} connector's config could not be read back from the list`);
        if (config.port !== want)
          return fail(
            `a ${id} config without port must take ${JSON.stringify(want)}, the list shows ${JSON.stringify(config.port)}`,
            got?.ex,
          );
        shown.push(`${id} ${String(want)}`);
      } finally {
        await env.resources.delete(CONNECTOR, made.fields, 'cleanup');
      }
    }
    return pass(`without port: ${shown.join(', ')}`);
  });
}

export const connectors: ScenarioSuite = {
  name: 'connectors',
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
          if (!listed || typeof listed !== 'object' || Array.isArray(listed))
            return fail(`the listed config is not the JSON text of an object: ${JSON.stringify(row.config).slice(0, 120)}`, got?.ex);
          const sent = JSON.parse(String(fields.config)) as Row;
          const missing = Object.keys(sent).filter((k) => !(k in (listed as Row)));
          if (missing.length > 0)
            return fail(
              `the listed config does not hold the type's keys that were sent (${missing.join(', ')}); it has ${Object.keys(listed as Row)
                .slice(0, 6)
                .join(', ')}`,
              got?.ex,
            );
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
        const create = familyEndpoint(ctx.contract, CONNECTOR, 'create');
        // "Connector detail is available only while the connector is running": the refusal for a connector not running shows it.
        await ctx.check(
          e,
          'error.connector-not-running',
          'errors.case.connector-not-running',
          withAlso(['states.connector.detail-while-running'], async () => {
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
              if (succeeded(ex))
                return control
                  ? fail(`connector ${name} is Stopped, but its detail was answered: ${describeAnswer(ex)}`, ex)
                  : skip(`connector ${name} was already running when read, so the not-running answer could not be observed`);
              if (!env2 || ![1, 100].includes(env2.code)) return fail(`expected code 1 and "${want}", got ${describeAnswer(ex)}`, ex);
              return env2.text?.includes(want) ? pass(`"${want}"`) : fail(`expected the text "${want}", got ${describeAnswer(ex)}`, ex);
            } finally {
              await env.resources.delete(CONNECTOR, fields, 'cleanup');
            }
          }),
        );
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
          if (!control) return skip("the API cannot stop a connector; only the simulator's control (--target sim) can");
          const { ex: made, fields } = await attempt(ctx, env.resources, '-st', {}, true);
          if (!succeeded(made)) return skip(`a connector could not be created (${describeAnswer(made)})`);
          try {
            control.stopConnector(String(fields.tenant), String(fields.connector_name));
            const got = await readList(ctx, e.path, { tenant: fields.tenant, connector_name: fields.connector_name });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
            if (!row) return fail(`the stopped connector ${String(fields.connector_name)} is not listed`, got?.ex);
            if (row.status !== 'Stopped')
              return fail(
                `a stopped connector is listed with status ${JSON.stringify(row.status)}; the spec's values are Idle, Running, Stopped`,
                got?.ex,
              );
            return pass('the stopped connector is listed as Stopped');
          } finally {
            await env.resources.delete(CONNECTOR, fields, 'cleanup');
          }
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.type.*', 'connector.created-idle'],
      assertion: 'catalogue.type-ids',
      async run(ctx, e, env) {
        const list = ctx.endpoint('GET', '/api/cluster/connector/list');
        const created: { type: string; row: Row; ex: Exchange }[] = [];
        for (const t of CONNECTOR_CATALOGUE) {
          const { ex, fields } = await attempt(
            ctx,
            env.resources,
            `-ty-${t.id}`,
            { connector_type: t.id, config: JSON.stringify(t.example) },
            true,
          );
          // The type identifier is one of the catalogue's (catalogue.type-ids) as much as the config is the type's.
          await ctx.check(e, `connector.type.${t.id}.accepted`, `catalogue.${t.id}`, () => ({
            ...(succeeded(ex)
              ? pass(`a ${t.id} connector with the minimal config ${JSON.stringify(t.example)} was accepted`)
              : {
                  ...fail(`a ${t.id} connector with a valid minimal config was refused: ${describeAnswer(ex)}`, ex),
                  rule: {
                    id: 'connector.type.valid-config-refused',
                    wrong: 'connector create: a valid minimal config is refused',
                    subject: t.id,
                  },
                }),
            also: ['catalogue.type-ids'],
          }));
          if (!succeeded(ex) || !list) continue;
          await ctx.check(e, `connector.type.${t.id}.config-defaults`, 'decision.connector.config-normalised', async () => {
            const got = await readList(ctx, list.path, { tenant: fields.tenant, connector_name: fields.connector_name });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
            const rule = (id: string, wrong: string) => ({ rule: { id: `connector.list.${id}`, wrong, subject: t.id } });
            if (!row)
              return {
                ...fail(`the ${t.id} connector is not listed`, got?.ex),
                ...rule('created-not-listed', 'connector list: a connector just created is not listed'),
              };
            created.push({ type: t.id, row, ex: got!.ex });
            const config = listedConfig(row.config);
            if (!config)
              return {
                ...fail(`the listed config is not JSON text of an object: ${JSON.stringify(row.config).slice(0, 120)}`, got?.ex),
                ...rule('config-form', 'connector list: the listed config is not JSON text of an object'),
              };
            const missing = missingDefaults(t, config);
            return missing.length > 0
              ? {
                  ...fail(`the listed config lacks the catalogue's defaults: ${missing.slice(0, 5).join(', ')}`, got?.ex),
                  ...rule('config-defaults', "connector list: the listed config lacks the catalogue's defaults of the keys not given"),
                }
              : pass(
                  `the listed config shows the ${t.keys.filter((k) => k.default !== undefined && !(k.name in t.example)).length} defaults of the omitted keys`,
                );
          });
          await env.resources.delete(CONNECTOR, fields, 'cleanup');
        }
        // States: "| (none) | create connector | request valid | `Idle` | `broker_id` is null until a node runs the connector |".
        // Each row was read right after its create; one a node already runs (Running with a broker) shows nothing of the creation.
        await ctx.check(e, 'connector.created-idle', 'states.connector.create', () => {
          if (created.length === 0) return skip('no created connector was read back from the list');
          for (const { type, row, ex } of created) {
            const unassigned = row.broker_id === null || row.broker_id === undefined;
            if (row.status === 'Idle' && !unassigned)
              return fail(
                `the new ${type} connector is Idle but has broker_id ${JSON.stringify(row.broker_id)} (null until a node runs it)`,
                ex,
              );
            if (row.status === 'Running' && unassigned) return fail(`the new ${type} connector is Running without a broker_id`, ex);
            if (row.status !== 'Idle' && row.status !== 'Running')
              return fail(`a connector just created is listed with status ${JSON.stringify(row.status)}; a valid create gives Idle`, ex);
          }
          const idle = created.filter((c) => c.row.status === 'Idle').length;
          return pass(
            `${idle} of ${created.length} connectors read right after their create are Idle with broker_id null${idle < created.length ? ', the others already run on a node' : ''}`,
            undefined,
            idle === 0,
          );
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.config.*'],
      assertion: 'catalogue.type-ids',
      async run(ctx, e, env) {
        for (const t of CONNECTOR_CATALOGUE) {
          // A refusal tells a broken config from a valid one only where the type's valid config was accepted.
          const valid = ctx.results.get(e.id)?.find((r) => r.id === `connector.type.${t.id}.accepted`);
          for (const c of invalidConfigs(t)) {
            const { ex } = await attempt(ctx, env.resources, `-cf-${t.id}`, { connector_type: t.id, config: JSON.stringify(c.config) });
            // A req key missing, a value outside its range or values: the key conventions of the catalogue as much as the type's bullet.
            await refusedCheck(
              ctx,
              e,
              `connector.config.${t.id}.${c.id}`,
              c.assertion ?? keyAssertion(t, c.source),
              ex,
              `${t.id}: ${c.what}`,
              c.keys,
              ['catalogue.key-conventions'],
              (v) => (v.status === 'pass' && valid ? { ...v, dependsOn: [valid] } : caseRule(v, ex, t, c)),
            );
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
        await refusedCheck(
          ctx,
          e,
          'connector.unknown-type',
          'endpoints.connector.create.connector_type',
          unknown.ex,
          'connector_type "carrier-pigeon" is no catalogue identifier',
          ['connector_type'],
          ['catalogue.type-ids'],
        );
        const notJson = await attempt(ctx, env.resources, '-nj', { config: 'local_file_path=/tmp/x' });
        await refusedCheck(
          ctx,
          e,
          'connector.config-not-json',
          'endpoints.connector.create.config',
          notJson.ex,
          'config that is not JSON text',
          ['config'],
        );
        const upper = await attempt(ctx, env.resources, '-uc', { connector_type: 'FILE' });
        await ctx.check(e, 'connector.type-case-insensitive', 'decision.connector.type-case', () =>
          succeeded(upper.ex)
            ? pass('connector_type FILE accepted as file')
            : fail(
                `connector_type FILE was refused (the reference server matches type ids case-insensitively): ${describeAnswer(upper.ex)}`,
                upper.ex,
              ),
        );
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
          // An accepted object is the failure_strategy field of the create body; discard alone is "the other fields … absent".
          const also = [
            'endpoints.connector.create.failure_strategy',
            ...(strategy.strategy === 'discard' && Object.keys(strategy).length === 1 ? ['failure.discard-fields'] : []),
          ];
          if (ok)
            await ctx.check(e, id, strategyAssertion(strategy), (): Verdict => ({
              ...(succeeded(ex) ? pass(`${what}: accepted`) : fail(`${what} is valid but was refused: ${describeAnswer(ex)}`, ex)),
              also,
            }));
          else await refusedCheck(ctx, e, id, strategyAssertion(strategy), ex, what, ['failure_strategy', ...Object.keys(strategy)]);
        }
        await ctx.check(e, 'failure-strategy.dead-letter-defaults', 'failure.retry_total_times', async () => {
          const { ex, fields } = await attempt(ctx, env.resources, '-dd', { failure_strategy: { strategy: 'dead_message_queue' } }, true);
          if (!succeeded(ex)) return skip(`the connector could not be created (${describeAnswer(ex)})`);
          try {
            const got = await readList(ctx, '/api/cluster/connector/list', {
              tenant: fields.tenant,
              connector_name: fields.connector_name,
            });
            const row = got?.rows.find((r) => r.connector_name === fields.connector_name);
            const shown = row?.failure_strategy as Row | undefined;
            if (!shown || typeof shown !== 'object')
              return skip(
                "the connector list shows no failure_strategy (the spec's Connector record has none), so its defaults cannot be observed",
              );
            const want = FAILURE_STRATEGY_SPEC.strategies.dead_message_queue.defaults;
            const wrong = Object.entries(want).filter(([k, v]) => shown[k] !== v);
            return wrong.length > 0
              ? fail(
                  `dead_message_queue defaults: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(shown[k])} (default ${JSON.stringify(v)})`).join(', ')}`,
                  got?.ex,
                )
              : pass('retry_total_times 3, wait_time_ms 1000, topic_name dead_letter_queue');
          } finally {
            await env.resources.delete(CONNECTOR, fields, 'cleanup');
          }
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['connector.duplicate-refused', 'connector.topic-filter', 'connector.config.*'],
      assertion: 'decision.connector.unique-per-tenant',
      async run(ctx, e, env) {
        const fixture = env.resources.fixtures.get('connector');
        await ctx.check(e, 'connector.duplicate-refused', 'decision.connector.unique-per-tenant', async () => {
          if (!fixture) return skip('the run has no connector of its own to create again');
          // Sent as is (not through the run's resources): the fixture must stay registered once.
          const ex = await ctx.call(e, fixture);
          const env2 = envelopeOf(ex);
          const name = String(fixture.connector_name);
          if (succeeded(ex))
            return fail(`connector ${name} exists in tenant ${String(fixture.tenant)}, but a second create of it was accepted`, ex);
          if (!env2 || ![1, 100].includes(env2.code))
            return fail(`a create of an existing connector must fail with code 1, got ${describeAnswer(ex)}`, ex);
          return env2.text?.includes(name) && /already exist/i.test(env2.text)
            ? pass(`refused: "${env2.text}"`)
            : fail(`expected a text saying connector ${name} already exists, got ${describeAnswer(ex)}`, ex);
        });
        const badFilter = await attempt(ctx, env.resources, '-tf', { topic_name: `conform/${ctx.seed}/#/x` });
        await ctx.check(e, 'connector.topic-filter', 'decision.connector.topic-filter', () => {
          const v = expectRefused(badFilter.ex, 'topic_name "…/#/x" is no MQTT topic filter (# only at the end)');
          if (v.status !== 'pass') return v;
          return refusalNames(badFilter.ex, 'topic_name')
            ? v
            : fail(`the refusal does not name topic_name: ${describeAnswer(badFilter.ex)}`, badFilter.ex);
        });
        await checkUnknownAndNullKeys(ctx, e, env);
        const greptime = CONNECTOR_CATALOGUE.find((t) => t.id === 'greptime')!;
        const emptyAllowed = await attempt(ctx, env.resources, '-er', {
          connector_type: 'greptime',
          config: JSON.stringify({ ...greptime.example, user: '', password: '' }),
        });
        const kafka = CONNECTOR_CATALOGUE.find((t) => t.id === 'kafka')!;
        const emptyRefused = await attempt(ctx, env.resources, '-ek', {
          connector_type: 'kafka',
          config: JSON.stringify({ ...kafka.example, topic: '' }),
        });
        await ctx.check(e, 'connector.config.empty-required-strings', 'decision.connector.empty-required-strings', () => {
          if (!succeeded(emptyAllowed.ex))
            return fail(
              `greptime user and password are empty strings when unused, but the config was refused: ${describeAnswer(emptyAllowed.ex)}`,
              emptyAllowed.ex,
            );
          const v = expectRefused(emptyRefused.ex, 'kafka topic "" (a required string other than the ones that may be empty)');
          return v.status === 'pass' ? pass('greptime with user and password "" accepted; kafka with topic "" refused') : v;
        });
        const relative = await attempt(ctx, env.resources, '-fr', {
          connector_type: 'file',
          config: JSON.stringify({ local_file_path: 'relative/conform.log' }),
        });
        await ctx.check(e, 'connector.config.file-path-relative', 'decision.connector.file-path-absolute', () =>
          expectRefused(relative.ex, 'local_file_path "relative/conform.log" is not an absolute path'),
        );
        await checkRelationalPortDefault(ctx, e, env);
      },
    },
    {
      endpoint: 'POST /api/cluster/connector/create',
      checks: ['failure-strategy.case-exact', 'failure-strategy.retry-fields-missing', 'failure-strategy.unused-field'],
      assertion: 'decision.failure-strategy.exact-names',
      async run(ctx, e, env) {
        const upper = await attempt(ctx, env.resources, '-fc', { failure_strategy: { strategy: 'Discard' } });
        await ctx.check(e, 'failure-strategy.case-exact', 'decision.failure-strategy.exact-names', () =>
          expectRefused(upper.ex, 'strategy "Discard" is not written as the spec writes it (discard)'),
        );
        const bare = await attempt(ctx, env.resources, '-fm', { failure_strategy: { strategy: 'discard_after_retry' } });
        await ctx.check(e, 'failure-strategy.retry-fields-missing', 'decision.failure-strategy.retry-fields-required', () =>
          expectRefused(bare.ex, 'discard_after_retry without retry_total_times and wait_time_ms'),
        );
        const cases: [string, Row, string][] = [
          ['retry_total_times with discard', { strategy: 'discard', retry_total_times: 3 }, 'retry_total_times'],
          [
            'topic_name with discard_after_retry',
            { strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 1000, topic_name: 'conform-dead' },
            'topic_name',
          ],
        ];
        const answers: [string, Exchange, string][] = [];
        for (const [what, strategy, field] of cases)
          answers.push([what, (await attempt(ctx, env.resources, `-fu${answers.length}`, { failure_strategy: strategy })).ex, field]);
        await ctx.check(e, 'failure-strategy.unused-field', 'decision.failure-strategy.unused-fields', () => {
          for (const [what, ex, field] of answers) {
            const v = expectRefused(ex, `${what} (a field the strategy does not use)`);
            if (v.status !== 'pass') return v;
            if (!refusalNames(ex, field)) return fail(`${what}: the refusal does not name ${field}: ${describeAnswer(ex)}`, ex);
          }
          return pass(`refused, naming the unused field: ${answers.map(([w]) => w).join('; ')}`);
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/connector/detail',
      checks: ['connector.runtime-assigned', 'connector.detail-before-first-send', 'connector.delivery', 'connector.counters-reset'],
      assertion: 'decision.connector.runtime',
      run: runConnectorRuntime,
    },
    {
      endpoint: 'POST /api/cluster/connector/delete',
      checks: ['connector.delete-unknown'],
      assertion: 'decision.connector.delete-unknown',
      async run(ctx, e) {
        await ctx.check(e, 'connector.delete-unknown', 'decision.connector.delete-unknown', async () => {
          const name = `conform-missing-${ctx.seed}`;
          const ex = await ctx.call(e, { tenant: ctx.names.tenant, connector_name: name });
          const env = envelopeOf(ex);
          const want = `Connector ${name} does not exist.`;
          if (succeeded(ex)) return fail(`deleting connector ${name}, which does not exist, answered success`, ex);
          if (!env || ![1, 100].includes(env.code)) return fail(`expected code 1 and "${want}", got ${describeAnswer(ex)}`, ex);
          return env.text?.includes(want) ? pass(`"${want}"`) : fail(`expected the text "${want}", got ${describeAnswer(ex)}`, ex);
        });
      },
    },
    implicitTenant('connector', 'decision.user.tenant-implicit'),
  ],
};
