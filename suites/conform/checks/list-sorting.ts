import type { EndpointContract } from '../../../contract/core/types.ts';
import { A, cite, sortAssertion } from '../cite.ts';
import { type ConformContext, describeAnswer, fail, inconclusive, pass, skip } from '../conform-context.ts';
import { fetchPage, isPage, type Page, refusedNaming, type Row, type SeenPages, settled, WHOLE, withAlso } from './list-pages.ts';

/**
 * Sorting laws of every list (spec: Common list parameters, each list's sort fields): sort_by=asc
 * orders and desc reverses by each sort field, and the project's decisions on an absent sort_by and
 * the base order of the lists it names.
 */

/** Is `desc` the reverse of `asc`, on the keys both hold, with runs of equal keys collapsed? */
export function reversedAfterIntersect(asc: string[], desc: string[]): boolean {
  const inBoth = new Set(asc.filter((k) => desc.includes(k)));
  const dedupe = (keys: string[]) => keys.filter((k) => inBoth.has(k)).filter((k, i, a) => i === 0 || a[i - 1] !== k);
  const a = dedupe(asc);
  const d = dedupe(desc);
  return JSON.stringify(a) === JSON.stringify([...d].reverse());
}

/**
 * Are the values in ascending order under some natural order? The spec names no collation: numbers
 * may be compared as numbers or as their text (a real server compares as text), strings by code point
 * or ignoring case. Values of mixed types are compared as text.
 */
function ascendingUnderSomeOrder(values: readonly unknown[]): boolean {
  const present = values.filter((v) => v !== undefined && v !== null);
  const orders: ((a: unknown, b: unknown) => number)[] = [
    (a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : NaN),
    (a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0),
    (a, b) => String(a).toLowerCase().localeCompare(String(b).toLowerCase()),
    (a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0),
  ];
  return orders.some((cmp) => present.every((v, i) => i === 0 || (!(cmp(present[i - 1], v) > 0) && !Number.isNaN(cmp(present[i - 1], v)))));
}

/** Lists whose order without sort_field the project fixes (decision.list.base-order), by the fields it goes by. */
const BASE_ORDER: Record<string, readonly string[]> = {
  'cluster.tenant.list': ['tenant_name'],
  'cluster.topic.list': ['tenant', 'topic_name'],
  'cluster.connector.list': ['tenant', 'connector_name'],
};

/** Are the rows in ascending order of the tuple of `fields`, by code point or ignoring case? */
function inTupleOrder(rows: readonly Row[], fields: readonly string[]): boolean {
  const cmps: ((a: string, b: string) => number)[] = [
    (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    (a, b) => a.toLowerCase().localeCompare(b.toLowerCase()),
  ];
  return cmps.some((cmp) =>
    rows.every((r, i) => {
      if (i === 0) return true;
      for (const f of fields) {
        const c = cmp(String(rows[i - 1][f] ?? ''), String(r[f] ?? ''));
        if (c !== 0) return c < 0;
      }
      return true;
    }),
  );
}

/** Each sort field: sort_by=asc orders the whole list by it, sort_by=desc reverses that order. */
export async function runSortLaws(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>, seen: SeenPages): Promise<void> {
  const list = e.list!;
  for (const field of list.sortFields) {
    const assertion = sortAssertion(e, field);
    // Evidence for the common parameters too: a server ignoring sort_field leaves asc unordered, one ignoring sort_by answers desc like asc.
    await ctx.check(e, `list.sort.${field}`, assertion, async () =>
      withAlso(
        await settled(async () => {
          // One page of every record: the order laws need the whole set.
          const limit = Math.max(list.defaultLimit, WHOLE);
          const asc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'asc', limit });
          // The spec lists the allowed sort fields per list: refusing one it does not list conforms (the decision says so).
          if (!isPage(asc) && assertion === A.decisionExtraSortFields && refusedNaming(asc, 'sort_field'))
            return skip(
              `${field} is not among the sort fields the spec lists for this list, and the server refuses it: ${describeAnswer(asc)}`,
            );
          if (!isPage(asc)) return fail(`sort_field=${field}&sort_by=asc was refused: ${describeAnswer(asc)}`, asc);
          if (field === list.sortFields[0]) seen.asc = asc;
          const desc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'desc', limit });
          if (!isPage(desc)) return fail(`sort_field=${field}&sort_by=desc was refused: ${describeAnswer(desc)}`, desc);
          if (asc.total > asc.rows.length && list.sampleLimit === undefined)
            return skip(`more than one page of records (${asc.total}); the order laws need the whole set`);
          const ascValues = asc.rows.map((r) => r[field]);
          const distinct = new Set(ascValues.map((v) => JSON.stringify(v))).size;
          if (distinct < 2) return inconclusive(`${asc.rows.length} records with ${distinct} distinct ${field}: any order is sorted`);
          if (!ascendingUnderSomeOrder(ascValues))
            return fail(
              `sort_by=asc does not order the records by ${field}: ${ascValues
                .slice(0, 8)
                .map((v) => JSON.stringify(v))
                .join(', ')}…`,
              asc.ex,
            );
          const key = (r: Row) => JSON.stringify(r[field]);
          if (!reversedAfterIntersect(asc.rows.map(key), desc.rows.map(key))) {
            return fail(
              `sort_by=desc is not the reverse of sort_by=asc on ${field}: asc ${asc.rows.map(key).slice(0, 6).join(',')}… desc ${desc.rows.map(key).slice(0, 6).join(',')}…`,
              desc.ex,
            );
          }
          return pass(`asc orders and desc reverses ${asc.rows.length} records by ${field} (${distinct} distinct keys)`);
        }),
        [A.listSortField, A.listSortBy],
      ),
    );
  }
}

