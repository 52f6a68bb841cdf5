import { pagedAssertion } from '../../conform/cite.ts';
import type { Answer } from '../core/property-client.ts';
import { sortKey, type PageAnswer, type PageProblem } from '../reference-model/list-page.ts';
import type { QuerySpec } from './history-steps.ts';
import type { HistoryFamily } from './list-families.ts';

/**
 * The statement a wrong page breaks, from the first thing wrong with it (and, for an order, whether
 * the paging or the sort is at fault): the same statements the list laws cite for those rules, so a
 * bug both see is one finding.
 */

/** `data` of a page answer: its rows and total_count, or undefined when it is no page. */
export function parsePage(answer: Answer): PageAnswer | undefined {
  if (answer.outcome !== 'ok') return undefined;
  const data = answer.envelope?.data as { data?: unknown; total_count?: unknown } | undefined;
  if (!data || typeof data !== 'object' || !Array.isArray(data.data) || typeof data.total_count !== 'number') return undefined;
  const rows = data.data.map((r) =>
    r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r },
  );
  return { rows, total: data.total_count };
}

/** Are the page's own sort keys in the direction asked for (equal keys in any order)? */
export function inOrder(page: PageAnswer, sort: NonNullable<QuerySpec['sort']>): boolean {
  const keys = page.rows.map((r) => sortKey(r[sort.field] === undefined || r[sort.field] === null ? '' : String(r[sort.field])));
  return keys.every((k, i) => i === 0 || (sort.by === 'asc' ? keys[i - 1] <= k : keys[i - 1] >= k));
}

/**
 * The assertion and rule of a page's cause. `paging`: the same query as one page was right, so an
 * order problem is the page's slice, not the sort.
 */
export function citationOf(h: HistoryFamily, q: QuerySpec, cause: PageProblem, paging: boolean): { assertion: string; rule: string } {
  const e = h.endpoints.list;
  switch (cause.kind) {
    case 'unknown-record':
    case 'missing-record':
    case 'values':
      return { assertion: h.family.manages, rule: 'list.records' };
    case 'filter':
      return { assertion: h.filters.find((f) => f.param === cause.param)!.assertion, rule: 'list.filter' };
    case 'total':
      return { assertion: pagedAssertion(e, 'total'), rule: 'list.total-count' };
    case 'order':
      return paging
        ? { assertion: pagedAssertion(e, 'data'), rule: 'list.page-slice' }
        : { assertion: h.sortFields.find((x) => x.field === q.sort!.field)!.assertion, rule: 'list.sort' };
    default:
      return { assertion: pagedAssertion(e, 'data'), rule: 'list.page' };
  }
}

/** A valid list request refused or not answered: the statement that allows it (its sort field's, else its first filter's). */
export function refusalCitation(h: HistoryFamily, q: QuerySpec): string {
  return q.sort ? h.sortFields.find((x) => x.field === q.sort!.field)!.assertion : h.filters.find((f) => f.param in q.filters)!.assertion;
}
