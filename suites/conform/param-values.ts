import type { EndpointContract } from '../../contract/core/types.ts';
import type { QueryValue } from '../targets/target.ts';

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