/** Without sort_by the order is ascending (the project's decision where the spec is silent). */
export async function runSortDefault(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  seen: SeenPages,
): Promise<void> {
  const list = e.list!;
  const field = list.sortFields[0];
  if (!field) return;
  await ctx.check(e, 'list.sort_by.default', cite(e, 'default', 'sort_by'), async () =>
    settled(async () => {
      const limit = Math.max(list.defaultLimit, WHOLE);
      const implicit = await fetchPage(ctx, e, base, { sort_field: field, limit });
      if (!isPage(implicit)) return fail(`sort_field=${field} without sort_by was refused: ${describeAnswer(implicit)}`, implicit);
      const asc = seen.asc ?? (await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'asc', limit }));
      if (!isPage(asc))
        return skip(
          `sort_by=asc was refused (${describeAnswer(asc)}), so there is no ascending order to compare with (see list.sort.${field})`,
        );
      const key = (r: Row) => JSON.stringify(r[field]);
      const a = asc.rows.map(key);
      const got = implicit.rows.map(key);
      if (new Set(a).size < 2)
        return inconclusive(`${asc.rows.length} records with ${new Set(a).size} distinct ${field}: any direction gives the same order`);
      if (JSON.stringify(a) === JSON.stringify(got))
        return pass(`without sort_by the ${got.length} records are in ascending ${field} order, as with sort_by=asc`);
      return fail(
        `without sort_by the records are not in ascending ${field} order: ${got.slice(0, 6).join(',')}… (sort_by=asc: ${a.slice(0, 6).join(',')}…)`,
        implicit.ex,
      );
    }),
  );
}

/** The base order of the lists the project names (decision.list.base-order), without sort_field. */
export async function runBaseOrder(ctx: ConformContext, e: EndpointContract, first: Page): Promise<void> {
  const order = BASE_ORDER[e.id];
  if (!order) return;
  await ctx.check(e, 'list.base-order', 'decision.list.base-order', () => {
    const distinct = new Set(first.rows.map((r) => JSON.stringify(order.map((f) => r[f])))).size;
    if (!inTupleOrder(first.rows, order))
      return fail(
        `without sort_field the records are not ordered by ${order.join(' then ')}: ${first.rows
          .slice(0, 6)
          .map((r) => JSON.stringify(order.map((f) => r[f])))
          .join(', ')}…`,
        first.ex,
      );
    return pass(`without sort_field the ${first.rows.length} records are ordered by ${order.join(' then ')}`, undefined, distinct < 3);
  });
}
