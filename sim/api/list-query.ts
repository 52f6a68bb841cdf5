import type { ListSpec, ParamSpec } from '../../fixtures/contract/types.ts';
import { invalidParam } from './operation-error.ts';

/** The `data` of a paged list response. */
export interface Page<T> {
  data: T[];
  total_count: number;
}

type Row = Record<string, unknown>;

function fieldText(row: Row, field: string): string | undefined {
  const v = row[field];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'object' ? JSON.stringify(a) : String(a);
  const sb = typeof b === 'object' ? JSON.stringify(b) : String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * Applies a list endpoint's parameters to the full record set, in the order the spec implies:
 * named filters (exact or fuzzy, per parameter) → `filter_field`/`filter_values` → sampling →
 * sort → page. `total_count` counts every matching record (or the tenant/cluster scope for the
 * client list), never only the page.
 */
export function applyListQuery<T extends object>(
  records: readonly T[],
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields?: readonly string[],
): Page<T> {
  let rows = records as unknown as Row[];

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
    const known = recordFields ? recordFields.includes(filterField) : rows.length === 0 || rows.some((r) => Object.prototype.hasOwnProperty.call(r, filterField));
    if (!known) {
      throw invalidParam('filter_field', `invalid parameter 'filter_field': records of this list have no field ${JSON.stringify(filterField)}`);
    }
    rows = rows.filter((r) => {
      const v = fieldText(r, filterField);
      if (v === undefined) return false;
      return filterValues.some((want) => (exact ? v === want : v.includes(want)));
    });
  }

  const total = spec.totalCount === 'scope' ? scopeTotal : rows.length;
  if (spec.sampleLimit !== undefined && rows.length > spec.sampleLimit) rows = rows.slice(0, spec.sampleLimit);

  const sortField = params.sort_field as string | undefined;
  if (sortField !== undefined) {
    if (!spec.sortFields.includes(sortField)) {
      throw invalidParam(
        'sort_field',
        `invalid parameter 'sort_field': ${JSON.stringify(sortField)} is not sortable here; allowed: ${spec.sortFields.join(', ') || '(none)'}`,
      );
    }
    const dir = params.sort_by === 'desc' ? -1 : 1;
    // Array.prototype.sort is stable, so ties keep the base order.
    rows = rows.slice().sort((a, b) => dir * compareValues(a[sortField], b[sortField]));
  }

  const limitParam = params.limit as number | undefined;
  const limit = limitParam === undefined || limitParam === 0 ? spec.defaultLimit : limitParam;
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  const start = (page - 1) * limit;
  return { data: rows.slice(start, start + limit) as unknown as T[], total_count: total };
}
