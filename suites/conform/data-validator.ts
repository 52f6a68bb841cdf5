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
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    addFormats.default(this.ajv);
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
      const extra = err.keyword === 'additionalProperties' ? ` ${JSON.stringify(err.params)}` : err.keyword === 'enum' ? ` ${JSON.stringify((err.params as { allowedValues?: unknown }).allowedValues)}` : '';
      return `${where} ${err.message ?? err.keyword}${extra}`;
    });
    return { ok: false, errors };
  }
}
