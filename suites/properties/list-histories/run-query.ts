import type { Ident } from '../reference-model/family-model.ts';
import type { PageQuery, PageReader } from '../reference-model/list-page.ts';
import type { QuerySpec, ValueRef } from './history-steps.ts';
import type { FieldSource, HistoryFamily } from './list-families.ts';

/**
 * A list read as one run sends it, and how the page judge reads it: which records its filters
 * match (exact or contains, per the contract), and the fields of instances and rows it compares.
 */

/** Page size of a read meant to show every record of the run's scope at once. */
export const WHOLE = 10_000;

/** A query whose filter values and page are the ones sent (the run's names resolved, references taken). */
export type Query = QuerySpec & { filters: Readonly<Record<string, string>>; page: number };

/** The part of a written value a reference cuts out. */
export function cutOf(value: string, cut: ValueRef['cut']): string {
  const n = value.length;
  if (cut === 'prefix') return value.slice(0, Math.max(1, Math.ceil(n / 2)));
  if (cut === 'suffix') return value.slice(Math.min(n - 1, Math.floor(n / 2)));
  if (cut === 'middle' && n >= 3) return value.slice(1, -1);
  return value;
}

/** The request's query parameters: the filters, the sort (both keys, always), limit and page. */
export function listParams(q: Query): Record<string, unknown> {
  const params: Record<string, unknown> = { ...q.filters };
  if (q.sort) Object.assign(params, { sort_field: q.sort.field, sort_by: q.sort.by });
  return { ...params, limit: q.limit, page: q.page };
}

/** The query as the page judge reads it. */
export function pageQuery(h: HistoryFamily, q: Query): PageQuery {
  const filters = Object.entries(q.filters).map(([param, value]) => ({ filter: h.filters.find((f) => f.param === param)!, value }));
  return {
    failedFilter: (view) =>
      filters.find(({ filter, value }) => {
        const v = view[filter.field] ?? '';
        return filter.match === 'exact' ? v !== value : !v.includes(value);
      })?.filter.param,
    ...(q.sort ? { sort: { field: q.sort.field, descending: q.sort.by === 'desc' } } : {}),
    limit: q.limit,
    page: q.page,
  };
}

function fieldValue(h: HistoryFamily, source: FieldSource, ident: Ident, shown: Readonly<Record<string, unknown>>): string {
  if (source.kind === 'name') return ident[h.family.nameParam] ?? '';
  if (source.kind === 'tenant') return ident[h.family.scopeParam!] ?? '';
  const v = shown[source.param];
  return v === undefined || v === null ? '' : String(v);
}

/** Reads the fields of the query's filters and sort field, of an instance in one state and of a row. */
export function pageReader(h: HistoryFamily, q: Query): PageReader {
  const sources = new Map<string, FieldSource>();
  for (const param of Object.keys(q.filters)) {
    const f = h.filters.find((x) => x.param === param)!;
    sources.set(f.field, f.source);
  }
  if (q.sort) sources.set(q.sort.field, h.sortFields.find((x) => x.field === q.sort!.field)!.source);
  return {
    viewOf: (ident, shown) => Object.fromEntries([...sources].map(([field, source]) => [field, fieldValue(h, source, ident, shown)])),
    rowView: (row) =>
      Object.fromEntries(
        [...sources.keys()].map((field) => [field, row[field] === undefined || row[field] === null ? '' : String(row[field])]),
      ),
  };
}
