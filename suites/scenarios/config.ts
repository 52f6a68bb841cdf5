import { CONFIG_TYPES, type ConfigFieldSpec, type ConfigTypeSpec } from '../../contract/core/config-types.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { runConfigForwarding, runErrorCaseChecks } from '../conform/checks/behaviour-checks.ts';
import { recordAnswerChecks } from '../conform/checks/happy-path.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { CheckRecord, CheckRule } from '../conform/report-model.ts';
import { namesParam } from '../conform/envelope.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { dataOf, expectRefused, type Row } from '../conform/check-helpers.ts';

/**
 * Run-time configuration (spec: Configuration; Broker configuration). Every one of the eight
 * config_type sections goes through set → get: read the current values, set changed ones, read them
 * back in the read view, set the originals back. Where the spec leaves the read view's form open
 * (delay_type CreateTime↔Whole, strategy Strict↔ALL, watermarks as fraction or percent, flapping
 * times in seconds or minutes) both forms pass; which one the target shows is an INFO check against
 * the project's decision (contract/core/config-types.ts).
 */

/** Set-form fields of the spec per section: the project also accepts max_qos_flight_message (a decision). */
const NOT_IN_SPEC_SET_FORM = new Set(['MqttProtocol.max_qos_flight_message']);
/** Flapping times are seconds in the set form and "described as minutes" in the read view. */
const MINUTE_FIELDS = new Set(['MqttFlappingDetect.window_time', 'MqttFlappingDetect.ban_time']);
const UINT_MAX: Record<string, number> = { u8: 255, u16: 65_535, u32: 4_294_967_295, u64: Number.MAX_SAFE_INTEGER };

const setFields = (t: ConfigTypeSpec): ConfigFieldSpec[] => t.fields.filter((f) => !NOT_IN_SPEC_SET_FORM.has(`${t.configType}.${f.name}`));

/** A section of config get's data: at the top level as the spec shows it, or nested under mqtt_runtime. */
export function sectionOf(config: Row | undefined, readViewKey: string): Row | undefined {
  if (!config) return undefined;
  const direct = config[readViewKey];
  if (direct && typeof direct === 'object') return direct as Row;
  const nested = (config.mqtt_runtime as Row | undefined)?.[readViewKey.replace(/^mqtt_/, '')];
  return nested && typeof nested === 'object' ? (nested as Row) : undefined;
}

/** How the target shows one field, learned from a round trip. */
interface FieldForm {
  /** read value = set value × scale (100 for percent watermarks, 1/60 for minutes). */
  scale: number;
}

type Plan = { field: ConfigFieldSpec; key: string; original: unknown; originalSet: unknown; changed: unknown }[];

/** The set-form value behind a read-view value, and a different valid set-form value. */
function planField(t: ConfigTypeSpec, f: ConfigFieldSpec, read: unknown, key = `${t.configType}.${f.name}`): Plan {
  if (f.properties) {
    const obj = (read && typeof read === 'object' ? read : {}) as Row;
    return f.properties.flatMap((p) => planField(t, p, obj[p.name], `${key}.${p.name}`));
  }
  if (f.type === 'bool') return [{ field: f, key, original: read, originalSet: read === true, changed: read !== true }];
  if (f.readForm === 'enum') {
    const stored = typeof read === 'string' ? (f.setValues?.includes(read) ? read : (f.fromReadNames?.[read] ?? read)) : f.default;
    const other = (f.setValues ?? []).find((v) => v !== stored) ?? stored;
    return [{ field: f, key, original: read, originalSet: stored, changed: other }];
  }
  if (f.readForm === 'percent') {
    const n = Number(read);
    const fraction = n > 1 ? n / 100 : n;
    const next = Math.round((fraction >= 0.5 ? fraction - 0.05 : fraction + 0.05) * 100) / 100;
    return [{ field: f, key, original: read, originalSet: fraction, changed: next }];
  }
  if (f.type === 'string') return [{ field: f, key, original: read, originalSet: read, changed: read === 'info' ? 'debug' : 'info' }];
  const n = Number(read);
  if (MINUTE_FIELDS.has(key)) {
    // Minute-aligned seconds, so a read view in minutes can show them exactly; the original's set form is learned later.
    const changed = n === 120 || n === 2 ? 180 : 120;
    return [{ field: f, key, original: read, originalSet: n, changed }];
  }
  if (key === 'ClusterLimit.max_admin_http_uri_rate') {
    // Never lower an admin rate limit while the run is using the API: 0 (no limit) becomes a high one.
    return [{ field: f, key, original: read, originalSet: n, changed: n === 0 ? 100_000 : n + 1 }];
  }
  const max = UINT_MAX[f.type] ?? Number.MAX_SAFE_INTEGER;
  return [{ field: f, key, original: read, originalSet: n, changed: n < max ? n + 1 : n - 1 }];
}

