import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { dataSchemaOf } from '../../fixtures/contract/to-openapi.ts';
import type { EndpointContract, JsonSchema } from '../../fixtures/contract/types.ts';

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
    // each field, and a value in the wrong unit is a real mistake a type check cannot see.
    this.ajv.addKeyword({
      keyword: 'x-time-form',
      schemaType: 'string',
      errors: false,
      validate: (form: string, value: unknown) => plausibleTime(form, value),
    });
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
      if (err.keyword === 'x-time-form') return `${where} ${JSON.stringify(err.data)} is not plausible as ${String(err.schema)} (wrong unit?)`;
      const extra = err.keyword === 'additionalProperties' ? ` ${JSON.stringify(err.params)}` : err.keyword === 'enum' ? ` ${JSON.stringify((err.params as { allowedValues?: unknown }).allowedValues)}` : '';
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
