import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { dataSchemaOf } from '../../contract/to-openapi.ts';
import type { EndpointContract, JsonSchema } from '../../contract/core/types.ts';

export type SchemaCheck = { ok: true } | { ok: false; errors: string[] };

/**
 * Validates `data` against the contract's JSON Schemas with ajv (draft 2020-12). Annotation keys
 * (`x-…`) are allowed; everything else is compiled strictly so a schema typo cannot pass silently.
 */
export class DataValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, verbose: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    addFormats.default(this.ajv);
    // The spec mixes time forms (Unix seconds, Unix milliseconds, local-time text); the contract marks
    // each field. The unit is judged by the time-forms check alone (one rule, one check, one finding),
    // so the schema check knows the keyword but does not judge it.
    this.ajv.addKeyword({ keyword: 'x-time-form', schemaType: 'string' });
  }

  private compile(key: string, schema: JsonSchema): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(schema);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** `data` of a success answer of `e` (the paged wrapper for list endpoints). */
  checkData(e: EndpointContract, data: unknown): SchemaCheck {
    return this.run(this.compile(`data:${e.id}`, dataSchemaOf(e)), data);
  }

  checkSchema(key: string, schema: JsonSchema, value: unknown): SchemaCheck {
    return this.run(this.compile(key, schema), value);
  }

  private run(fn: ValidateFunction, value: unknown): SchemaCheck {
    if (fn(value)) return { ok: true };
    const errors = (fn.errors ?? []).slice(0, 8).map((err) => {
      const where = err.instancePath || '(data)';
      const extra =
        err.keyword === 'additionalProperties'
          ? ` ${JSON.stringify(err.params)}`
          : err.keyword === 'enum'
            ? ` ${JSON.stringify((err.params as { allowedValues?: unknown }).allowedValues)}`
            : '';
      return `${where} ${err.message ?? err.keyword}${extra}`;
    });
    return { ok: false, errors };
  }
}

/** Seconds since 1973 up to year 5138; milliseconds likewise; 0 stands for "never" in both. */
export function plausibleTime(form: string, value: unknown): boolean {
  if (typeof value !== 'number') return true; // the type keyword reports non-numbers
  if (value === 0) return true;
  if (form === 'unix-seconds') return value >= 1e8 && value < 1e11;
  if (form === 'unix-millis') return value >= 1e11 && value < 1e14;
  return true;
}

/** One time value found in a response, with the form its schema gives. */
export interface TimeValue {
  path: string;
  form: 'unix-seconds' | 'unix-millis' | 'local-time';
  value: unknown;
  /** The form is a project decision (the schema's description says so), not the spec's. */
  decision: boolean;
  /** The field uses -1 for "none yet" (segment timestamps). */
  minusOneAllowed: boolean;
}

type Schema = Record<string, unknown>;

function branchFor(schemas: Schema[], value: unknown): Schema | undefined {
  const t =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'number'
          ? Number.isInteger(value)
            ? 'integer'
            : 'number'
          : typeof value;
  return (
    schemas.find((s) => s.type === t || (t === 'integer' && s.type === 'number')) ?? schemas.find((s) => s.type === undefined && s.anyOf)
  );
}

/** Does the schema (or a part of it) describe any time field? */
export function hasTimeFields(schema: unknown, depth = 0): boolean {
  if (depth > 12 || schema === null || typeof schema !== 'object') return false;
  const s = schema as Schema;
  if (s['x-time-form'] || (typeof s.description === 'string' && /^Unix (seconds|milliseconds)/.test(s.description))) return true;
  return Object.values(s).some((v) => (Array.isArray(v) ? v.some((x) => hasTimeFields(x, depth + 1)) : hasTimeFields(v, depth + 1)));
}

/** Walks `value` along `schema` and collects every value of a time field. */
export function collectTimeValues(schema: unknown, value: unknown, path = '', out: TimeValue[] = [], depth = 0): TimeValue[] {
  if (depth > 12 || schema === null || typeof schema !== 'object' || value === undefined) return out;
  let s = schema as Schema;
  if (Array.isArray(s.anyOf)) {
    const branch = branchFor(s.anyOf as Schema[], value);
    if (!branch) return out;
    s = branch;
  }
  const description = typeof s.description === 'string' ? s.description : '';
  const form = s['x-time-form'] as TimeValue['form'] | undefined;
  if (form) out.push({ path: path || '(data)', form, value, decision: false, minusOneAllowed: /-1/.test(description) });
  else if ((s.type === 'integer' || s.type === 'number') && /^Unix (seconds|milliseconds)/.test(description)) {
    out.push({
      path: path || '(data)',
      form: /^Unix milliseconds/.test(description) ? 'unix-millis' : 'unix-seconds',
      value,
      decision: /decision/.test(description),
      minusOneAllowed: /-1/.test(description),
    });
  }
  if (Array.isArray(value) && s.items)
    value.slice(0, 100).forEach((v, i) => collectTimeValues(s.items, v, `${path}[${i}]`, out, depth + 1));
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k in props) collectTimeValues(props[k], v, `${path}.${k}`, out, depth + 1);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object')
        collectTimeValues(s.additionalProperties, v, `${path}.${k}`, out, depth + 1);
    }
  }
  return out;
}

/** Why a time value is not in its form, or undefined when it is. */
export function timeProblem(t: TimeValue): string | undefined {
  const v = t.value;
  if (v === null) return undefined;
  if (t.form === 'local-time') {
    if (typeof v !== 'string') return `${t.path} ${JSON.stringify(v)} is not a local-time text YYYY-MM-DD HH:MM:SS`;
    const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(v);
    if (!m) return `${t.path} ${JSON.stringify(v)} is not of the form YYYY-MM-DD HH:MM:SS`;
    const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
    const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
    if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || se > 59)
      return `${t.path} ${JSON.stringify(v)} is not a valid date and time`;
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v))
    return `${t.path} ${JSON.stringify(v)} is not a whole number of ${t.form === 'unix-millis' ? 'milliseconds' : 'seconds'}`;
  if (v === -1 && t.minusOneAllowed) return undefined;
  if (!plausibleTime(t.form, v)) {
    const hint =
      t.form === 'unix-seconds' && v >= 1e11
        ? ' (milliseconds where seconds are due?)'
        : t.form === 'unix-millis' && v < 1e11
          ? ' (seconds where milliseconds are due?)'
          : '';
    return `${t.path} ${v} is not plausible as ${t.form}${hint}`;
  }
  return undefined;
}