/** The JSON object a set sends for a plan: `which` picks the changed or the original set-form values. */
function patchOf(plan: Plan, which: 'changed' | 'originalSet', forms: Map<string, FieldForm>): Row {
  const out: Row = {};
  for (const p of plan) {
    let value = p[which];
    // The original of a minutes field is known in set form only once the read view's unit is known.
    if (which === 'originalSet' && MINUTE_FIELDS.has(p.key)) value = Math.round(Number(value) / (forms.get(p.key)?.scale ?? 1));
    const path = p.key.split('.').slice(1);
    let node = out;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Row;
    node[path[path.length - 1]] = value;
  }
  return out;
}

function readAt(section: Row | undefined, key: string): unknown {
  let node: unknown = section;
  for (const part of key.split('.').slice(1)) node = node && typeof node === 'object' ? (node as Row)[part] : undefined;
  return node;
}

/** Does the read value show the set value, in any form the spec allows? Returns the form, or a problem. */
function readShows(
  p: Plan[number],
  setValue: unknown,
  read: unknown,
): { ok: true; form: FieldForm; decisionForm: boolean } | { ok: false; problem: string } {
  const f = p.field;
  const say = `${p.key}: set ${JSON.stringify(setValue)}, read back ${JSON.stringify(read)}`;
  if (f.readForm === 'enum') {
    const shownAs = typeof read === 'string' ? read : '';
    const same = shownAs === setValue || f.fromReadNames?.[shownAs] === setValue;
    return same ? { ok: true, form: { scale: 1 }, decisionForm: shownAs === f.readNames?.[String(setValue)] } : { ok: false, problem: say };
  }
  if (f.readForm === 'percent') {
    const n = Number(read);
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-4;
    if (near(n, Number(setValue) * 100)) return { ok: true, form: { scale: 100 }, decisionForm: true };
    if (near(n, Number(setValue))) return { ok: true, form: { scale: 1 }, decisionForm: false };
    return { ok: false, problem: `${say} (neither the fraction nor the percentage)` };
  }
  if (MINUTE_FIELDS.has(p.key)) {
    const n = Number(read);
    if (n === setValue) return { ok: true, form: { scale: 1 }, decisionForm: true };
    if (n === Number(setValue) / 60) return { ok: true, form: { scale: 1 / 60 }, decisionForm: false };
    return { ok: false, problem: `${say} (neither seconds nor minutes)` };
  }
  return read === setValue ? { ok: true, form: { scale: 1 }, decisionForm: true } : { ok: false, problem: say };
}

/**
 * An invalid set request and the assertion its refusal tests: the section's row where the spec states
 * the range ("os_cpu_high_watermark (f32, 0.7, range 0 to 1)": MUST); else the project's decision to
 * check each field against its type and values (the table gives them, not what happens to others).
 */
export interface InvalidCase {
  what: string;
  config: Row;
  field: string;
  assertion: string;
}

