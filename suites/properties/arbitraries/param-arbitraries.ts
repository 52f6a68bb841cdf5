import fc from 'fast-check';
import type { ParamSpec } from '../../../contract/core/types.ts';
import { freeText } from './text.ts';
import { INTEGER_RANGES } from '../../../contract/core/common.ts';

/**
 * Values from the contract's ParamSpecs: valid ones (every rule of the spec satisfied) and
 * mutations that break exactly one rule of one parameter (too long, too short, out of range, not an
 * integer, wrong type, bad enum value, missing).
 */

export type Origin = 'query' | 'body';

export type RuleKind = 'missing' | 'too-long' | 'too-short' | 'wrong-type' | 'below-minimum' | 'above-maximum' | 'not-integer' | 'bad-enum';

/** One broken rule: set `value` (or leave the parameter out) at `path` of an otherwise valid request. */
export interface Mutation {
  /** Dotted path of the parameter, e.g. `config.max_topics`. */
  path: string;
  rule: RuleKind;
  /** The value to send; ignored for `missing`. */
  value?: unknown;
  /** Parameters to set first so only this rule is broken (e.g. a strategy that takes the field). */
  base?: Record<string, unknown>;
  /** The spec assertion "refused as a parameter error" tests, and the one "the refusal names the parameter" tests. */
  assertion: string;
  namingAssertion: string;
}

/** The inclusive integer range a parameter accepts: its type's range narrowed by minimum/maximum. */
export function integerRange(p: ParamSpec): [number, number] | undefined {
  const r = INTEGER_RANGES[p.type];
  if (!r) return undefined;
  return [Math.max(r[0], p.minimum ?? r[0]), Math.min(r[1], p.maximum ?? r[1])];
}

function integerValue(lo: number, hi: number): fc.Arbitrary<number> {
  const near = Math.min(hi, lo + 1000);
  return fc.oneof(
    { arbitrary: fc.bigInt({ min: BigInt(lo), max: BigInt(near) }).map(Number), weight: 4 },
    { arbitrary: fc.constantFrom(lo, hi), weight: 1 },
  );
}

