import type { ListSpec, ParamSpec } from '../../fixtures/contract/types.ts';
import { IndexedList, type IndexedListSource, type OrderedIndex } from './indexed-list.ts';
import { compareValues, valueText } from './compare-values.ts';
import { invalidParam } from './operation-error.ts';

/** The `data` of a paged list response. */
export interface Page<T> {
  data: T[];
  total_count: number;
}

/** A record's field by name: the query names fields at run time (the contract's list parameters). */
function fieldOf(row: object, field: string): unknown {
  return Reflect.get(row, field);
}

function fieldText(row: object, field: string): string | undefined {
  return valueText(fieldOf(row, field));
}

/**
 * Applies a list endpoint's parameters to the full record set, in the order the spec implies:
 * named filters (exact or fuzzy, per parameter) → `filter_field`/`filter_values` → sampling →
 * sort → page. `total_count` counts every matching record (or the tenant/cluster scope for the
 * client list), never only the page.
 */
export function applyListQuery<T extends object, R = unknown>(
  records: readonly T[] | IndexedList<R, T>,
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields?: readonly string[],
): Page<T> {
  if (records instanceof IndexedList) {
    if (recordFields) return applyIndexedListQuery(records, params, namedParams, spec, recordFields);
    records = records.toArray();
  }
  let rows: readonly T[] = records;

  // Named filters: exact first, so `scope` totals can be taken before fuzzy ones.
  const named = namedParams.filter((p) => p.match && params[p.name] !== undefined);
  for (const p of named.filter((n) => n.match === 'exact')) {
    const want = String(params[p.name]);
    const field = p.field ?? p.name;
    rows = rows.filter((r) => fieldText(r, field) === want);
  }
  const scopeTotal = rows.length;
  for (const p of named.filter((n) => n.match === 'fuzzy')) {
    const want = String(params[p.name]);
    const field = p.field ?? p.name;
    rows = rows.filter((r) => (fieldText(r, field) ?? '').includes(want));
  }

  const filterField = params.filter_field as string | undefined;
  const filterValues = params.filter_values as string[] | undefined;
  if (filterField !== undefined && filterValues && filterValues.length > 0) {
    const exact = params.exact_match === 'true';
    const known = recordFields
      ? recordFields.includes(filterField)
      : rows.length === 0 || rows.some((r) => Object.prototype.hasOwnProperty.call(r, filterField));
    if (!known) {
      throw invalidParam(
        'filter_field',
        `invalid parameter 'filter_field': records of this list have no field ${JSON.stringify(filterField)}`,
      );
    }
    rows = rows.filter((r) => {
      const v = fieldText(r, filterField);
      if (v === undefined) return false;
      return filterValues.some((want) => (exact ? v === want : v.includes(want)));
    });
  }

  const total = spec.totalCount === 'scope' ? scopeTotal : rows.length;
  if (spec.sampleLimit !== undefined && rows.length > spec.sampleLimit) rows = rows.slice(0, spec.sampleLimit);

  const sortField = sortFieldOf(params, spec);
  if (sortField !== undefined) {
    const dir = isDescending(params) ? -1 : 1;
    // Array.prototype.sort is stable, so ties keep the base order.
    rows = rows.slice().sort((a, b) => dir * compareValues(fieldOf(a, sortField), fieldOf(b, sortField)));
  }

  const limitParam = params.limit as number | undefined;
  const limit = limitParam === undefined || limitParam === 0 ? spec.defaultLimit : limitParam;
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  const start = (page - 1) * limit;
  return { data: rows.slice(start, start + limit), total_count: total };
}

/**
 * The field a list is sorted by: `sort_field` when the list allows it. Another field is ignored and
 * the records keep the order they have without one (decision.unknown-sort-field-ignored, as the real
 * server's stable sort over missing keys does); the spec lists the fields but never says others are refused.
 */
function sortFieldOf(params: Record<string, unknown>, spec: ListSpec): string | undefined {
  const field = params.sort_field;
  return typeof field === 'string' && spec.sortFields.includes(field) ? field : undefined;
}

/**
 * Descending unless `sort_by` is absent or exactly `asc`: `desc` as the spec lists it, and any other
 * value as the real server reads it (decision.unknown-sort-by-desc). Absent is ascending
 * (decision.sort-by-default-asc).
 */
function isDescending(params: Record<string, unknown>): boolean {
  return params.sort_by !== undefined && params.sort_by !== 'asc';
}

/**
 * Positions of the descending order of an index sorted ascending by `key` (ties in base order): the
 * groups of equal keys from the last to the first, each group still in base order (what a stable
 * sort by the reversed comparison gives). Yields index positions from descending position `from` on.
 */
