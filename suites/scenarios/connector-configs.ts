import { type ConfigKeySpec, type ConnectorTypeSpec, type CrossFieldRule } from '../../contract/core/connector-catalogue.ts';
import type { Source } from '../../contract/core/types.ts';
import { succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { Row } from '../conform/check-helpers.ts';

/**
 * Broken connector configs generated from contract/core/connector-catalogue.ts (a required key
 * missing, a number outside its range, a value outside its enum, a wrong URL scheme, a text too long,
 * a cross-key rule broken), and reading a config back from the list.
 */

/** The kinds of broken config, one rule each across the types (a finding per rule, not per type). */
type CaseKind = 'required-key' | 'range' | 'enum' | 'url-scheme' | 'length' | 'cross-key';

export interface ConfigCase {
  id: string;
  kind: CaseKind;
  what: string;
  config: Row;
  source: Source;
  /** Keys the refusal may name (any one of them). */
  keys: string[];
  /** The assertion the case cites when not its type's bullet or a key's source (a rule's decision). */
  assertion?: string;
}

/** What is wrong when a server accepts a config of that kind: the finding's title, whatever the type. */
const ACCEPTED_WRONG: Record<CaseKind, string> = {
  'required-key': 'connector configs: a config without a required key is accepted',
  range: 'connector configs: a number outside its range is accepted',
  enum: 'connector configs: a value outside its listed values is accepted',
  'url-scheme': "connector configs: a URL without its type's scheme (http:// or https://, mqtt://, pulsar://) is accepted",
  length: 'connector configs: a text over its length limit is accepted',
  'cross-key': 'connector configs: a config breaking a rule between its keys is accepted',
};

/**
 * The rule a failed case broke: accepted, the rule of its kind (one finding for every type that
 * accepts it); refused otherwise than the contract says, the refusal's form.
 */
export function caseRule(v: Verdict, ex: Exchange, t: ConnectorTypeSpec, c: ConfigCase): Verdict {
  if (v.status !== 'fail') return v;
  if (succeeded(ex)) return { ...v, rule: { id: `connector.config.${c.kind}`, wrong: ACCEPTED_WRONG[c.kind], subject: t.id } };
  if (!ex.response) return v;
  return {
    ...v,
    rule: {
      id: 'connector.config.refusal-form',
      wrong: 'connector configs: an invalid config is refused, but not as a parameter error',
      subject: t.id,
    },
  };
}

/** A catalogue rule cites its type's bullet; a key rule the project added (a range the spec leaves open) its decision. */
export const keyAssertion = (t: { id: string }, source: Source | undefined): string =>
  source === undefined || source === 'spec' ? `catalogue.${t.id}` : 'decision.connector.unstated-ranges';

/** A few broken configs of one type: the first case of each kind the type's keys and rules allow. */
export function invalidConfigs(t: ConnectorTypeSpec): ConfigCase[] {
  const base = { ...t.example } as Row;
  const cases: ConfigCase[] = [];
  const first = (pred: (k: ConfigKeySpec) => boolean) => t.keys.find(pred);
  const req = first((k) => k.required === true);
  if (req) {
    const { [req.name]: _gone, ...rest } = base;
    cases.push({
      id: `missing-${req.name}`,
      kind: 'required-key',
      what: `the required key ${req.name} is missing`,
      config: rest,
      source: req.source ?? 'spec',
      keys: [req.name],
    });
  }
  cases.push(...valueCases(t, base));
  // Types with few rules on their keys (greptime): a second required key missing.
  const second = t.keys.filter((k) => k.required === true)[1];
  if (cases.length < 2 && second) {
    const { [second.name]: _gone, ...rest } = base;
    cases.push({
      id: `missing-${second.name}`,
      kind: 'required-key',
      what: `the required key ${second.name} is missing`,
      config: rest,
      source: second.source ?? 'spec',
      keys: [second.name],
    });
  }
  for (const rule of t.rules) {
    const c = ruleCase(t, rule, base);
    if (c) cases.push(c);
  }
  return cases;
}

/** Configs with one key's value out of its bounds: range, enum, URL scheme, length (the first key of each kind). */
function valueCases(t: ConnectorTypeSpec, base: Row): ConfigCase[] {
  const cases: ConfigCase[] = [];
  const first = (pred: (k: ConfigKeySpec) => boolean) => t.keys.find(pred);
  const low = first((k) => k.type === 'integer' && k.minimum !== undefined);
  if (low)
    cases.push({
      id: `${low.name}-below-${low.minimum}`,
      kind: 'range',
      what: `${low.name} ${low.minimum! - 1} is below ${low.minimum}`,
      config: { ...base, [low.name]: low.minimum! - 1 },
      source: low.source ?? 'spec',
      keys: [low.name],
    });
  const high = first((k) => k.type === 'integer' && k.maximum !== undefined);
  if (high)
    cases.push({
      id: `${high.name}-above-${high.maximum}`,
      kind: 'range',
      what: `${high.name} ${high.maximum! + 1} is above ${high.maximum}`,
      config: { ...base, [high.name]: high.maximum! + 1 },
      source: high.source ?? 'spec',
      keys: [high.name],
    });
  const en = first((k) => k.enum !== undefined);
  if (en) {
    const bad = en.enum!.every((v) => typeof v === 'number') ? 7 : 'bogus';
    cases.push({
      id: `${en.name}-not-in-enum`,
      kind: 'enum',
      what: `${en.name} ${JSON.stringify(bad)} is none of ${en.enum!.join(', ')}`,
      config: { ...base, [en.name]: bad },
      source: en.source ?? 'spec',
      keys: [en.name],
    });
  }
  const scheme = first((k) => k.prefixes !== undefined);
  if (scheme)
    cases.push({
      id: `${scheme.name}-bad-scheme`,
      kind: 'url-scheme',
      what: `${scheme.name} must start with ${scheme.prefixes!.join(' or ')}`,
      config: { ...base, [scheme.name]: 'ftp://localhost:21/x' },
      source: scheme.source ?? 'spec',
      keys: [scheme.name],
    });
  const long = first((k) => k.type === 'string' && k.maxLength !== undefined && k.maxLength < 3000);
  if (long)
    cases.push({
      id: `${long.name}-too-long`,
      kind: 'length',
      what: `${long.name} of ${long.maxLength! + 1} characters is over ${long.maxLength}`,
      config: { ...base, [long.name]: 'x'.repeat(long.maxLength! + 1) },
      source: long.source ?? 'spec',
      keys: [long.name],
    });
  return cases;
}

/** A config missing the keys a condition requires (what the same condition wants empty is emptied, so only this rule is broken). */
function requiredWhenCase(
  t: ConnectorTypeSpec,
  rule: Extract<CrossFieldRule, { kind: 'required-when' }>,
  base: Row,
  id: string,
): ConfigCase {
  const config = { ...base, [rule.when.key]: rule.when.equals };
  for (const k of rule.keys) delete config[k];
  // Only this rule is broken: what the same condition wants empty is emptied.
  for (const other of t.rules)
    if (other.kind === 'empty-when' && other.when.key === rule.when.key && other.when.equals === rule.when.equals)
      for (const k of other.keys) config[k] = '';
  return {
    id,
    kind: 'cross-key',
    what: `${rule.when.key} ${JSON.stringify(rule.when.equals)} needs ${rule.keys.join(', ')}`,
    config,
    source: rule.source,
    keys: [...rule.keys],
  };
}

/** A config giving a key its condition wants empty (the condition's other requirements met). */
function emptyWhenCase(t: ConnectorTypeSpec, rule: Extract<CrossFieldRule, { kind: 'empty-when' }>, base: Row, id: string): ConfigCase {
  // The keys the condition leaves unused are given, not empty: what the rule's assertion says of that.
  const config = { ...base, [rule.when.key]: rule.when.equals };
  // Keep the rule's other requirements met: fill whatever the same condition requires.
  for (const other of t.rules)
    if (other.kind === 'required-when' && other.when.key === rule.when.key && other.when.equals === rule.when.equals)
      for (const k of other.keys) config[k] = `conform-${k}`;
  for (const k of rule.keys) config[k] = '';
  config[rule.keys[0]] = 'not-empty';
  return {
    id,
    kind: 'cross-key',
    what: `with ${rule.when.key} ${JSON.stringify(rule.when.equals)}, ${rule.keys[0]} must be empty`,
    config,
    source: rule.source,
    keys: [rule.keys[0]],
    ...(rule.assertion ? { assertion: rule.assertion } : {}),
  };
}

/** A config that breaks one cross-key rule of the catalogue. */
function ruleCase(t: ConnectorTypeSpec, rule: CrossFieldRule, base: Row): ConfigCase | undefined {
  const id = `rule-${rule.id}`;
  switch (rule.kind) {
    case 'required-when':
      return requiredWhenCase(t, rule, base, id);
    case 'empty-when':
      return emptyWhenCase(t, rule, base, id);
    case 'one-of-groups': {
      if (rule.groups.length < 2) return undefined;
      const config = { ...base };
      for (const g of rule.groups.slice(0, 2))
        for (const k of g) config[k] = k === 'oauth' ? '{"issuer_url":"https://auth.example"}' : `conform-${k}`;
      return {
        id,
        kind: 'cross-key',
        what: `authentication is one of ${rule.groups.map((g) => g.join('+')).join(', ')}; two were given`,
        config,
        source: rule.source,
        keys: rule.groups.slice(0, 2).flat(),
      };
    }
    case 'placeholder-count':
      return {
        id,
        kind: 'cross-key',
        what: `${rule.key} needs exactly ${rule.count} ${rule.token} placeholders`,
        config: {
          ...base,
          [rule.key]: `INSERT INTO t VALUES (${Array(rule.count - 1)
            .fill(rule.token)
            .join(', ')})`,
        },
        source: rule.source,
        keys: [rule.key],
      };
    case 'placeholder-set':
      return {
        id,
        kind: 'cross-key',
        what: `${rule.key} needs the placeholders ${rule.numbers.map((n) => `${rule.prefix}${n}`).join(', ')}`,
        config: {
          ...base,
          [rule.key]: `INSERT INTO t VALUES (${rule.numbers
            .slice(0, -1)
            .map((n) => `${rule.prefix}${n}`)
            .join(', ')})`,
        },
        source: rule.source,
        keys: [rule.key],
      };
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
    if (keys.length === 1 && typeof (parsed as Row)[keys[0]] === 'object' && !Array.isArray((parsed as Row)[keys[0]]))
      return (parsed as Row)[keys[0]] as Row;
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