/** Invalid set requests, one or two per section, from the section's rules. */
export function invalidCases(t: ConfigTypeSpec): InvalidCase[] {
  const cases: Omit<InvalidCase, 'assertion'>[] = [];
  const stated: string[] = [];
  for (const f of setFields(t)) {
    if (cases.length >= 2) break;
    if (f.readForm === 'percent') {
      // The watermarks' "range 0 to 1" is in the spec's config_type row.
      cases.push({ what: `${f.name} 1.5 is outside 0 to 1`, config: { [f.name]: 1.5 }, field: f.name });
      stated.push(f.name);
    } else if (f.readForm === 'enum')
      cases.push({ what: `${f.name} "Bogus" is none of ${f.setValues?.join(', ')}`, config: { [f.name]: 'Bogus' }, field: f.name });
    else if (f.type === 'u16' || f.type === 'u8' || f.type === 'u32')
      cases.push({
        what: `${f.name} ${UINT_MAX[f.type] + 1} is outside ${f.type}`,
        config: { [f.name]: UINT_MAX[f.type] + 1 },
        field: f.name,
      });
    else if (f.type === 'u64') cases.push({ what: `${f.name} -1 is not a u64`, config: { [f.name]: -1 }, field: f.name });
    else if (f.properties)
      cases.push({
        what: `${f.name}.${f.properties[0].name} -1 is not a ${f.properties[0].type}`,
        config: { [f.name]: { [f.properties[0].name]: -1 } },
        field: f.name,
      });
  }
  return cases.map((c) => ({ ...c, assertion: stated.includes(c.field) ? TYPE_ROW[t.configType] : 'decision.config.field-checks' }));
}

/** The catalogue's row of each config_type (Endpoints › Configuration). */
const TYPE_ROW: Record<string, string> = {
  MqttSlowSubscribeConfig: 'config.set.type.slow-subscribe',
  MqttFlappingDetect: 'config.set.type.flapping-detect',
  MqttProtocol: 'config.set.type.protocol',
  MqttOfflineMessage: 'config.set.type.offline-message',
  MqttSystemMonitor: 'config.set.type.system-monitor',
  MqttSchema: 'config.set.type.schema',
  MqttLimit: 'config.set.type.limit',
  ClusterLimit: 'config.set.type.cluster-limit',
};

interface Outcome {
  type: string;
  /** The check of the set of changed values being accepted (the happy path for the first section); none when no set was sent. */
  accepted?: CheckRecord;
  /** The set of changed values was sent and not accepted: nothing of the section was read back. */
  refused?: boolean;
  problems: string[];
  decisionMisses: string[];
  /** Watermarks read back: set value, shown value, and whether the read view showed a percentage. */
  percent: { key: string; set: unknown; shown: unknown; asPercent: boolean }[];
  restoreProblems: string[];
  exchange?: Exchange;
}

async function roundTrip(
  ctx: ConformContext,
  set: EndpointContract,
  get: EndpointContract,
  t: ConfigTypeSpec,
  first: { done: boolean },
): Promise<Outcome> {
  const out: Outcome = { type: t.configType, problems: [], decisionMisses: [], percent: [], restoreProblems: [] };
  const before = await ctx.call(get, {}, 'fixture');
  const section = sectionOf(dataOf(before), t.readViewKey);
  if (!section) {
    out.problems.push(`config get shows no ${t.readViewKey} section (${describeAnswer(before)})`);
    out.exchange = before;
    return out;
  }
  const plan = setFields(t).flatMap((f) => planField(t, f, section[f.name]));
  const forms = new Map<string, FieldForm>();
  const changed = await ctx.call(set, { config_type: t.configType, config: JSON.stringify(patchOf(plan, 'changed', forms)) });
  // A refused valid set is its own failure (one finding for every section refused); the read-backs resting on it decide nothing.
  const rule: CheckRule = {
    id: 'config.set.valid-set-refused',
    wrong: 'config set: a valid set of a section is refused',
    subject: t.configType,
  };
  if (!first.done) {
    first.done = true;
    out.accepted = await recordAnswerChecks(ctx, set, changed, { refusalRule: rule });
  } else {
    out.accepted = await ctx.check(set, `config.set.${t.configType}.accepted`, TYPE_ROW[t.configType] ?? 'config.set.types', () =>
      succeeded(changed)
        ? pass(`a set of every ${t.configType} field to another valid value was accepted`)
        : {
            ...fail(
              `a valid ${t.configType} set (every field changed to another valid value) was refused: ${describeAnswer(changed)}`,
              changed,
            ),
            rule,
          },
    );
  }
  if (!succeeded(changed)) return { ...out, refused: true };
  const after = await ctx.call(get, {});
  const shown = sectionOf(dataOf(after), t.readViewKey);
  for (const p of plan) {
    const r = readShows(p, p.changed, readAt(shown, p.key));
    if (!r.ok) out.problems.push(r.problem);
    else {
      forms.set(p.key, r.form);
      if (!r.decisionForm) out.decisionMisses.push(`${p.key} shown as ${JSON.stringify(readAt(shown, p.key))}`);
      if (p.field.readForm === 'percent')
        out.percent.push({ key: p.key, set: p.changed, shown: readAt(shown, p.key), asPercent: r.form.scale === 100 });
    }
  }
  if (out.problems.length > 0) out.exchange = after;
  const restored = await ctx.call(set, { config_type: t.configType, config: JSON.stringify(patchOf(plan, 'originalSet', forms)) });
  if (!succeeded(restored)) out.restoreProblems.push(`setting the original values back was refused: ${describeAnswer(restored)}`);
  else {
    const again = sectionOf(dataOf(await ctx.call(get, {})), t.readViewKey);
    for (const p of plan) {
      const now = readAt(again, p.key);
      if (JSON.stringify(now) !== JSON.stringify(p.original))
        out.restoreProblems.push(`${p.key} is ${JSON.stringify(now)}, was ${JSON.stringify(p.original)}`);
    }
  }
  return out;
}

