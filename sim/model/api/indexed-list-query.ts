import type { ListSpec, ParamSpec } from '../../../contract/core/types.ts';
import type { IndexedList, IndexedListSource, OrderedIndex } from './indexed-list.ts';
import { compareValues, valueText } from './compare-values.ts';
import { listFaultOn } from './list-faults.ts';
import type { Page } from './list-reference.ts';
import { invalidParam } from '../errors/operation-error.ts';

/**
 * The fast path of a list query: the page of an IndexedList read from its maintained indexes. It
 * must answer exactly what the reference (list-reference.ts) answers over the list's records, and
 * shares no code with it beyond compare-values.ts (the differential test, sim/admin-api/list-differential,
 * compares them): without filters the page is read by position from the index of the order asked
 * for (no sort, no scan); with filters the records are scanned once in that order (linear), counting
 * the matches and keeping the page's, and the matches may be kept until the next write.
 *
 * Undefined when the list has no index for the sort field asked for: the caller then answers with
 * the reference.
 */
export function indexedListPage<R, T extends object>(
  list: IndexedList<R, T>,
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields: readonly string[],
): Page<T> | undefined {
  const src = list.source;
  const named = namedParams.filter((p) => p.match && params[p.name] !== undefined);
  const sortField = sortFieldOf(params, spec);
  if (spec.sampleLimit !== undefined || spec.totalCount === 'scope') {
    return sampledPage(list, params, named, spec, recordFields, sortField);
  }
  const askedDescending = sortField !== undefined && isDescending(params);
  // A descending index reads a descending page by position, like an ascending one.
  const descendingIndex = askedDescending ? src.sortedDescending?.[sortField!] : undefined;
  const index = sortField === undefined ? src.base : (descendingIndex ?? src.sorted[sortField]);
  if (index === undefined) return undefined;
  const descending = askedDescending && descendingIndex === undefined;
  const fieldTest = filterFieldTest(src, params, recordFields);
  const { start, limit } = pageOf(params, spec);
  if (sortField !== undefined && listFaultOn('page-before-sort')) {
    return pageCutBeforeSort(
      src,
      [...namedTests(src, named, params), ...(fieldTest ? [fieldTest] : [])],
      sortField,
      askedDescending,
      start,
      limit,
    );
  }
  // An exact filter on the field the index is ordered by first (ascending reads): only its range can
  // match, so it is applied as that range rather than tested record by record.
  const leading = descending ? undefined : src.leadingField?.get(index);
  const exactOnLeading = leading === undefined ? undefined : named.find((p) => p.match === 'exact' && (p.field ?? p.name) === leading);
  const tests = namedTests(
    src,
    named.filter((p) => p !== exactOnLeading),
    params,
  );
  if (fieldTest) tests.push(fieldTest);
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
  // A seeded fault: the count of the records before the filters.
  const totalOf = (matching: number): number => (listFaultOn('total-before-filter') ? to - from : matching);

  // Nothing left to test record by record: the page is read by position.
  if (tests.length === 0) return positionalPage(index, { from, to }, { start, limit }, descending, key, view);

  // The records matching these filters, in this order, may be kept from an earlier request (the
  // index clears them on any write): the page is then read by position.
  const cache = src.matches;
  // Keyed by the direction asked for, not by how the index is walked: with a descending index both
  // directions walk forward, through different indexes (the seeded fault keys by the walk).
  const directionKey = listFaultOn('sort-direction-remembered') ? descending : askedDescending;
  // The range is part of the key only when a leading exact filter chose it: the whole index's range
  // changes only with a write, which drops every kept match.
  const cacheKey = cache
    ? JSON.stringify([
        sortField ?? null,
        directionKey,
        exactOnLeading ? [from, to] : null,
        named.map((p) => [p.name, String(params[p.name])]),
        fieldTest ? [params.filter_field, params.filter_values, params.exact_match === 'true'] : null,
      ])
    : '';
  const kept = cache?.get(cacheKey);
  if (kept) return { data: kept.slice(start, start + limit).map(view), total_count: totalOf(kept.length) };

  const data: T[] = [];
  let total = 0;
  const matching: R[] | undefined = cache ? [] : undefined;
  const visit = (r: R): void => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](r)) return;
    if (total >= start && total < start + limit) data.push(view(r));
    matching?.push(r);
    total++;
  };
  if (descending) forEachDescending(index, key, visit);
  else index.forEach(visit, from, to);
  if (matching) cache!.set(cacheKey, matching);
  return { data, total_count: totalOf(total) };
}

