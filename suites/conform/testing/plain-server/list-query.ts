import { refuse } from './answers.ts';

/**
 * The list query of every list endpoint, computed afresh on each request: filter, sort, slice, count
 * (spec: Common list parameters; Response envelope, paged list; each list's query paragraph).
 */

export type Row = Record<string, unknown>;
/** Query parameters (strings, repeated keys as arrays) or the JSON body of a POST list. */
export type Params = Record<string, unknown>;

export interface ListDef {
  /** Page size when `limit` is absent or 0 (Limits: 10000 in general, 100 for tenants). */
  defaultLimit: number;
  /** Every field of a record a query may name: filter_field, and sort_field where the spec lists none. */
  fields: readonly string[];
  /** The sort fields the spec lists for the endpoint; `any`: it lists none, every field of `fields` sorts. */
  sortFields: readonly string[] | 'any';
  /** Named filters: query parameter → record field, contains match unless `exact`. */
  filters: Readonly<Record<string, { field: string; exact?: boolean }>>;
  /** The record as the query sees it (a shard row nests its fields). */
  view?: (row: Row) => Row;
  /** A query parameter of the list with a meaning of its own (the topic list's `topic_type`). */
  select?: (params: Params) => ((row: Row) => boolean) | undefined;
}

export interface QueryChoices {
  /** How `sort_by` absent reads (the spec lists asc and desc and gives no default). */
  sortByDefault: 'asc' | 'desc';
  /** How `exact_match` absent reads (the spec gives no default). */
  exactMatchDefault: boolean;
}

interface ListQuery {
  limit: number;
  page: number;
  sort?: { field: string; desc: boolean };
  keep: ((row: Row) => boolean)[];
}

/** One query value: the last of a repeated key. */
function single(params: Params, name: string): unknown {
  const v = params[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function textParam(params: Params, name: string): string | undefined {
  const v = single(params, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') refuse(`${name} must be a string`);
  return v;
}

function u32Param(params: Params, name: string): number | undefined {
  const v = single(params, name);
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 4_294_967_295) refuse(`${name} must be an integer from 0 to 4294967295 (a u32)`);
  return n;
}

/** Case-insensitive contains (the reference server lowercases both sides), or equality. */
function matcher(want: readonly string[], exact: boolean): (v: unknown) => boolean {
  const lowered = want.map((w) => w.toLowerCase());
  return (v) => {
    if (v === undefined || v === null || typeof v === 'object') return false;
    const s = String(v);
    return exact ? want.includes(s) : lowered.some((w) => s.toLowerCase().includes(w));
  };
}

function filterValues(params: Params): string[] {
  const v = params.filter_values;
  const list = v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
  if (!list.every((x): x is string => typeof x === 'string')) refuse('filter_values must be an array of strings');
  return list;
}

function exactMatch(params: Params, choices: QueryChoices): boolean {
  const v = single(params, 'exact_match');
  if (v === undefined || v === null) return choices.exactMatchDefault;
  if (v === 'true' || v === true) return true;
  if (v === 'false' || v === false) return false;
  return refuse('exact_match must be true or false');
}

/** Reads the query; refuses a parameter the spec's rules do not allow. */
export function readQuery(params: Params, def: ListDef, choices: QueryChoices): ListQuery {
  const limit = u32Param(params, 'limit') || def.defaultLimit;
  const page = u32Param(params, 'page') ?? 1;
  if (page < 1) refuse('page starts at 1');
  const view = def.view ?? ((r: Row) => r);
  const keep: ((row: Row) => boolean)[] = [];
  for (const [param, f] of Object.entries(def.filters)) {
    const want = textParam(params, param);
    if (want === undefined || want === '') continue;
    const match = matcher([want], f.exact === true);
    keep.push((r) => match(view(r)[f.field]));
  }
  const selected = def.select?.(params);
  if (selected) keep.push(selected);
  const filterField = textParam(params, 'filter_field');
  const values = filterValues(params);
  const exact = exactMatch(params, choices);
  if (filterField !== undefined && !def.fields.includes(filterField)) refuse(`filter_field must be one of ${def.fields.join(', ')}`);
  if (filterField !== undefined && values.length > 0) {
    const match = matcher(values, exact);
    keep.push((r) => match(view(r)[filterField]));
  }
  const sortBy = textParam(params, 'sort_by') ?? choices.sortByDefault;
  if (sortBy !== 'asc' && sortBy !== 'desc') refuse('sort_by must be asc or desc');
  const field = textParam(params, 'sort_field');
  const sortable = def.sortFields === 'any' ? def.fields : def.sortFields;
  if (field !== undefined && !sortable.includes(field))
    refuse(sortable.length ? `sort_field must be one of ${sortable.join(', ')}` : 'sort_field: this list has no sort field');
  return { limit, page, keep, ...(field !== undefined ? { sort: { field, desc: sortBy === 'desc' } } : {}) };
}

/** Strings by code point, numbers as numbers, false before true; absent values first. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = [...(typeof a === 'string' ? a : JSON.stringify(a))];
  const y = [...(typeof b === 'string' ? b : JSON.stringify(b))];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The page the query asks for, from `rows` in the list's base order: the matching records, sorted
 * when asked (records with equal keys in the reverse of the base order), then the page's slice;
 * total_count counts every matching record.
 */
export function pageOf(rows: readonly Row[], q: ListQuery, def: ListDef): { data: Row[]; total_count: number } {
  const matching = rows.filter((r) => q.keep.every((k) => k(r)));
  let ordered = matching;
  if (q.sort) {
    const { field, desc } = q.sort;
    const view = def.view ?? ((r: Row) => r);
    // Array.prototype.sort is stable: ties keep the order of the reversed base order.
    ordered = [...matching].reverse().sort((a, b) => (desc ? -1 : 1) * compareValues(view(a)[field], view(b)[field]));
  }
  const start = (q.page - 1) * q.limit;
  return { data: ordered.slice(start, start + q.limit), total_count: matching.length };
}
