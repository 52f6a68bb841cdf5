import type { ListSpec, ParamSpec } from '../../../contract/core/types.ts';
import { compareValues, valueText } from './compare-values.ts';
import { invalidParam } from '../errors/operation-error.ts';

/** The `data` of a paged list response. */
export interface Page<T> {
  data: T[];
  total_count: number;
}

/**
 * THE reference answer of a list endpoint: the obvious computation over the list's full record set,
 * in the order the spec implies, with nothing kept between requests:
 *
 * 1. named filters (the contract's `match`): `exact` ones first (equality of the field's text), then
 *    `fuzzy` ones (the field's text contains the value, case-sensitive);
 * 2. `filter_field`/`filter_values`/`exact_match`: a record matches when any value equals
 *    (`exact_match=true`) or is contained in (otherwise) the field's text; a field the records do not
 *    have is refused (400);
 * 3. `total_count`: every record that passed the filters, or for a `scope` list (the client list)
 *    every record that passed the exact ones;
 * 4. sampling (`sampleLimit`: the client and session lists): the first records in base order;
 * 5. a stable sort by `sort_field` when the list has that sort field (ties keep the base order),
 *    ascending when `sort_by` is absent or exactly `asc`, descending otherwise;
 * 6. the page: `limit` records (0 or absent: the list's default) from `(page - 1) * limit` (page 0 is 1).
 *
 * `records` is the whole list in its base order (its order without `sort_field`). Every fast path
 * (sim/model/api/indexed-list-query.ts: maintained sorted and descending indexes, leading-field ranges, kept
 * matches of filtered queries; sim/admin-api: the response cache and remembered list requests) must answer exactly
 * this: the differential test (sim/admin-api/list-differential) compares them byte for byte after long
 * random histories. So this module shares no code with them beyond how two field values compare and
 * read as text (compare-values.ts): it reads the parameters itself, and keeps to the plainest
 * form of each step. Keep it so: a faster reference is a second fast path nothing checks.
 */
export function referenceListPage<T extends object>(
  records: readonly T[],
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields?: readonly string[],
): Page<T> {
  let rows: readonly T[] = records;

  const named = namedParams.filter((p) => p.match !== undefined && params[p.name] !== undefined);
  for (const p of named.filter((n) => n.match === 'exact')) {
    const want = String(params[p.name]);
    rows = rows.filter((r) => textOf(r, p.field ?? p.name) === want);
  }
  const scopeTotal = rows.length;
  for (const p of named.filter((n) => n.match === 'fuzzy')) {
    const want = String(params[p.name]);
    rows = rows.filter((r) => (textOf(r, p.field ?? p.name) ?? '').includes(want));
  }

  const filterField = params.filter_field as string | undefined;
  const filterValues = params.filter_values as string[] | undefined;
  if (filterField !== undefined && filterValues !== undefined && filterValues.length > 0) {
    const known = recordFields
      ? recordFields.includes(filterField)
      : rows.length === 0 || rows.some((r) => Object.prototype.hasOwnProperty.call(r, filterField));
    if (!known) {
      throw invalidParam(
        'filter_field',
        `invalid parameter 'filter_field': records of this list have no field ${JSON.stringify(filterField)}`,
      );
    }
    const exact = params.exact_match === 'true';
    rows = rows.filter((r) => {
      const text = textOf(r, filterField);
      return text !== undefined && filterValues.some((want) => (exact ? text === want : text.includes(want)));
    });
  }

  const total = spec.totalCount === 'scope' ? scopeTotal : rows.length;
  if (spec.sampleLimit !== undefined) rows = rows.slice(0, spec.sampleLimit);

  // A sort field the list does not have is ignored (decision.unknown-sort-field-ignored).
  const sortField = typeof params.sort_field === 'string' && spec.sortFields.includes(params.sort_field) ? params.sort_field : undefined;
  if (sortField !== undefined) {
    // Absent or exactly `asc` is ascending; `desc` and any other value descending (decisions
    // sort-by-default-asc, unknown-sort-by-desc). Array.prototype.sort is stable.
    const direction = params.sort_by === undefined || params.sort_by === 'asc' ? 1 : -1;
    rows = [...rows].sort((a, b) => direction * compareValues(fieldOf(a, sortField), fieldOf(b, sortField)));
  }

  const asked = params.limit as number | undefined;
  const limit = asked === undefined || asked === 0 ? spec.defaultLimit : asked;
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  const start = (page - 1) * limit;
  return { data: rows.slice(start, start + limit), total_count: total };
}

/** A record's field by name: the query names fields at run time (the contract's list parameters). */
function fieldOf(row: object, field: string): unknown {
  return Reflect.get(row, field);
}

function textOf(row: object, field: string): string | undefined {
  return valueText(fieldOf(row, field));
}
