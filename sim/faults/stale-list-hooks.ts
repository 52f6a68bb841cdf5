/**
 * The hooks of the list faults that show only after some histories: each keeps its own copy of what
 * a list answered or where records stand, as a fast path of a real server would, and goes wrong the
 * way such a copy does (kept for a key that misses a parameter, not updated by one kind of write).
 * They act only through `around`, on the endpoints whose ids they name.
 */
import { compareValues } from '../model/api/compare-values.ts';
import type { DeviationHooks } from '../admin-api/hooks/deviation.ts';
import { endpointById } from '../admin-api/hooks/hook-helpers.ts';

type Row = Record<string, unknown>;
type Around = NonNullable<DeviationHooks['around']>;
type Page = { data: Row[]; total_count: number };

/** Every record matching the query's filters, sorted as asked, on one page. */
const ALL = { limit: 1_000_000, page: 1 };

/** The requested page of `rows` (the list's default limit when none is given). */
function pageOfRows(rows: readonly Row[], params: Record<string, unknown>, defaultLimit: number): Page {
  const limit = Number(params.limit) || defaultLimit;
  const page = Math.max(1, Number(params.page) || 1);
  return { data: rows.slice((page - 1) * limit, page * limit), total_count: rows.length };
}

function sortRows(rows: Row[], field: string, descending: boolean, keyOf: (r: Row) => unknown = (r) => r[field]): Row[] {
  const dir = descending ? -1 : 1;
  return rows.sort((a, b) => dir * compareValues(keyOf(a), keyOf(b)));
}

const isDescending = (params: Record<string, unknown>) => params.sort_by !== undefined && params.sort_by !== 'asc';

/**
 * Sorted matches of a filtered query, kept until a write of the list's records, keyed by the filter
 * and the sort field but not the direction: the first direction asked is answered to every later
 * query of the same filter.
 */
export function keptFilteredAnswers(listId: string, filterParam: string, writeIds: readonly string[]): Around {
  const list = endpointById(listId);
  for (const id of writeIds) endpointById(id);
  const kept = new Map<string, Row[]>();
  return async (params, next, cx) => {
    if (writeIds.includes(cx.endpoint.id)) {
      kept.clear();
      return next(params);
    }
    if (cx.endpoint.id !== listId || params[filterParam] === undefined || params.sort_field === undefined) return next(params);
    const key = JSON.stringify([params[filterParam], params.sort_field]);
    let rows = kept.get(key);
    if (!rows) {
      rows = ((await next({ ...params, ...ALL })) as Page).data;
      kept.set(key, rows);
    }
    return pageOfRows(rows, params, list.list!.defaultLimit);
  };
}

/**
 * A sort index of its own, with each record's sort keys taken when the record is first created: a
 * create that replaces a record (an upsert) leaves it where its old keys put it, though the record
 * shows the new values. A delete takes the record out of the index.
 */
export function sortIndexKeptOnUpsert(listId: string, createId: string, deleteId: string, identity: readonly string[]): Around {
  const list = endpointById(listId);
  endpointById(createId);
  endpointById(deleteId);
  const fields = list.list!.sortFields;
  const keys = new Map<string, Row>();
  const keyOf = (r: Row) => JSON.stringify(identity.map((f) => r[f]));
  return async (params, next, cx) => {
    if (cx.endpoint.id === createId) {
      const answer = await next(params);
      if (!keys.has(keyOf(params))) keys.set(keyOf(params), Object.fromEntries(fields.map((f) => [f, params[f]])));
      return answer;
    }
    if (cx.endpoint.id === deleteId) {
      const answer = await next(params);
      keys.delete(keyOf(params));
      return answer;
    }
    const field = params.sort_field;
    if (cx.endpoint.id !== listId || typeof field !== 'string' || !fields.includes(field)) return next(params);
    const { sort_field: _f, sort_by: _b, ...unsorted } = params;
    const rows = ((await next({ ...unsorted, ...ALL })) as Page).data;
    // Records the index never saw (made before the switch was on) sort by their own values.
    sortRows(rows, field, isDescending(params), (r) => (keys.get(keyOf(r)) ?? r)[field]);
    return pageOfRows(rows, params, list.list!.defaultLimit);
  };
}

/**
 * A search index of its own for the name filter, fed by creates and not told of deletes: a deleted
 * record keeps turning up in answers filtered by name (not in the others), until it is created again.
 */
export function searchIndexMissesDeletes(
  listId: string,
  createId: string,
  deleteId: string,
  filterParam: string,
  snapshot: (params: Record<string, unknown>, cx: Parameters<Around>[2]) => Row | undefined,
): Around {
  const list = endpointById(listId);
  endpointById(createId);
  endpointById(deleteId);
  const filter = list.params.find((p) => p.name === filterParam)!;
  const field = filter.field ?? filter.name;
  const scopes = list.params.filter((p) => p.match === 'exact');
  const stale = new Map<string, Row>();
  const keyOf = (r: Row) => JSON.stringify([...scopes.map((p) => r[p.field ?? p.name]), r[field]]);
  return async (params, next, cx) => {
    if (cx.endpoint.id === createId) {
      const answer = await next(params);
      const row = snapshot(params, cx);
      if (row) stale.delete(keyOf(row));
      return answer;
    }
    if (cx.endpoint.id === deleteId) {
      const row = snapshot(params, cx);
      const answer = await next(params);
      if (row) stale.set(keyOf(row), row);
      return answer;
    }
    const want = params[filterParam];
    if (cx.endpoint.id !== listId || typeof want !== 'string') return next(params);
    const rows = ((await next({ ...params, ...ALL })) as Page).data;
    const shown = new Set(rows.map(keyOf));
    for (const [key, row] of stale) {
      const inScope = scopes.every((p) => params[p.name] === undefined || row[p.field ?? p.name] === params[p.name]);
      if (!shown.has(key) && inScope && String(row[field]).includes(want)) rows.push(row);
    }
    const sortField = params.sort_field;
    if (typeof sortField === 'string' && list.list!.sortFields.includes(sortField)) sortRows(rows, sortField, isDescending(params));
    return pageOfRows(rows, params, list.list!.defaultLimit);
  };
}

/** `total_count` counted after the exact (tenant) filters but before the contains filters. */
export function totalBeforeContainsFilters(listId: string): Around {
  const list = endpointById(listId);
  const contains = list.params.filter((p) => p.match === 'fuzzy' && p.name !== 'tenant').map((p) => p.name);
  return async (params, next, cx) => {
    if (cx.endpoint.id !== listId || !contains.some((p) => params[p] !== undefined)) return next(params);
    const page = (await next(params)) as Page;
    const unfiltered = Object.fromEntries(Object.entries(params).filter(([k]) => !contains.includes(k)));
    const counted = (await next({ ...unfiltered, limit: 1, page: 1 })) as Page;
    return { ...page, total_count: counted.total_count };
  };
}

/** The page is cut from the unsorted list, then sorted: each page is in order, but not the slice of the sorted list asked for. */
export function pageCutBeforeSort(listId: string): Around {
  endpointById(listId);
  return async (params, next, cx) => {
    const field = params.sort_field;
    if (cx.endpoint.id !== listId || typeof field !== 'string') return next(params);
    const { sort_field: _f, sort_by: _b, ...unsorted } = params;
    const page = (await next(unsorted)) as Page;
    return { ...page, data: sortRows([...page.data], field, isDescending(params)) };
  };
}
