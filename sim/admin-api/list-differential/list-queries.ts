/**
 * Random requests of a list endpoint, from its contract entry: its named filters, its other
 * parameters, the common list parameters (sort fields and record fields of the list, and one it
 * does not have), pages past the end, limit 0 (the default) and now and then a value the validation
 * refuses. A request is kept as the parameters sent, in order, so it can be sent again as it was,
 * with its keys in another order, or in the other sort direction.
 */
import fc from 'fast-check';
import { endpointById } from '../../../contract/index.ts';
import type { EndpointContract } from '../../../contract/core/types.ts';
import { CROWD_TENANT, NAMES, TENANTS, TEXTS } from './list-writes.ts';

/** A parameter's value as sent: text (or a number in a POST body), several texts for filter_values. */
type SentValue = string | number | readonly string[];

/** One list request: endpoint, node asked, parameters in the order sent. */
export interface ListQuery {
  readonly id: string;
  readonly nodeId: number;
  readonly params: readonly (readonly [string, SentValue])[];
  /** A GET sending its parameters as a JSON body instead of its query (the app reads them there too). */
  readonly inBody?: boolean;
}

/** Values of filters: the names and texts the writes use, their parts, other cases, record values, and the empty text. */
const FILTER_VALUES = [
  ...new Set([
    '',
    ...TENANTS,
    ...NAMES,
    ...TEXTS,
    'true',
    'false',
    '1',
    '0',
    'Allow',
    'json',
    'Running',
    'Stopped',
    CROWD_TENANT,
    'crowd1',
    'bulk1',
    '2026',
    ':',
    'x/#',
    '$',
    '"max_sessions":5',
  ]),
];

/** Present one time in `every`. */
const sometimes = <T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Field names of the list's records (its response schema). */
export function recordFieldsOf(endpoint: EndpointContract): string[] {
  return Object.keys((endpoint.response.data as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
}

/** Random requests of list endpoint `id`. */
export function listQueryArb(id: string): fc.Arbitrary<ListQuery> {
  const e = endpointById(id);
  const fields = recordFieldsOf(e);
  const value = fc.constantFrom(...FILTER_VALUES);
  const own = Object.fromEntries(
    e.params.map((p) => [p.name, sometimes(p.enum ? fc.constantFrom(...p.enum.map(String)) : value, p.match ? 4 : 3)]),
  );
  // 'many' is no number (refused); 1000 is a page past the end of every list here.
  const count = fc.constantFrom<string | number>(0, 1, 2, 3, 7, 1000, 'many');
  const common = {
    limit: sometimes(count, 2),
    page: sometimes(count, 2),
    // 'nope' is no sort field (ignored); 'sideways' sorts descending (decisions).
    sort_field: sometimes(fc.constantFrom(...(e.list?.sortFields ?? []), 'nope'), 2),
    sort_by: sometimes(fc.constantFrom('asc', 'desc', 'sideways'), 2),
    filter_field: sometimes(fc.constantFrom(...fields, 'nope'), 3),
    filter_values: fc.array(value, { minLength: 1, maxLength: 2 }),
    exact_match: sometimes(fc.constantFrom('true', 'false'), 2),
  };
  return fc.record({ nodeId: fc.constantFrom(1, 2), own: fc.record(own), common: fc.record(common) }).map(({ nodeId, own, common }) => {
    const params: [string, SentValue][] = [];
    for (const [k, v] of Object.entries(own)) if (v !== undefined) params.push([k, v]);
    for (const [k, v] of Object.entries(common)) {
      if (v === undefined || (k === 'filter_values' && common.filter_field === undefined)) continue;
      params.push([k, v]);
    }
    return { id, nodeId, params };
  });
}

/** The same request in the other sort direction (asc for desc or any other, desc for asc or none). */
export function flipped(q: ListQuery): ListQuery {
  const sortBy = q.params.find(([k]) => k === 'sort_by')?.[1];
  const other = sortBy === undefined || sortBy === 'asc' ? 'desc' : 'asc';
  const params = q.params.filter(([k]) => k !== 'sort_by');
  return { ...q, params: [...params, ['sort_by', other]] };
}

/** The same request with its parameters in the reverse order (another URL, the same query). */
export function reordered(q: ListQuery): ListQuery {
  return { ...q, params: [...q.params].reverse() };
}

/** The same request with its parameters in a JSON body (a GET's; a POST's are there already). */
export function inBody(q: ListQuery): ListQuery {
  return { ...q, inBody: true };
}

/** Whether the request carries its parameters in a JSON body (a POST list, or a GET sent so). */
export function sendsBody(q: ListQuery): boolean {
  return q.inBody === true || endpointById(q.id).method === 'POST';
}

/** A GET's URL (repeated keys for several values, every text percent-encoded; the path alone when they go in a body). */
export function urlOf(q: ListQuery): string {
  const e = endpointById(q.id);
  if (sendsBody(q)) return e.path;
  const parts = q.params.flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [String(v)]).map((one: string) => `${encodeURIComponent(k)}=${encodeURIComponent(one)}`),
  );
  return parts.length === 0 ? e.path : `${e.path}?${parts.join('&')}`;
}

/** A POST's JSON body (numbers as numbers, a text that is no number stays text). */
export function bodyOf(q: ListQuery): Record<string, unknown> {
  return Object.fromEntries(q.params.map(([k, v]) => [k, v]));
}

/** The parameters as the app reads them from this request: a GET's query (texts), a POST's body. */
export function rawParamsOf(q: ListQuery): { raw: Record<string, unknown>; origin: 'query' | 'body' } {
  if (sendsBody(q)) return { raw: bodyOf(q), origin: 'body' };
  const raw: Record<string, unknown> = {};
  for (const [k, v] of q.params) raw[k] = Array.isArray(v) ? (v.length === 1 ? v[0] : [...v]) : String(v);
  return { raw, origin: 'query' };
}

/** How a request reads in a history. */
export function describeQuery(q: ListQuery): string {
  const e = endpointById(q.id);
  const sent = sendsBody(q) ? `${e.path} ${JSON.stringify(bodyOf(q))}` : urlOf(q);
  return `${e.method} ${sent}${q.nodeId === 1 ? '' : ` (node ${q.nodeId})`}`;
}
