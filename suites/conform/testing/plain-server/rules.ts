import { refuse } from './answers.ts';

/**
 * Request validation as the spec states it: required fields, types, lengths (counted in characters),
 * enums and numeric ranges. The first broken rule refuses the request with a text naming the field.
 */

export type Rule =
  | { type: 'string'; required?: boolean; min?: number; max?: number; oneOf?: readonly string[] }
  | { type: 'u32' | 'u64'; required?: boolean; min?: number; max?: number; oneOf?: readonly number[] }
  | { type: 'bool'; required?: boolean }
  /** Without `fields`: any object, passed on as it is (its own rules are checked elsewhere). */
  | { type: 'object'; required?: boolean; fields?: Rules };

export type Rules = Readonly<Record<string, Rule>>;

export type Body = Record<string, unknown>;

/** A string of `min`-`max` characters. */
export const text = (min = 0, max?: number): Rule => ({ type: 'string', min, ...(max !== undefined ? { max } : {}) });
export const oneOf = (...values: string[]): Rule => ({ type: 'string', oneOf: values });
export const u32 = (min = 0, max = 4_294_967_295): Rule => ({ type: 'u32', min, max });
export const u64 = (min = 0): Rule => ({ type: 'u64', min, max: Number.MAX_SAFE_INTEGER });
export const flag: Rule = { type: 'bool' };
export const need = (r: Rule): Rule => ({ ...r, required: true });

const chars = (s: string) => [...s].length;

function check(name: string, rule: Rule, v: unknown): unknown {
  switch (rule.type) {
    case 'string': {
      if (typeof v !== 'string') refuse(`${name} must be a string`);
      if (rule.oneOf && !rule.oneOf.includes(v)) refuse(`${name} must be one of ${rule.oneOf.join(', ')}`);
      const n = chars(v);
      if ((rule.min !== undefined && n < rule.min) || (rule.max !== undefined && n > rule.max))
        refuse(rule.max !== undefined ? `${name} length must be between ${rule.min ?? 0}-${rule.max}` : `${name} must not be empty`);
      return v;
    }
    case 'u32':
    case 'u64': {
      if (typeof v !== 'number' || !Number.isInteger(v)) refuse(`${name} must be an integer`);
      if (rule.oneOf && !rule.oneOf.includes(v)) refuse(`${name} must be one of ${rule.oneOf.join(', ')}`);
      if (v < (rule.min ?? 0) || v > (rule.max ?? Number.MAX_SAFE_INTEGER))
        refuse(`${name} must be between ${rule.min ?? 0} and ${rule.max ?? Number.MAX_SAFE_INTEGER}`);
      return v;
    }
    case 'bool':
      if (typeof v !== 'boolean') refuse(`${name} must be true or false`);
      return v;
    case 'object':
      if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${name} must be an object`);
      return rule.fields ? validate(v as Body, rule.fields, `${name}.`) : v;
  }
}

/**
 * The declared fields of `body`, each checked against its rule (an absent or null optional field is
 * left out); unknown fields are dropped. Refuses (throws) on the first broken rule.
 */
export function validate(body: Body, rules: Rules, prefix = ''): Body {
  const out: Body = {};
  for (const [field, rule] of Object.entries(rules)) {
    const v = body[field];
    if (v === undefined || v === null) {
      if (rule.required) refuse(`${prefix}${field} is required`);
      continue;
    }
    out[field] = check(`${prefix}${field}`, rule, v);
  }
  return out;
}
