import type { ParamSpec, ParamType } from '../../../contract/core/types.ts';
import { INTEGER_RANGES } from '../../../contract/core/common.ts';
import { OperationError } from '../errors/operation-error.ts';

/** Where raw values come from: a query string carries text, a JSON body carries typed values. */
export type ParamOrigin = 'query' | 'body';

const TYPE_WORDS: Record<ParamType, string> = {
  string: 'a string',
  u8: 'an unsigned 8-bit integer',
  u16: 'an unsigned 16-bit integer',
  u32: 'an unsigned 32-bit integer',
  u64: 'an unsigned 64-bit integer',
  i32: 'a signed 32-bit integer',
  i64: 'a signed 64-bit integer',
  f32: 'a number',
  number: 'a number',
  bool: 'a boolean (true or false)',
  object: 'a JSON object',
  array: 'a JSON array',
  'string-array': 'an array of strings',
};

/** Number of Unicode code points, the unit of the spec's length limits. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function reject(path: string, problem: string): never {
  throw new OperationError('invalid', `invalid parameter '${path}': ${problem}`, path);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${typeof value === 'object' ? '' : JSON.stringify(value)}`.trim();
}

function coerceFromQuery(spec: ParamSpec, raw: unknown, path: string): unknown {
  if (spec.type === 'string-array') {
    if (Array.isArray(raw)) return raw.map(String);
    const text = String(raw);
    if (text.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) return parsed;
      } catch {
        /* fall through: a plain value that happens to start with '[' */
      }
    }
    return [text];
  }
  if (Array.isArray(raw)) reject(path, `given more than once; expected ${TYPE_WORDS[spec.type]}`);
  const text = String(raw);
  if (spec.type === 'string') return text;
  if (spec.type === 'bool') {
    if (text === 'true') return true;
    if (text === 'false') return false;
    reject(path, `expected true or false, got ${JSON.stringify(text)}`);
  }
  if (INTEGER_RANGES[spec.type]) {
    if (!/^-?\d+$/.test(text)) reject(path, `expected ${TYPE_WORDS[spec.type]}, got ${JSON.stringify(text)}`);
    return Number(text);
  }
  if (spec.type === 'f32' || spec.type === 'number') {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n)) reject(path, `expected a number, got ${JSON.stringify(text)}`);
    return n;
  }
  if (spec.type === 'object' || spec.type === 'array') {
    try {
      return JSON.parse(text);
    } catch {
      reject(path, `expected ${TYPE_WORDS[spec.type]} as JSON text`);
    }
  }
  return text;
}

function checkValue(spec: ParamSpec, value: unknown, path: string): unknown {
  const type = spec.type;
  const range = INTEGER_RANGES[type];
  if (type === 'string') {
    if (typeof value !== 'string') reject(path, `expected a string, got ${describe(value)}`);
    const len = charLength(value);
    if (spec.minLength !== undefined && spec.maxLength !== undefined && (len < spec.minLength || len > spec.maxLength)) {
      reject(path, `length must be between ${spec.minLength} and ${spec.maxLength} characters (got ${len})`);
    }
    if (spec.minLength !== undefined && len < spec.minLength) {
      reject(path, spec.minLength === 1 ? 'must not be empty' : `length must be at least ${spec.minLength} characters (got ${len})`);
    }
    if (spec.maxLength !== undefined && len > spec.maxLength)
      reject(path, `length must be at most ${spec.maxLength} characters (got ${len})`);
  } else if (range) {
    if (typeof value !== 'number' || !Number.isInteger(value)) reject(path, `expected ${TYPE_WORDS[type]}, got ${describe(value)}`);
    if (value < range[0] || value > range[1])
      reject(path, `must be ${TYPE_WORDS[type]} between ${range[0]} and ${range[1]} (got ${value})`);
  } else if (type === 'f32' || type === 'number') {
    if (typeof value !== 'number' || !Number.isFinite(value)) reject(path, `expected a number, got ${describe(value)}`);
  } else if (type === 'bool') {
    if (typeof value !== 'boolean') reject(path, `expected true or false, got ${describe(value)}`);
  } else if (type === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) reject(path, `expected a JSON object, got ${describe(value)}`);
    if (spec.properties) return validateFields(spec.properties, value as Record<string, unknown>, 'body', `${path}.`);
    return value;
  } else if (type === 'array') {
    if (!Array.isArray(value)) reject(path, `expected a JSON array, got ${describe(value)}`);
    if (spec.items) return value.map((item, i) => checkValue(spec.items!, item, `${path}[${i}]`));
    return value;
  } else if (type === 'string-array') {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      reject(path, `expected an array of strings, got ${describe(value)}`);
  }
  if (typeof value === 'number') {
    if (spec.minimum !== undefined && value < spec.minimum) reject(path, `must be at least ${spec.minimum} (got ${value})`);
    if (spec.maximum !== undefined && value > spec.maximum) reject(path, `must be at most ${spec.maximum} (got ${value})`);
  }
  if (spec.enum && !spec.enum.includes(value as string | number)) {
    reject(path, `must be one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`);
  }
  return value;
}

/**
 * Checks raw parameters against their specs and returns a fresh object holding only the declared
 * parameters, with defaults applied. Unknown keys are ignored (real clients send extras), and since
 * only declared names are copied, keys such as `__proto__` can never reach the model.
 * Throws an `invalid` OperationError naming the first offending parameter.
 */
export function validateFields(
  specs: readonly ParamSpec[],
  raw: Record<string, unknown>,
  origin: ParamOrigin,
  prefix = '',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    const path = `${prefix}${spec.name}`;
    let value = Object.prototype.hasOwnProperty.call(raw, spec.name) ? raw[spec.name] : undefined;
    if (value === null) value = undefined; // JSON null reads as "not given"
    if (value === undefined) {
      if (spec.required) reject(path, 'is required');
      // A copy only for object defaults (a handler may change them); primitives are values already.
      if (spec.default !== undefined) out[spec.name] = typeof spec.default === 'object' ? structuredClone(spec.default) : spec.default;
      continue;
    }
    if (origin === 'query') value = coerceFromQuery(spec, value, path);
    out[spec.name] = checkValue(spec, value, path);
  }
  return out;
}