function* descendingPositions<R>(index: OrderedIndex<R>, key: (r: R) => unknown, from: number): Generator<number> {
  const n = index.size;
  let pos = from;
  while (pos < n) {
    const anchor = key(index.at(n - 1 - pos)!);
    const lo = index.partitionPoint((r) => compareValues(key(r), anchor) < 0);
    const hi = index.partitionPoint((r) => compareValues(key(r), anchor) <= 0);
    // The group [lo, hi) holds descending positions [n - hi, n - lo).
    for (let i = lo + (pos - (n - hi)); i < hi; i++, pos++) yield i;
  }
}

/**
 * Calls `visit` with every record in the descending order of `descendingPositions`, in one backward
 * pass (linear): each group of equal keys is held until its key changes, then given in base order.
 * A callback, not a generator: a scan visits every record, and resuming a generator per record cost
 * more than the tests it runs.
 */
function forEachDescending<R>(index: OrderedIndex<R>, key: (r: R) => unknown, visit: (r: R) => void): void {
  const group: R[] = [];
  let held = 0;
  let groupKey: unknown;
  index.forEachReversed((r) => {
    const k = key(r);
    if (held > 0 && compareValues(k, groupKey) !== 0) {
      for (let i = held - 1; i >= 0; i--) visit(group[i]);
      held = 0;
    }
    group[held++] = r;
    groupKey = k;
  });
  for (let i = held - 1; i >= 0; i--) visit(group[i]);
}

/**
 * applyListQuery over an IndexedList, with the same results: without filters the page is read by
 * position from the index of the order asked for (no sort, no scan); with filters the records are
 * scanned once in that order (linear), counting the matches and keeping the page's.
 */
function applyIndexedListQuery<R, T extends object>(
  list: IndexedList<R, T>,
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields: readonly string[],
): Page<T> {
  const src = list.source;
  const tests: ((r: R) => boolean)[] = [];
  if (src.where) tests.push(src.where);
  const named = namedParams.filter((p) => p.match && params[p.name] !== undefined);
  const sortField = sortFieldOf(params, spec);
  if (spec.sampleLimit !== undefined || spec.totalCount === 'scope') {
    return applySampledQuery(list, params, named, spec, recordFields, sortField);
  }
  const askedDescending = sortField !== undefined && isDescending(params);
  // A descending index reads a descending page by position, like an ascending one.
  const descendingIndex = askedDescending ? src.sortedDescending?.[sortField!] : undefined;
  const index = sortField === undefined ? src.base : (descendingIndex ?? src.sorted[sortField]);
  const descending = askedDescending && descendingIndex === undefined;
  // An exact filter on the field the index is ordered by first (ascending reads): only its range can
  // match, so it is applied as that range rather than tested record by record.
  const leading = index === undefined || descending ? undefined : src.leadingField?.get(index);
  const exactOnLeading = leading === undefined ? undefined : named.find((p) => p.match === 'exact' && (p.field ?? p.name) === leading);
  for (const p of [...named.filter((n) => n.match === 'exact'), ...named.filter((n) => n.match === 'fuzzy')]) {
    if (p === exactOnLeading) continue;
    const want = String(params[p.name]);
    const field = p.field ?? p.name;
    tests.push(
      p.match === 'exact' ? (r) => valueText(src.field(r, field)) === want : (r) => (valueText(src.field(r, field)) ?? '').includes(want),
    );
  }
  const fieldTest = filterFieldTest(src, params, recordFields);
  if (fieldTest) tests.push(fieldTest);
  const { start, limit } = pageOf(params, spec);

  if (index === undefined) {
    // No index for this sort field: the general path (filter, stable sort, slice).
    return applyListQuery(list.toArray(), params, namedParams, spec, recordFields);
  }
  const key = (r: R): unknown => src.field(r, sortField!);
  const view = (r: R): T => src.view(r);

  let from = 0;
  let to = index.size;
  if (leading !== undefined && exactOnLeading) {
    const want = String(params[exactOnLeading.name]);
    const text = (r: R): string => String(src.field(r, leading));
    from = index.partitionPoint((r) => text(r) < want);
    to = index.partitionPoint((r) => text(r) <= want);
  }

  if (tests.length === 0) {
    // Nothing left to test record by record: the page is read by position.
    const total = to - from;
    const end = Math.min(total, start + limit);
    if (start >= end) return { data: [], total_count: total };
    if (!descending) return { data: index.slice(from + start, from + end).map(view), total_count: total };
    const data: T[] = [];
    for (const i of descendingPositions(index, key, start)) {
      if (data.length === end - start) break;
      data.push(view(index.at(i)!));
    }
    return { data, total_count: total };
  }

  // The records matching these filters, in this order, may be kept from an earlier request (the
  // index clears them on any write): the page is then read by position.
  const cache = src.matches;
  // Keyed by the direction asked for, not by how the index is walked: with a descending index both
  // directions walk forward, through different indexes.
  const cacheKey = cache
    ? JSON.stringify([
        sortField ?? null,
        askedDescending,
        from,
        to,
        named.map((p) => [p.name, String(params[p.name])]),
        fieldTest ? [params.filter_field, params.filter_values, params.exact_match === 'true'] : null,
      ])
    : '';
  const kept = cache?.get(cacheKey);
  if (kept) return { data: kept.slice(start, start + limit).map(view), total_count: kept.length };

  const data: T[] = [];
  let total = 0;
  const matching: R[] | undefined = cache ? [] : undefined;
  const visit = (r: R): void => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](r)) return;
    if (total >= start && total < start + limit) data.push(view(r));
    matching?.push(r);
    total++;
  };
  if (matching) {
    if (descending) forEachDescending(index, key, visit);
    else index.forEach(visit, from, to);
    cache!.set(cacheKey, matching);
    return { data, total_count: total };
  }
  if (descending) {
    forEachDescending(index, key, visit);
    return { data, total_count: total };
  }
  index.forEach(visit, from, to);
  return { data, total_count: total };
}