/** A valid value for one parameter, by its spec alone (families override what needs meaning). */
function validValue(p: ParamSpec): fc.Arbitrary<unknown> {
  if (p.enum && p.enum.length > 0) return fc.constantFrom(...p.enum);
  const range = integerRange(p);
  if (range) return integerValue(range[0], range[1]);
  switch (p.type) {
    case 'string':
      return freeText(p.minLength ?? 0, p.maxLength);
    case 'f32':
    case 'number':
      return fc.double({ min: p.minimum ?? 0, max: p.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
    case 'bool':
      return fc.boolean();
    case 'object':
      return p.properties ? objectValue(p.properties) : fc.constant({});
    case 'string-array':
      return fc.array(freeText(0, 16), { maxLength: 3 });
    case 'array':
      return fc.array(p.items ? validValue(p.items) : fc.constant('x'), { maxLength: 3 });
    default:
      return fc.constant('x');
  }
}

/** An object with each optional field sometimes left out. */
export function objectValue(
  props: readonly ParamSpec[],
  overrides: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of props) model[p.name] = overrides[p.name] ?? validValue(p);
  return fc.record(model, { requiredKeys: props.filter((p) => p.required).map((p) => p.name) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Hooks a family gives so a mutation breaks one rule only (a too-long name stays the run's, a too-long config stays JSON). */
export interface MutationHooks {
  /** A text of exactly `length` characters for `path` that is valid except for its length. */
  fill?(p: ParamSpec, path: string, length: number): unknown;
  /** Parameters to set before mutating `path`. */
  base?(path: string): Record<string, unknown> | undefined;
  /** The assertions of the refusal and of the naming, for a parameter and the rule broken. */
  cites(p: ParamSpec, path: string, rule: RuleKind): { assertion: string; namingAssertion: string };
  /** Parameters not to mutate (their rules are open in the spec). */
  skip?(p: ParamSpec, path: string): boolean;
}

/** Every single-rule violation the contract defines for these parameters (recursing into objects). */
export function mutationsOf(params: readonly ParamSpec[], origin: Origin, hooks: MutationHooks, prefix = ''): Mutation[] {
  const out: Mutation[] = [];
  for (const p of params) {
    const path = `${prefix}${p.name}`;
    if (hooks.skip?.(p, path)) continue;
    const base = hooks.base?.(path);
    const add = (rule: RuleKind, value?: unknown) =>
      out.push({ path, rule, ...(rule !== 'missing' ? { value } : {}), ...(base ? { base } : {}), ...hooks.cites(p, path, rule) });
    const fill = (n: number) => hooks.fill?.(p, path, n) ?? 'x'.repeat(n);
    if (p.required) add('missing');
    const range = integerRange(p);
    if (p.type === 'string') {
      if (origin === 'body') add('wrong-type', { unexpected: 'object' });
      if (p.enum && p.enum.length > 0) add('bad-enum', 'Bogus-value');
      if (p.maxLength !== undefined) add('too-long', fill(p.maxLength + 1));
      if (p.minLength !== undefined && p.minLength >= 1) add('too-short', p.minLength === 1 ? '' : fill(p.minLength - 1));
    } else if (range) {
      const typeRange = INTEGER_RANGES[p.type]!;
      const q = (n: number) => (origin === 'query' ? String(n) : n);
      add('wrong-type', 'abc');
      if (p.enum && p.enum.length > 0) {
        const bad = Math.max(...p.enum.map(Number)) + 1;
        if (bad <= range[1]) add('bad-enum', q(bad));
      }
      if (range[0] > typeRange[0] || typeRange[0] === 0) add('below-minimum', q(range[0] - 1));
      if (range[1] < Number.MAX_SAFE_INTEGER) add('above-maximum', q(range[1] + 1));
      const half = range[0] + 0.5;
      if (half < range[1]) add('not-integer', q(half));
    } else if (p.type === 'bool') {
      add('wrong-type', origin === 'query' ? 'maybe' : 'maybe');
    } else if (p.type === 'f32' || p.type === 'number') {
      add('wrong-type', 'abc');
      if (p.minimum !== undefined) add('below-minimum', origin === 'query' ? String(p.minimum - 1) : p.minimum - 1);
      if (p.maximum !== undefined) add('above-maximum', origin === 'query' ? String(p.maximum + 1) : p.maximum + 1);
    } else if (p.type === 'object' && origin === 'body') {
      add('wrong-type', 'not-an-object');
      if (p.properties) out.push(...mutationsOf(p.properties, origin, hooks, `${path}.`));
    } else if ((p.type === 'array' || p.type === 'string-array') && origin === 'body') {
      add('wrong-type', 'not-an-array');
    }
  }
  return out;
}

/** A copy of `params` with the mutation applied (nested paths create their object when absent). */
export function applyMutation(params: Record<string, unknown>, m: Mutation): Record<string, unknown> {
  const out = structuredCloneSafe(params);
  for (const [k, v] of Object.entries(m.base ?? {})) setPath(out, k, structuredCloneSafe(v));
  if (m.rule === 'missing') deletePath(out, m.path);
  else setPath(out, m.path, m.value);
  return out;
}

function structuredCloneSafe<T>(v: T): T {
  // Symbols (class instances) must survive: copy plain objects and arrays only.
  if (Array.isArray(v)) return v.map(structuredCloneSafe) as T;
  if (v !== null && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = structuredCloneSafe(x);
    return o as T;
  }
  return v;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

function deletePath(obj: Record<string, unknown>, path: string): void {
  const parts = path.split('.');
  let cur: Record<string, unknown> | undefined = obj;
  for (const part of parts.slice(0, -1)) {
    const next: unknown = cur?.[part];
    cur = next !== null && typeof next === 'object' ? (next as Record<string, unknown>) : undefined;
  }
  if (cur) delete cur[parts[parts.length - 1]];
}

/** Does a generated value hold letters outside ASCII (a server may count bytes)? */
export function hasNonAscii(value: unknown): boolean {
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at NUL
  if (typeof value === 'string') return /[^\x00-\x7f]/.test(value);
  if (Array.isArray(value)) return value.some(hasNonAscii);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNonAscii);
  return false;
}
