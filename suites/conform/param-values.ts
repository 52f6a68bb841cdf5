import { COMMON_LIST_PARAMS } from '../../fixtures/contract/common.ts';
import type { EndpointContract, ParamSpec } from '../../fixtures/contract/types.ts';
import type { QueryValue } from '../targets/target.ts';

/** Parameters an endpoint declares, with the common list parameters for list endpoints. */
export function declaredParams(e: EndpointContract): readonly ParamSpec[] {
  if (!e.list) return e.params;
  return [...e.params, ...COMMON_LIST_PARAMS.filter((c) => !e.params.some((p) => p.name === c.name))];
}

/** The smallest value the contract accepts for a parameter: its default, first enum value, or a minimal one. */
export function minimalValue(p: ParamSpec): unknown {
  if (p.default !== undefined) return structuredClone(p.default);
  if (p.enum && p.enum.length > 0) return p.enum[0];
  switch (p.type) {
    case 'string':
      return 'x'.repeat(Math.max(1, p.minLength ?? 1));
    case 'bool':
      return false;
    case 'f32':
    case 'number':
      return p.minimum ?? 0;
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const f of p.properties ?? []) if (f.required) out[f.name] = minimalValue(f);
      return out;
    }
    case 'array':
      return p.items ? [minimalValue(p.items)] : [];
    case 'string-array':
      return [];
    default:
      // integer types
      return p.minimum ?? 0;
  }
}

/**
 * A valid parameter set for an endpoint: every declared parameter named in `fields` takes that value
 * (undefined leaves it out), every other required one its minimal value. Names the endpoint does not
 * declare are dropped, so one set of fixture fields serves endpoints with different shapes.
 */
export function buildParams(e: EndpointContract, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of declaredParams(e)) {
    if (Object.prototype.hasOwnProperty.call(fields, p.name)) {
      if (fields[p.name] !== undefined) out[p.name] = fields[p.name];
    } else if (p.required) out[p.name] = minimalValue(p);
  }
  return out;
}

/** Parameters as a query: arrays of text become repeated keys, objects JSON text. */
export function toQuery(params: Record<string, unknown>): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else if (v !== null && typeof v === 'object') out[k] = JSON.stringify(v);
    else out[k] = v as string | number | boolean;
  }
  return out;
}

/** Request parts for an endpoint: a query for GET, a JSON body for POST. */
export function requestParts(e: EndpointContract, params: Record<string, unknown>): { query?: Record<string, QueryValue>; body?: unknown } {
  return e.method === 'GET' ? { query: toQuery(params) } : { body: params };
}

/**
 * A text of exactly `length` characters built from `stem` (cut or padded with `x`), so names of each
 * length stay distinct between parameters and runs of different seeds.
 */
export function textOfLength(stem: string, length: number): string {
  if (length <= 0) return '';
  if (length <= stem.length) return stem.slice(stem.length - length);
  return stem + 'x'.repeat(length - stem.length);
}