/** The `filter_field`/`filter_values`/`exact_match` test on records of an indexed list, if asked for. */
function filterFieldTest<R>(
  src: IndexedListSource<R, unknown>,
  params: Record<string, unknown>,
  recordFields: readonly string[],
): ((r: R) => boolean) | undefined {
  const filterField = params.filter_field as string | undefined;
  const filterValues = params.filter_values as string[] | undefined;
  if (filterField === undefined || !filterValues || filterValues.length === 0) return undefined;
  if (!recordFields.includes(filterField)) {
    throw invalidParam(
      'filter_field',
      `invalid parameter 'filter_field': records of this list have no field ${JSON.stringify(filterField)}`,
    );
  }
  const exact = params.exact_match === 'true';
  // Called for every record of a scan: a plain loop, no closure made per record.
  const n = filterValues.length;
  return (r) => {
    const v = valueText(src.field(r, filterField));
    if (v === undefined) return false;
    for (let i = 0; i < n; i++) if (exact ? v === filterValues[i] : v.includes(filterValues[i])) return true;
    return false;
  };
}

/** First record position and size of the page asked for (limit 0 or absent: the list's default). */
function pageOf(params: Record<string, unknown>, spec: ListSpec): { start: number; limit: number } {
  const limitParam = params.limit as number | undefined;
  const limit = limitParam === undefined || limitParam === 0 ? spec.defaultLimit : limitParam;
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  return { start: (page - 1) * limit, limit };
}

/**
 * The sampled lists (clients, sessions: at most `sampleLimit` records, `total_count` of the scope)
 * over an IndexedList, with applyListQuery's results: one scan in base order counts the totals and
 * keeps the first `sampleLimit` matches; only that sample is sorted and paged.
 */
function applySampledQuery<R, T>(
  list: IndexedList<R, T>,
  params: Record<string, unknown>,
  named: readonly ParamSpec[],
  spec: ListSpec,
  recordFields: readonly string[],
  sortField: string | undefined,
): Page<T> {
  const src = list.source;
  const textTest = (p: ParamSpec): ((r: R) => boolean) => {
    const want = String(params[p.name]);
    const field = p.field ?? p.name;
    return p.match === 'exact'
      ? (r) => valueText(src.field(r, field)) === want
      : (r) => (valueText(src.field(r, field)) ?? '').includes(want);
  };
  const scopeTests = named.filter((p) => p.match === 'exact').map(textTest);
  if (src.where) scopeTests.unshift(src.where);
  const otherTests = named.filter((p) => p.match === 'fuzzy').map(textTest);
  const fieldTest = filterFieldTest(src, params, recordFields);
  if (fieldTest) otherTests.push(fieldTest);
  const sampleLimit = spec.sampleLimit ?? Infinity;
  const sample: R[] = [];
  let scopeTotal = 0;
  let matching = 0;
  src.base.forEach((r) => {
    for (let i = 0; i < scopeTests.length; i++) if (!scopeTests[i](r)) return;
    scopeTotal++;
    for (let i = 0; i < otherTests.length; i++) if (!otherTests[i](r)) return;
    if (matching++ < sampleLimit) sample.push(r);
  });
  if (sortField !== undefined) {
    const dir = isDescending(params) ? -1 : 1;
    // Array.prototype.sort is stable, so ties keep the base order.
    sample.sort((a, b) => dir * compareValues(src.field(a, sortField), src.field(b, sortField)));
  }
  const { start, limit } = pageOf(params, spec);
  return {
    data: sample.slice(start, start + limit).map((r) => src.view(r)),
    total_count: spec.totalCount === 'scope' ? scopeTotal : matching,
  };
}