/** The spec's stated defaults of config get's fields, in the project's read view and the spec's alternatives. */
function defaultProblems(config: Row): string[] {
  const problems: string[] = [];
  for (const t of CONFIG_TYPES) {
    const section = sectionOf(config, t.readViewKey);
    for (const f of setFields(t)) {
      const read = section?.[f.name];
      const accept = (want: unknown): boolean => {
        if (f.readForm === 'percent') return Number(read) === Number(want) * 100 || Number(read) === Number(want);
        if (f.readForm === 'enum') return read === want || f.fromReadNames?.[String(read)] === want;
        if (MINUTE_FIELDS.has(`${t.configType}.${f.name}`)) return read === want || read === Number(want) / 60;
        return JSON.stringify(read) === JSON.stringify(want);
      };
      if (!accept(f.default)) problems.push(`${t.readViewKey}.${f.name} ${JSON.stringify(read)} (default ${JSON.stringify(f.default)})`);
    }
  }
  const meta = config.meta_runtime as Row | undefined;
  for (const k of ['offset_raft_group_num', 'data_raft_group_num'])
    if (meta?.[k] !== 1) problems.push(`meta_runtime.${k} ${JSON.stringify(meta?.[k])} (default 1)`);
  const admin = config.admin as Row | undefined;
  if (admin?.username !== undefined && admin.username !== 'admin')
    problems.push(`admin.username ${JSON.stringify(admin.username)} (default "admin")`);
  if (admin?.token_ttl_hours !== undefined && admin.token_ttl_hours !== 8)
    problems.push(`admin.token_ttl_hours ${JSON.stringify(admin.token_ttl_hours)} (default 8)`);
  return problems;
}