/** The page of the records in positions [from, to) of `index`, read by position (nothing left to test). */
function positionalPage<R, T>(
  index: OrderedIndex<R>,
  { from, to }: { from: number; to: number },
  { start, limit }: { start: number; limit: number },
  descending: boolean,
  key: (r: R) => unknown,
  view: (r: R) => T,
): Page<T> {
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

/**
 * The field a list is sorted by: `sort_field` when the list allows it; another field is ignored
 * (decision.unknown-sort-field-ignored).
 */
function sortFieldOf(params: Record<string, unknown>, spec: ListSpec): string | undefined {
  const field = params.sort_field;
  return typeof field === 'string' && spec.sortFields.includes(field) ? field : undefined;
}

/** Descending unless `sort_by` is absent or exactly `asc` (decisions unknown-sort-by-desc, sort-by-default-asc). */
function isDescending(params: Record<string, unknown>): boolean {
  return params.sort_by !== undefined && params.sort_by !== 'asc';
}

/** First record position and size of the page asked for (limit 0 or absent: the list's default). */
function pageOf(params: Record<string, unknown>, spec: ListSpec): { start: number; limit: number } {
  const limitParam = params.limit as number | undefined;
  const limit = limitParam === undefined || limitParam === 0 ? spec.defaultLimit : limitParam;
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  return { start: (page - 1) * limit, limit };
}

/** Tests of the list's own filter (`where`) and of the named filters, exact ones first. */
function namedTests<R>(
  src: IndexedListSource<R, unknown>,
  named: readonly ParamSpec[],
  params: Record<string, unknown>,
): ((r: R) => boolean)[] {
  const tests: ((r: R) => boolean)[] = src.where ? [src.where] : [];
  for (const p of [...named.filter((n) => n.match === 'exact'), ...named.filter((n) => n.match === 'fuzzy')])
    tests.push(namedTest(src, p, params));
  return tests;
}

function namedTest<R>(src: IndexedListSource<R, unknown>, p: ParamSpec, params: Record<string, unknown>): (r: R) => boolean {
  const want = String(params[p.name]);
  const field = p.field ?? p.name;
  return p.match === 'exact'
    ? (r) => valueText(src.field(r, field)) === want
    : (r) => (valueText(src.field(r, field)) ?? '').includes(want);
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

/**
 * The sampled lists (clients, sessions: at most `sampleLimit` records, `total_count` of the scope)
 * over an IndexedList: one scan in base order counts the totals and keeps the first `sampleLimit`
 * matches; only that sample is sorted and paged.
 */
function sampledPage<R, T>(
  list: IndexedList<R, T>,
  params: Record<string, unknown>,
  named: readonly ParamSpec[],
  spec: ListSpec,
  recordFields: readonly string[],
  sortField: string | undefined,
): Page<T> {
  const src = list.source;
  const scopeTests = namedTests(
    src,
    named.filter((p) => p.match === 'exact'),
    params,
  );
  const otherTests = named.filter((p) => p.match === 'fuzzy').map((p) => namedTest(src, p, params));
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

/** The seeded fault page-before-sort (list-faults.ts): the page is cut from the matches in base order, then sorted. */
function pageCutBeforeSort<R, T>(
  src: IndexedListSource<R, T>,
  tests: readonly ((r: R) => boolean)[],
  sortField: string,
  descending: boolean,
  start: number,
  limit: number,
): Page<T> {
  const matching: R[] = [];
  src.base.forEach((r) => {
    if (tests.every((t) => t(r))) matching.push(r);
  });
  const dir = descending ? -1 : 1;
  const page = matching.slice(start, start + limit).sort((a, b) => dir * compareValues(src.field(a, sortField), src.field(b, sortField)));
  return { data: page.map((r) => src.view(r)), total_count: matching.length };
}