export const config: ScenarioSuite = {
  name: 'config',
  tags: ['config'],
  scenarios: [
    {
      endpoint: 'GET /api/cluster/config/get',
      checks: ['error.unknown-broker-id', 'config.get-by-broker-id', 'config.get-local'],
      assertion: 'errors.case.config-get',
      async run(ctx, e) {
        await runErrorCaseChecks(ctx, e);
        await runConfigForwarding(ctx, e);
      },
    },
    {
      endpoint: 'GET /api/cluster/config/get',
      checks: ['config.secrets-not-shown'],
      assertion: 'decision.secrets-hidden',
      async run(ctx, e, env) {
        await ctx.check(e, 'config.secrets-not-shown', 'decision.secrets-hidden', () => {
          const data = env.happy && succeeded(env.happy) ? dataOf(env.happy) : undefined;
          if (!data) return skip('no configuration to look at');
          const known = [ctx.target.credentials?.password, ctx.target.signingSecret].filter(
            (x): x is string => typeof x === 'string' && x.length > 0,
          );
          if (known.length === 0) return skip('no secret of the target is known to the run (pass --username/--password)');
          const shown = [
            ['admin.password', (data.admin as Row | undefined)?.password],
            ['admin.jwt_secret', (data.admin as Row | undefined)?.jwt_secret],
            ['mqtt_runtime.default_password', (data.mqtt_runtime as Row | undefined)?.default_password],
          ];
          const clear = shown.filter(([, v]) => typeof v === 'string' && known.includes(v as string));
          // The spec lists the admin section in the read view but says nothing of hiding it: a project decision.
          if (clear.length > 0) return fail(`config get shows secrets in clear text: ${clear.map(([k]) => k).join(', ')}`, env.happy);
          // Hidden = absent, null, empty or masked; any other text may be a secret the run does not know.
          const masked = (v: unknown) =>
            v === undefined || v === null || v === '' || (typeof v === 'string' && /^(\*+|<redacted>|redacted|hidden)$/i.test(v));
          const unknown = shown.filter(([, v]) => !masked(v)).map(([k]) => k);
          return pass(
            `the administrator password and signing secret are not shown${unknown.length ? ` (but ${unknown.join(', ')} hold text that may be a secret the run does not know)` : ''}`,
            undefined,
            unknown.length > 0,
          );
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/config/get',
      checks: ['config.meta-addrs'],
      assertion: 'decision.config.meta-addrs',
      async run(ctx, e, env) {
        await ctx.check(e, 'config.meta-addrs', 'decision.config.meta-addrs', async () => {
          const addrs = env.happy && succeeded(env.happy) ? (dataOf(env.happy)?.meta_addrs as Row | undefined) : undefined;
          const status = ctx.endpoint('GET', '/api/status');
          if (!addrs || typeof addrs !== 'object' || !status) return skip('no meta_addrs or no /api/status to compare with');
          const nodes = (dataOf(await ctx.call(status, {}, 'fixture'))?.broker_node_list ?? []) as Row[];
          const meta = nodes.filter((n) => Array.isArray(n.roles) && n.roles.includes('meta'));
          if (meta.length === 0) return skip('the broker node list names no node with the meta role');
          // Each meta node by id, valued ip:grpc_port (its grpc_addr); nothing else.
          const want = Object.fromEntries(meta.map((n) => [String(n.node_id), String(n.grpc_addr ?? `${String(n.node_ip)}:?`)]));
          const got = Object.fromEntries(Object.entries(addrs).map(([k, v]) => [k, String(v)]));
          const same =
            JSON.stringify(Object.keys(got).sort()) === JSON.stringify(Object.keys(want).sort()) &&
            Object.keys(want).every((k) => got[k] === want[k]);
          return same
            ? pass(`meta_addrs ${JSON.stringify(got)} lists the ${meta.length} meta nodes by id with ip:grpc_port`)
            : fail(
                `meta_addrs ${JSON.stringify(got)}, but the meta nodes of the broker node list are ${JSON.stringify(want)} (id → ip:grpc_port)`,
                env.happy,
              );
        });
      },
    },
    {
      endpoint: 'GET /api/cluster/config/get',
      checks: ['config.defaults'],
      assertion: 'decision.config.limit-defaults',
      async run(ctx, e, env) {
        await ctx.check(e, 'config.defaults', 'decision.config.limit-defaults', () => {
          const data = env.happy && succeeded(env.happy) ? dataOf(env.happy) : undefined;
          if (!data) return skip('no configuration to look at');
          const differ = defaultProblems(data);
          // A configured value is not a deviation: the defaults only show on an unconfigured target.
          if (differ.length > 0)
            return skip(
              `${differ.length} values differ from the spec's defaults, so the target is configured and its defaults cannot be observed: ${differ.slice(0, 6).join(', ')}${differ.length > 6 ? ', …' : ''}`,
            );
          return pass('every field with a default in the spec shows it');
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/config/set',
      checks: ['config.set.*', 'config.set-get-roundtrip', 'config.read-percent', 'config.read-view-form', 'config.set-same-values-back'],
      assertion: 'config.set.at-once',
      async run(ctx, set) {
        const get = ctx.endpoint('GET', '/api/cluster/config/get');
        if (!get) {
          await ctx.check(set, 'config.set-get-roundtrip', 'config.set.at-once', () =>
            skip('the contract has no config get to read the result with'),
          );
          return;
        }
        const first = { done: false };
        const outcomes: Outcome[] = [];
        for (const t of CONFIG_TYPES) outcomes.push(await roundTrip(ctx, set, get, t, first));
        // A section whose set was refused was never read back: its refusal is the finding, not the round trip.
        const refused = outcomes.filter((o) => o.refused);
        const refusedSets = refused.flatMap((o) => (o.accepted ? [o.accepted] : []));
        const decided = outcomes.filter((o) => !o.refused);
        const bad = decided.filter((o) => o.problems.length > 0);
        const undecided = refused.length > 0 ? `; not decided for ${refused.map((o) => o.type).join(', ')} (the set was refused)` : '';
        // Every field of each section's row was set and read back: the row's fields are the section's
        // (config.set.type.*), and configuration is read and changed at run time (service.config).
        const rows = ['service.config', ...decided.map((o) => TYPE_ROW[o.type]).filter((x): x is string => x !== undefined)];
        await ctx.check(set, 'config.set-get-roundtrip', 'config.set.at-once', () => ({
          ...(bad.length > 0
            ? fail(
                `set → get of ${bad.length} of ${decided.length} sections did not show the new values: ${bad.map((o) => `${o.type}: ${o.problems.slice(0, 3).join('; ')}`).join(' | ')}${undecided}`,
                bad[0].exchange,
              )
            : pass(
                `${decided.length === outcomes.length ? 'all ' : ''}${decided.length} sections (${decided.map((o) => o.type).join(', ')}) show every changed field at once${undecided}`,
              )),
          also: rows,
          // With no section read back, nothing was decided: the refusals are the finding.
          ...(decided.length === 0 ? { dependsOn: refusedSets } : {}),
        }));
        const watermarks = outcomes.flatMap((o) => o.percent);
        const monitor = outcomes.find((o) => o.type === 'MqttSystemMonitor');
        await ctx.check(set, 'config.read-percent', 'config.set.read-percent', () => {
          if (watermarks.length === 0 && monitor?.refused && monitor.accepted)
            return { ...pass('no watermark was read back: the MqttSystemMonitor set was refused'), dependsOn: [monitor.accepted] };
          if (watermarks.length === 0) return skip('no watermark was read back after a set');
          const fractions = watermarks.filter((w) => !w.asPercent);
          if (fractions.length > 0)
            return fail(
              `the read view shows watermarks as the fraction set, not as percentages: ${fractions.map((w) => `${w.key} set ${JSON.stringify(w.set)}, shown ${JSON.stringify(w.shown)}`).join(', ')}`,
            );
          return pass(
            `the read view shows the watermarks as percentages: ${watermarks.map((w) => `${w.key} set ${JSON.stringify(w.set)}, shown ${JSON.stringify(w.shown)}`).join(', ')}`,
          );
        });
        const misses = outcomes.flatMap((o) => o.decisionMisses);
        // The same read-backs show the flapping times in the seconds set (decision.config.flapping-read-seconds).
        await ctx.check(set, 'config.read-view-form', 'decision.config.enum-names', () => ({
          ...(misses.length > 0
            ? fail(
                `the read view uses another of the spec's forms than the project's decision (read-view enum names, watermarks in percent, flapping times in seconds): ${misses.slice(0, 6).join(', ')}`,
              )
            : pass('the read view shows enum names, percentages and seconds as the project decided')),
          also: ['decision.config.flapping-read-seconds'],
          ...(decided.length === 0 ? { dependsOn: refusedSets } : {}),
        }));
        const unrestored = outcomes.filter((o) => o.restoreProblems.length > 0);
        ctx.state.configSetApplies = decided.length > 0 && bad.length === 0;
        await ctx.check(set, 'config.set-same-values-back', 'config.set.at-once', () => {
          if (unrestored.length > 0)
            return fail(
              `the original values could not be set back: ${unrestored.map((o) => `${o.type}: ${o.restoreProblems.slice(0, 3).join('; ')}`).join(' | ')}`,
            );
          // Values that never changed are "back" on any server: only after a round trip that showed the changes is this evidence.
          return pass(
            `the original values of the ${decided.length} sections set are back`,
            undefined,
            bad.length > 0 || decided.length === 0,
          );
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/config/set',
      checks: ['config.invalid.*', 'config.refusal-form', 'config.refused-set-changes-nothing'],
      assertion: 'decision.config.field-checks',
      async run(ctx, set) {
        const get = ctx.endpoint('GET', '/api/cluster/config/get');
        const before = get ? JSON.stringify(dataOf(await ctx.call(get, {}, 'fixture'))) : undefined;
        const answers: Exchange[] = [];
        for (const t of CONFIG_TYPES) {
          for (const c of invalidCases(t)) {
            const ex = await ctx.call(set, { config_type: t.configType, config: JSON.stringify(c.config) });
            answers.push(ex);
            // The spec states the watermarks' range, the other types and values only as a table: code 400, 1 or 100.
            await ctx.check(set, `config.invalid.${t.configType}.${c.field}`, c.assertion, () => expectRefused(ex, c.what, [400, 1, 100]));
          }
        }
        // MqttSchema.log_level: a string of 1-64 characters (decision.config.log-level).
        for (const [what, value] of [
          ['empty', ''],
          ['65-characters', 'l'.repeat(65)],
        ] as const) {
          const ex = await ctx.call(set, { config_type: 'MqttSchema', config: JSON.stringify({ log_level: value }) });
          answers.push(ex);
          await ctx.check(set, `config.invalid.MqttSchema.log_level-${what}`, 'decision.config.log-level', () =>
            expectRefused(ex, `log_level of ${value.length} characters is outside 1-64`, [400, 1, 100]),
          );
        }
        await ctx.check(set, 'config.refusal-form', 'decision.config.refusal-form', () => {
          const refusals = answers.filter((ex) => envelopeOf(ex) !== undefined && envelopeOf(ex)!.code !== 0);
          if (refusals.length === 0) return skip('no invalid set was refused with an envelope');
          for (const ex of refusals) {
            const env = envelopeOf(ex)!;
            if (env.code === 1 || env.code === 100) continue;
            if (env.code !== 400)
              return fail(
                `a refused config set answered code ${env.code}; the contract gives 400 (or 1 or 100): ${describeAnswer(ex)}`,
                ex,
              );
            if (!['config_type', 'config'].some((p) => namesParam(env.text, p)))
              return fail(`a refused config set (code 400) does not name config_type, config or config.<field>: ${describeAnswer(ex)}`, ex);
          }
          return pass(`${refusals.length} refused sets answer code 400 naming the config (or code 1 or 100)`);
        });
        if (!get || before === undefined) return;
        await ctx.check(set, 'config.refused-set-changes-nothing', 'decision.config.refused-changes-nothing', async () => {
          const after = await ctx.call(get, {});
          if (JSON.stringify(dataOf(after)) !== before) return fail('a refused set changed the configuration', after);
          // Unchanged is evidence only from a server shown to apply accepted sets.
          return pass('the configuration is unchanged after the refused sets', undefined, ctx.state.configSetApplies !== true);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/config/set',
      checks: ['config.alias-FlappingDetect'],
      assertion: 'decision.config.flapping-alias',
      async run(ctx, set) {
        const get = ctx.endpoint('GET', '/api/cluster/config/get');
        if (!get) return;
        await ctx.check(set, 'config.alias-FlappingDetect', 'decision.config.flapping-alias', async () => {
          const section = sectionOf(dataOf(await ctx.call(get, {}, 'fixture')), 'mqtt_flapping_detect');
          if (!section) return skip('config get shows no mqtt_flapping_detect section');
          // The same enable value: accepted without changing anything.
          const ex = await ctx.call(set, { config_type: 'FlappingDetect', config: JSON.stringify({ enable: section.enable === true }) });
          return succeeded(ex)
            ? pass('FlappingDetect (the name one sample of the spec uses) is accepted')
            : fail(`config_type FlappingDetect was refused: ${describeAnswer(ex)}`, ex);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/config/set',
      checks: ['config.partial-set', 'config.set-on-every-node', 'config.max-qos-flight-message'],
      assertion: 'decision.config.partial',
      async run(ctx, set) {
        const get = ctx.endpoint('GET', '/api/cluster/config/get');
        if (!get) return;
        const proto = sectionOf(dataOf(await ctx.call(get, {}, 'fixture')), 'mqtt_protocol');
        if (!proto) {
          for (const [id, a] of [
            ['config.partial-set', 'decision.config.partial'],
            ['config.set-on-every-node', 'decision.config.cluster-wide'],
            ['config.max-qos-flight-message', 'decision.config.max-qos-flight-message'],
          ])
            await ctx.check(set, id, a, () => skip('config get shows no mqtt_protocol section'));
          return;
        }
        // One field changed, one null, one unknown: the others keep their values (decision.config.partial).
        const receive = Number(proto.receive_max);
        const next = receive < 65_535 ? receive + 1 : receive - 1;
        const partial = await ctx.call(set, {
          config_type: 'MqttProtocol',
          config: JSON.stringify({ receive_max: next, topic_alias_max: null, conform_unknown_field: 1 }),
        });
        const after = succeeded(partial) ? await ctx.call(get, {}) : undefined;
        const other = (ctx.state.onlineNodeIds ?? []).find((id) => id !== Number(dataOf(after ?? partial)?.broker_id));
        const elsewhere = after && other !== undefined ? await ctx.call(get, { broker_id: other }) : undefined;
        if (succeeded(partial))
          await ctx.call(set, { config_type: 'MqttProtocol', config: JSON.stringify({ receive_max: receive }) }, 'cleanup');
        await ctx.check(set, 'config.partial-set', 'decision.config.partial', () => {
          if (!succeeded(partial))
            return fail(
              `a set of receive_max alone (with topic_alias_max null and an unknown field) was refused: ${describeAnswer(partial)}`,
              partial,
            );
          const now = sectionOf(dataOf(after!), 'mqtt_protocol');
          if (now?.receive_max !== next)
            return fail(`receive_max was set to ${next}, config get shows ${JSON.stringify(now?.receive_max)}`, after);
          const moved = Object.keys(proto).filter((k) => k !== 'receive_max' && JSON.stringify(now[k]) !== JSON.stringify(proto[k]));
          if (moved.length > 0)
            return fail(
              `fields the set omitted or gave as null changed: ${moved.map((k) => `${k} ${JSON.stringify(proto[k])} → ${JSON.stringify(now[k])}`).join(', ')}`,
              after,
            );
          return pass(
            `receive_max ${receive} → ${next}; topic_alias_max (null), the omitted fields and the unknown one left the rest as it was`,
          );
        });
        await ctx.check(set, 'config.set-on-every-node', 'decision.config.cluster-wide', () => {
          if (!succeeded(partial)) return skip('the set was refused');
          if (!elsewhere) return skip('the target reports no other online node to read the configuration of');
          if (!succeeded(elsewhere)) return fail(`config get of node ${other} failed: ${describeAnswer(elsewhere)}`, elsewhere);
          const shown = sectionOf(dataOf(elsewhere), 'mqtt_protocol')?.receive_max;
          return shown === next
            ? pass(`node ${other} shows the receive_max ${next} set through another node`)
            : fail(`receive_max was set to ${next} through one node, node ${other} shows ${JSON.stringify(shown)}`, elsewhere);
        });
        await ctx.check(set, 'config.max-qos-flight-message', 'decision.config.max-qos-flight-message', async () => {
          if (typeof proto.max_qos_flight_message !== 'number') return skip('the read view shows no max_qos_flight_message');
          const was = proto.max_qos_flight_message;
          const want = was < 255 ? was + 1 : was - 1;
          const ex = await ctx.call(set, { config_type: 'MqttProtocol', config: JSON.stringify({ max_qos_flight_message: want }) });
          if (!succeeded(ex)) return fail(`MqttProtocol with max_qos_flight_message ${want} was refused: ${describeAnswer(ex)}`, ex);
          try {
            const read = await ctx.call(get, {});
            const shown = sectionOf(dataOf(read), 'mqtt_protocol')?.max_qos_flight_message;
            return shown === want
              ? pass(`max_qos_flight_message ${was} → ${want} through MqttProtocol`)
              : fail(`max_qos_flight_message was set to ${want}, the read view shows ${JSON.stringify(shown)}`, read);
          } finally {
            await ctx.call(set, { config_type: 'MqttProtocol', config: JSON.stringify({ max_qos_flight_message: was }) }, 'cleanup');
          }
        });
      },
    },
  ],
};
