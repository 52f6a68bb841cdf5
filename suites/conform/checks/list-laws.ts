import type { EndpointContract } from '../../../contract/types.ts';
import { A, cite, pagedAssertion, sortAssertion } from '../cite.ts';
import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  inconclusive,
  pass,
  refusedAsInvalid,
  skip,
  succeeded,
  type Verdict,
} from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';
import { pathWithQuery } from '../../targets/target.ts';
import { toQuery } from '../param-values.ts';
import { recordIdentity } from '../../../contract/family-rules.ts';
import type { ResourceFamilyContract } from '../../../contract/types.ts';
import { type CreatedResources, listingEndpoint } from '../resource-families.ts';

/**
 * Paging, sorting and filtering laws of every list (spec: Response envelope — paged list; Common list
 * parameters; each list's query parameters). Each check passes only on evidence a wrong server would
 * have failed: a filter needs records that do not match it, a sort two distinct keys, a default page
 * size more records than the sizes it must be told from; otherwise it is inconclusive.
 */

type Row = Record<string, unknown>;

interface Page {
  ex: Exchange;
  rows: Row[];
  total: number;
}

/** Fields that identify a record across requests (values that change, like counters, are left out). */
export const IDENTITY_FIELDS = [
  'tenant',
  'tenant_name',
  'name',
  'username',
  'client_id',
  'connection_id',
  'path',
  'connector_name',
  'topic_id',
  'topic_name',
  'mail_address',
  'schema_name',
  'resource_name',
  'data_type',
  'shard_name',
  'segment_seq',
  'node_id',
];

export function fingerprint(row: Row): string {
  const keys = IDENTITY_FIELDS.filter((k) => k in row);
  return JSON.stringify(keys.length > 0 ? keys.map((k) => row[k]) : row);
}

function pageOf(ex: Exchange): Page | undefined {
  if (!succeeded(ex)) return undefined;
  const data = envelopeOf(ex)?.data as { data?: unknown; total_count?: unknown } | undefined;
  if (!data || !Array.isArray(data.data) || typeof data.total_count !== 'number') return undefined;
  return { ex, rows: data.data as Row[], total: data.total_count };
}

async function fetchPage(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Promise<Page | Exchange> {
  const ex = await ctx.call(e, { ...base, ...extra });
  return pageOf(ex) ?? ex;
}

const isPage = (p: Page | Exchange): p is Page => 'rows' in p;

/** A verdict with further assertions its evidence decides (the engine keeps those of the check's level). */
const withAlso = (v: Verdict, also: readonly string[]): Verdict => ({ ...v, also: [...(v.also ?? []), ...also] });

/** A page size that holds every record of any list the run can make: the whole set on one page. */
const WHOLE = 10_000;

/** Runs a law twice before failing it: live targets change between two requests (clients come and go). */
async function settled(law: () => Promise<Verdict>): Promise<Verdict> {
  const first = await law();
  if (first.status !== 'fail') return first;
  const second = await law();
  return second.status === 'fail'
    ? { ...second, message: `${second.message} (seen twice)` }
    : { ...second, message: `${second.message} (after one retry: the first attempt saw ${first.message})` };
}

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
export function ascendingUnderSomeOrder(values: readonly unknown[]): boolean {
  const present = values.filter((v) => v !== undefined && v !== null);
  const orders: ((a: unknown, b: unknown) => number)[] = [
    (a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : NaN),
    (a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0),
    (a, b) => String(a).toLowerCase().localeCompare(String(b).toLowerCase()),
    (a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0),
  ];
  return orders.some((cmp) => present.every((v, i) => i === 0 || (!(cmp(present[i - 1], v) > 0) && !Number.isNaN(cmp(present[i - 1], v)))));
}

/**
 * Page sizes a default page must be told from (issue: "enough records to tell the spec's default
 * limit from 10 and 20"; and a small default from the general 10000).
 */
export function alternativeDefaults(defaultLimit: number): number[] {
  return [10, 20, ...(defaultLimit < 10_000 ? [10_000] : [])].filter((w) => w !== defaultLimit);
}

/** With `total` records, the page sizes the default page cannot be told from. */
export function indistinguishableDefaults(defaultLimit: number, total: number, sample = Number.POSITIVE_INFINITY): number[] {
  const size = (w: number) => Math.min(total, w, sample);
  return alternativeDefaults(defaultLimit).filter((w) => size(w) === size(defaultLimit));
}

export async function runListLaws(ctx: ConformContext, e: EndpointContract, happy: Exchange, base: Record<string, unknown>): Promise<void> {
  const list = e.list!;
  const first = pageOf(happy);
  if (!first) {
    await ctx.check(e, 'list.laws', pagedAssertion(e, 'data'), () =>
      skip(`the valid list request did not succeed (${describeAnswer(happy)})`),
    );
    return;
  }

  await ctx.check(e, 'list.total-count', pagedAssertion(e, 'total'), async () =>
    settled(async () => {
      const whole = await fetchPage(ctx, e, base, { limit: WHOLE });
      if (!isPage(whole)) return fail(`limit=${WHOLE} was not answered with a page: ${describeAnswer(whole)}`, whole);
      if (whole.total < whole.rows.length)
        return fail(`total_count ${whole.total} is less than the ${whole.rows.length} records of the page`, whole.ex);
      const complete = list.sampleLimit === undefined && list.totalCount !== 'scope' && whole.total <= WHOLE;
      if (complete && whole.rows.length !== whole.total)
        return fail(
          `with limit=${WHOLE} the page holds ${whole.rows.length} records but total_count is ${whole.total}: it must count the matching records`,
          whole.ex,
        );
      // The total of all matching records, not of the page: a page of 2 reports the same total.
      const small = await fetchPage(ctx, e, base, { limit: 2, page: 1 });
      if (!isPage(small)) return fail(`limit=2 was not answered with a page: ${describeAnswer(small)}`, small);
      if (complete && small.total !== whole.total)
        return fail(
          `total_count is ${small.total} with limit=2 but ${whole.total} with limit=${WHOLE}: it counts the page, not the matching records`,
          small.ex,
        );
      return pass(
        `total_count ${whole.total} whatever the page size (${whole.rows.length} records on one page)`,
        undefined,
        whole.total <= 2,
      );
    }),
  );

  // Pages the laws fetch that the decisions below compare with (saving their requests).
  const seen: SeenPages = {};
  await runDefaultLimit(ctx, e, first, base, seen);

  if (list.sampleLimit !== undefined) {
    const sample = list.sampleLimit;
    await ctx.check(e, 'list.sample-limit', A.limitsSampling, async () => {
      const page = await fetchPage(ctx, e, base, { limit: WHOLE });
      if (!isPage(page)) return fail(`limit=${WHOLE} was not answered with a page: ${describeAnswer(page)}`, page);
      if (page.rows.length > sample)
        return fail(`at most ${sample} records are sampled, but limit=${WHOLE} answered ${page.rows.length}`, page.ex);
      return pass(
        `${page.rows.length} records with limit=${WHOLE} (at most ${sample} sampled), total_count ${page.total}`,
        undefined,
        page.total <= sample,
      );
    });
  }

  const k = 2;
  const sortField = list.sortFields[0];
  const sorted = sortField ? { sort_field: sortField, sort_by: 'asc' } : {};
  await ctx.check(e, 'list.page-default', pagedAssertion(e, 'page'), async () =>
    settled(async () => {
      const implicit = await fetchPage(ctx, e, base, { ...sorted, limit: k });
      if (!isPage(implicit)) return fail(`limit=${k} without page was not answered with a page: ${describeAnswer(implicit)}`, implicit);
      const explicit = await fetchPage(ctx, e, base, { ...sorted, limit: k, page: 1 });
      if (!isPage(explicit)) return fail(`page=1 was not answered with a page: ${describeAnswer(explicit)}`, explicit);
      seen.pageOne = explicit;
      const a = JSON.stringify(implicit.rows.map(fingerprint));
      const b = JSON.stringify(explicit.rows.map(fingerprint));
      if (a !== b)
        return fail(
          `without page the list answered ${a.slice(0, 160)}, but page=1 is ${b.slice(0, 160)}; the default page is 1`,
          implicit.ex,
        );
      // With k records or fewer every page rule gives the same answer.
      return pass(`no page = page 1 (${implicit.rows.length} of ${implicit.total} records)`, undefined, implicit.total <= k);
    }),
  );

  await ctx.check(e, 'list.page-past-end', pagedAssertion(e, 'data'), async () =>
    settled(async () => {
      const probe = await fetchPage(ctx, e, base, { limit: k, page: 1 });
      if (!isPage(probe)) return fail(`limit=${k} was not answered with a page: ${describeAnswer(probe)}`, probe);
      if (probe.rows.length > k) return fail(`limit=${k} answered ${probe.rows.length} records`, probe.ex);
      const pastPage = Math.floor(probe.total / k) + 2;
      const past = await fetchPage(ctx, e, base, { limit: k, page: pastPage });
      if (!isPage(past)) return fail(`page ${pastPage} was not answered with a page: ${describeAnswer(past)}`, past);
      if (past.rows.length > 0)
        return fail(`page ${pastPage} of size ${k} is past the end of ${probe.total} records but holds ${past.rows.length}`, past.ex);
      return pass(
        `page ${pastPage} (limit ${k}) is empty; total_count ${past.total}`,
        undefined,
        probe.total === 0 || probe.rows.length === 0,
      );
    }),
  );

  await ctx.check(e, 'list.pages-partition', pagedAssertion(e, 'data'), async () =>
    settled(async () => {
      const whole = await fetchPage(ctx, e, base, { ...sorted, limit: 6, page: 1 });
      if (!isPage(whole)) return fail(`limit=6 was not answered with a page: ${describeAnswer(whole)}`, whole);
      const n = whole.rows.length;
      if (n > 6) return fail(`limit=6 answered ${n} records`, whole.ex);
      const got: Row[] = [];
      for (let page = 1; page <= Math.ceil(n / k); page++) {
        const p = await fetchPage(ctx, e, base, { ...sorted, limit: k, page });
        if (!isPage(p)) return fail(`page ${page} (limit ${k}) was not answered with a page: ${describeAnswer(p)}`, p);
        if (page === 2) seen.pageTwo = p;
        got.push(...p.rows);
      }
      const want = whole.rows.map(fingerprint);
      const have = got.slice(0, n).map(fingerprint);
      if (JSON.stringify(want) !== JSON.stringify(have))
        return fail(
          `pages of ${k}${sortField ? ` sorted by ${sortField}` : ''} do not partition the first ${n} records: ${JSON.stringify(have).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`,
          whole.ex,
        );
      // Fewer than three records fit on two pages of two however a server pages.
      const distinct = new Set(want).size;
      return pass(`pages of ${k} partition the first ${n} records`, undefined, distinct < 3);
    }),
  );

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
  await runListDecisions(ctx, e, first, base, seen);
}

/** Lists whose order without sort_field the project fixes (decision.list.base-order), by the fields it goes by. */
const BASE_ORDER: Record<string, readonly string[]> = {
  'cluster.tenant.list': ['tenant_name'],
  'cluster.topic.list': ['tenant', 'topic_name'],
  'cluster.connector.list': ['tenant', 'connector_name'],
};

/** Are the rows in ascending order of the tuple of `fields`, by code point or ignoring case? */
export function inTupleOrder(rows: readonly Row[], fields: readonly string[]): boolean {
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

/** Pages of a list the laws fetched: pages 1 and 2 of size 2 sorted ascending by the first sort field, the page without limit, the whole list sorted ascending. */
interface SeenPages {
  pageOne?: Page;
  pageTwo?: Page;
  unlimited?: Page;
  asc?: Page;
}

/**
 * What the project decided where the Common list parameters are silent (INFO): sort_by absent is
 * ascending, page 0 is page 1 and limit 0 the default page size, and the base order of the lists it
 * names. Each is decided only on evidence a server doing otherwise would fail.
 */
async function runListDecisions(
  ctx: ConformContext,
  e: EndpointContract,
  first: Page,
  base: Record<string, unknown>,
  seen: SeenPages,
): Promise<void> {
  const list = e.list!;
  const field = list.sortFields[0];
  if (field) {
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

  const k = 2;
  const sorted = field ? { sort_field: field, sort_by: 'asc' } : {};
  await ctx.check(e, 'list.page-zero', 'decision.list.page-zero', async () =>
    settled(async () => {
      const zero = await fetchPage(ctx, e, base, { ...sorted, limit: k, page: 0 });
      if (!isPage(zero)) return fail(`page=0 was not answered with a page: ${describeAnswer(zero)}`, zero);
      const one = seen.pageOne ?? (await fetchPage(ctx, e, base, { ...sorted, limit: k, page: 1 }));
      if (!isPage(one)) return skip(`page=1 was refused (${describeAnswer(one)}), so page 0 has nothing to be compared with`);
      const a = JSON.stringify(zero.rows.map(fingerprint));
      const b = JSON.stringify(one.rows.map(fingerprint));
      if (a !== b) return fail(`page=0 answered ${a.slice(0, 160)}, page=1 ${b.slice(0, 160)}: page 0 is read as page 1`, zero.ex);
      // The request without limit now (the family scenarios may have changed the list since the valid request).
      const now = seen.unlimited ?? (await fetchPage(ctx, e, base, {}));
      const noLimit = (isPage(now) ? now : first).rows.length;
      const limitZero = await fetchPage(ctx, e, base, { limit: 0 });
      if (!isPage(limitZero)) return fail(`limit=0 was not answered with a page: ${describeAnswer(limitZero)}`, limitZero);
      if (limitZero.rows.length !== noLimit)
        return fail(
          `limit=0 answered ${limitZero.rows.length} records, the request without limit ${noLimit}: a limit of 0 is read as the default page size`,
          limitZero.ex,
        );
      // Decided only on a list that pages (page 2 differs from page 1) and honours a limit (2 records are fewer than
      // the page without limit): elsewhere page 0, page 1 and limit 0 look the same whatever they mean.
      const pages = seen.pageTwo !== undefined && JSON.stringify(seen.pageTwo.rows.map(fingerprint)) !== b;
      const limits = one.rows.length < noLimit;
      return pass(`page=0 = page=1 (${one.rows.length} records), limit=0 = no limit (${noLimit} records)`, undefined, !(pages && limits));
    }),
  );

  const order = BASE_ORDER[e.id];
  if (order) {
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
}

/**
 * The default page size (spec, Limits: "list `limit` default | 10000 in general; 100 for tenants; 20
 * for mq9 lists"): decided only when the list holds enough records to tell the default from the
 * sizes a server might use instead (10, 20, and 10000 for the smaller defaults).
 */
async function runDefaultLimit(
  ctx: ConformContext,
  e: EndpointContract,
  first: Page,
  base: Record<string, unknown>,
  seen: SeenPages = {},
): Promise<void> {
  const list = e.list!;
  const d = list.defaultLimit;
  const sample = list.sampleLimit ?? Number.POSITIVE_INFINITY;
  await ctx.check(e, 'list.default-limit', cite(e, 'page-size'), async () =>
    settled(async () => {
      const now = await fetchPage(ctx, e, base, {});
      if (isPage(now)) seen.unlimited = now;
      const page = isPage(now) ? now : first;
      const expected = Math.min(page.total, d, sample);
      if (page.rows.length > Math.min(d, sample))
        return fail(`without limit the page holds ${page.rows.length} records; the default page size is ${d}`, page.ex);
      if (list.totalCount !== 'scope' && page.rows.length < expected)
        return fail(`without limit the page holds ${page.rows.length} of ${page.total} records; the default page size is ${d}`, page.ex);
      const blind = indistinguishableDefaults(d, page.total, sample);
      if (blind.length > 0)
        return inconclusive(`${page.total} records: a default page of ${blind.join(' or ')} would look the same as ${d}`);
      return pass(
        `default page of ${page.rows.length} records of ${page.total} (default limit ${d}, told from ${alternativeDefaults(d).join(' and ')})`,
      );
    }),
  );
}

/**
 * List parameters outside what the spec lists. A sort field the endpoint does not list is ignored and
 * a sort_by other than asc/desc sorts descending, as on the real server (decisions of this project:
 * the spec lists the values but never says what others do, so INFO; a 400 naming the parameter is the
 * decisions' alternative and passes too). A negative limit is not a u32 (spec: Common list parameters), a MUST refusal.
 */
export async function runListParamChecks(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const limit = Math.max(e.list!.defaultLimit, WHOLE);
  const field = e.list!.sortFields[0];
  const order = (p: Page) => p.rows.map(fingerprint);
  await ctx.check(e, 'list.sort_field.unknown', A.decisionUnknownSortField, async () =>
    settled(async () => {
      const plain = await fetchPage(ctx, e, base, { limit });
      if (!isPage(plain)) return skip(`the list without sort_field was refused (${describeAnswer(plain)})`);
      const odd = await fetchPage(ctx, e, base, { limit, sort_field: 'mqsim_not_a_field', sort_by: 'asc' });
      if (!isPage(odd)) {
        // The decision's alternative: a parameter error that names sort_field.
        if (refusedNaming(odd, 'sort_field'))
          return pass(
            `a sort_field not among ${e.list!.sortFields.join(', ') || '(none)'} is refused naming sort_field (${describeAnswer(odd)}), the decision's alternative`,
          );
        return fail(
          `a sort_field not among ${e.list!.sortFields.join(', ') || '(none)'} was neither ignored nor refused as a parameter error naming sort_field: ${describeAnswer(odd)}`,
          odd,
        );
      }
      if (JSON.stringify(order(odd)) !== JSON.stringify(order(plain)))
        return fail(
          `with an unknown sort_field the ${odd.rows.length} records come in another order than without sort_field: ${order(odd).slice(0, 4).join(' ')}… vs ${order(plain).slice(0, 4).join(' ')}…`,
          odd.ex,
        );
      // One record is in "the same order" whatever a server does with the field.
      return pass(
        `an unknown sort_field is ignored: the ${odd.rows.length} records keep the order they have without it`,
        undefined,
        new Set(order(plain)).size < 2,
      );
    }),
  );
  await ctx.check(e, 'list.sort_by.invalid', A.decisionUnknownSortBy, async () => {
    if (!field) return skip('the list has no sort field to sort by');
    return settled(async () => {
      const desc = await fetchPage(ctx, e, base, { limit, sort_field: field, sort_by: 'desc' });
      if (!isPage(desc)) return skip(`sort_by=desc was refused (${describeAnswer(desc)}), so there is no descending order to compare with`);
      const odd = await fetchPage(ctx, e, base, { limit, sort_field: field, sort_by: 'sideways' });
      if (!isPage(odd)) {
        if (refusedNaming(odd, 'sort_by'))
          return pass(`sort_by "sideways" is refused naming sort_by (${describeAnswer(odd)}), the decision's alternative`);
        return fail(
          `sort_by "sideways" was neither read as descending (the decision) nor refused as a parameter error naming sort_by: ${describeAnswer(odd)}`,
          odd,
        );
      }
      const keys = (p: Page) => p.rows.map((r) => JSON.stringify(r[field]));
      if (JSON.stringify(keys(odd)) !== JSON.stringify(keys(desc)))
        return fail(
          `sort_by "sideways" does not sort by ${field} descending: ${keys(odd).slice(0, 5).join(',')}… (desc: ${keys(desc).slice(0, 5).join(',')}…)`,
          odd.ex,
        );
      // With fewer than two distinct keys descending and ascending look the same.
      return pass(`sort_by "sideways" sorts by ${field} descending, as sort_by=desc`, undefined, new Set(keys(desc)).size < 2);
    });
  });
  const ex = await ctx.call(e, { ...base, limit: -1 });
  await ctx.check(e, 'list.limit.negative', pagedAssertion(e, 'limit'), () => {
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (refusedAsInvalid(ex))
      return pass(
        `limit -1 (a u32): refused${namesParam(envelopeOf(ex)?.text ?? ex.response.text, 'limit') ? ' naming limit' : ''} (${describeAnswer(ex)})`,
      );
    return fail(`limit -1 (a u32) should be refused as a parameter error, got ${describeAnswer(ex)}`, ex);
  });
}

/** A parameter error (HTTP 400 or code 400, non-zero code) whose text names `param`. */
function refusedNaming(ex: Exchange, param: string): boolean {
  return ex.response !== undefined && refusedAsInvalid(ex) && namesParam(envelopeOf(ex)?.text ?? ex.response.text, param);
}

/** The rows of the whole list (one page of WHOLE), for the visibility checks. */
async function wholeList(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown> = {}): Promise<Page | Exchange> {
  return fetchPage(ctx, e, base, { limit: Math.max(e.list!.defaultLimit, WHOLE) });
}

/** A created fixture shows up in its list (spec: the service manages the resource: an acknowledged create is applied). */
export async function runShowsCreated(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract,
  resources: CreatedResources,
  base: Record<string, unknown>,
): Promise<void> {
  const fields = resources.fixtures.get(family.key);
  const recorded = fields ? recordIdentity(family, fields) : undefined;
  if (!fields || !recorded) return;
  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(recorded).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(e, 'list.shows-created', family.manages, async () => {
    const page = await wholeList(ctx, e, base);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const found = page.rows.some((r) => identity.every(([k, v]) => r[k] === v));
    if (found) return pass(`the ${family.key} created by the run is listed`);
    if (page.total > page.rows.length)
      return skip(`the list has more records (${page.total}) than one page; the ${family.key} may be on another page`);
    return fail(
      `the ${family.key} ${JSON.stringify(Object.fromEntries(identity))} created by the run (the create answered success) is missing from the list`,
      page.ex,
    );
  });
  await runCreatedValues(ctx, e, family, fields, identity);
}

/**
 * The listed record carries the values the create sent (spec: the resource tables name the same
 * fields in the create body and the record). Compared where both have the field in the same JSON
 * type; fields the list shows in another form (labels, local time, normalised config) are left out.
 */
async function runCreatedValues(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract,
  fields: Record<string, unknown>,
  identity: [string, unknown][],
): Promise<void> {
  const props = ((e.response.data ?? {}) as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const skipFields = new Set(family.listing?.otherForm ?? []);
  const compared = Object.entries(fields).filter(
    ([k, v]) =>
      k in props && !skipFields.has(k) && v !== undefined && v !== null && typeof v !== 'object' && !identity.some(([id]) => id === k),
  );
  if (compared.length === 0) return;
  await ctx.check(e, 'list.created-values', family.manages, async () => {
    const page = await wholeList(ctx, e);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const row = page.rows.find((r) => identity.every(([k, v]) => r[k] === v));
    if (!row) return skip(`the ${family.key} created by the run is not on the first page`);
    // A text shown in other letter case is another form of the same value (a label), not a lost write.
    const sameText = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
    const wrong = compared.filter(([k, v]) => typeof row[k] === typeof v && row[k] !== v && !sameText(row[k], v));
    if (wrong.length > 0)
      return fail(
        `the listed ${family.key} differs from what was created: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(row[k])} (sent ${JSON.stringify(v)})`).join(', ')}`,
        page.ex,
      );
    const same = compared.filter(([k, v]) => row[k] === v).map(([k]) => k);
    const otherForm = compared.filter(([k, v]) => typeof row[k] !== typeof v || (row[k] !== v && sameText(row[k], v))).map(([k]) => k);
    if (same.length === 0)
      return inconclusive(`no created field is listed in the form it was sent (${otherForm.join(', ')} shown in another form)`);
    return pass(`${same.length} fields as created${otherForm.length ? ` (${otherForm.join(', ')} shown in another form)` : ''}`);
  });
}

function fieldText(row: Row, field: string): string | undefined {
  const v = row[field];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A part of `value` for a contains-match: drops the first and last character when long enough. */
export function innerPart(value: string): string {
  const chars = [...value];
  return chars.length >= 3 ? chars.slice(1, -1).join('') : value;
}

/**
 * Does the record's field match? A contains match may ignore letter case: the spec says "fuzzy,
 * contains match" and names no case rule (the reference server lowercases both sides).
 */
const matches = (row: Row, field: string, want: string, exact: boolean): boolean => {
  const v = fieldText(row, field);
  return v !== undefined && (exact ? v === want : v.toLowerCase().includes(want.toLowerCase()));
};

/**
 * A filter value worth trying: taken from a record (so the filter must return it), and missed by
 * another record of the unfiltered list (so a server ignoring the filter is seen). Undefined when
 * every record would match every candidate value.
 */
export function decisiveFilterValue(rows: readonly Row[], field: string, exact: boolean): { source: Row; want: string } | undefined {
  // For an exact filter, best a value another record's value contains ("conform-1-p1" in "conform-1-p10"):
  // a server matching by containment then returns a record it must not.
  if (exact) {
    for (const source of rows) {
      const v = source[field];
      if (typeof v !== 'string' || v.length === 0) continue;
      const containsIt = rows.some(
        (r) => r !== source && typeof r[field] === 'string' && r[field] !== v && (r[field] as string).includes(v),
      );
      // …and a record that does not even contain it, so ignoring the filter shows too.
      if (containsIt && rows.some((r) => !matches(r, field, v, false))) return { source, want: v };
    }
  }
  for (const source of rows) {
    const v = source[field];
    if (typeof v !== 'string' || v.length === 0) continue;
    const want = exact ? v : innerPart(v);
    if (rows.some((r) => !matches(r, field, want, exact))) return { source, want };
  }
  return undefined;
}

/**
 * Named filters of a list (spec: each list's query parameters, "exact" or "fuzzy"/contains) and the
 * common filter_field/filter_values/exact_match: every record returned matches the filter, and the
 * record the value was taken from is among them (unless the list samples before filtering). Decided
 * only when the unfiltered list has a record the filter must leave out.
 */
export async function runListFilters(
  ctx: ConformContext,
  e: EndpointContract,
  happy: Exchange,
  base: Record<string, unknown>,
): Promise<void> {
  const first = pageOf(happy);
  if (!first) return;
  const whole = await wholeList(ctx, e, base);
  const rows = isPage(whole) ? whole.rows : first.rows;
  const sampled = e.list!.sampleLimit !== undefined;

  const judge = (page: Page | Exchange, field: string, want: string, exact: boolean, source: Row): Verdict => {
    if (!isPage(page)) return fail(`the filtered list was refused: ${describeAnswer(page)}`, page);
    const bad = page.rows.filter((r) => !matches(r, field, want, exact));
    if (bad.length > 0)
      return fail(
        `${bad.length} of ${page.rows.length} records do not ${exact ? 'equal' : 'contain'} ${JSON.stringify(want)} in ${field}, e.g. ${JSON.stringify(bad[0][field])}`,
        page.ex,
      );
    const found = page.rows.some((r) => fingerprint(r) === fingerprint(source));
    if (!found && !sampled && page.total <= page.rows.length)
      return fail(
        `the record ${fingerprint(source)} has ${field} ${JSON.stringify(source[field])} but is missing from the filtered list`,
        page.ex,
      );
    return pass(
      `${page.rows.length} records, all ${exact ? 'equal to' : 'containing'} ${JSON.stringify(want)}; ${rows.filter((r) => !matches(r, field, want, exact)).length} of the ${rows.length} unfiltered ones left out`,
    );
  };

  for (const p of e.params.filter((x) => x.match && x.type === 'string')) {
    const field = p.field ?? p.name;
    const exact = p.match === 'exact';
    const pick = decisiveFilterValue(rows, field, exact);
    const assertion = cite(e, 'match', p.name);
    if (!pick) {
      await ctx.check(e, `list.filter.${p.name}`, assertion, () =>
        rows.some((r) => typeof r[field] === 'string')
          ? inconclusive(
              `every one of the ${rows.length} records would match any value of ${field} taken from them: a server ignoring ${p.name} would look the same`,
            )
          : skip(`no record with a ${field} to filter on`),
      );
      continue;
    }
    await ctx.check(e, `list.filter.${p.name}`, assertion, async () =>
      settled(async () => judge(await fetchPage(ctx, e, base, { [p.name]: pick.want }), field, pick.want, exact, pick.source)),
    );
    // An exact filter does not match on a part: the record the part comes from must not be returned.
    const value = String(pick.source[field]);
    const part = innerPart(value);
    if (exact && part !== value && !rows.some((r) => r[field] === part)) {
      await ctx.check(e, `list.filter.${p.name}.not-partial`, assertion, async () =>
        settled(async () => {
          const page = await fetchPage(ctx, e, base, { [p.name]: part });
          if (!isPage(page)) return fail(`the filtered list was refused: ${describeAnswer(page)}`, page);
          const wrong = page.rows.filter((r) => fieldText(r, field) !== part);
          if (wrong.length > 0)
            return fail(
              `${p.name} is an exact filter, but ${JSON.stringify(part)} returned ${wrong.length} records whose ${field} only contains it, e.g. ${JSON.stringify(wrong[0][field])}`,
              page.ex,
            );
          return pass(`${JSON.stringify(part)} (a part of ${JSON.stringify(value)}) matches no record: equality, not containment`);
        }),
      );
    }
  }

  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const candidates = [...e.list!.sortFields, ...IDENTITY_FIELDS].filter((f) => props.includes(f));
  const filtered = new Map<string, { passed: boolean; field: string; pick: { source: Row; want: string } }>();
  for (const [id, assertion, exact] of [
    ['list.filter_values.exact', pagedAssertion(e, 'exact-match'), true],
    ['list.filter_values.contains', pagedAssertion(e, 'filter-values'), false],
  ] as const) {
    const field = candidates.find((f) => decisiveFilterValue(rows, f, exact));
    if (!field) {
      await ctx.check(e, id, assertion, () =>
        rows.length === 0
          ? skip('no record to filter')
          : inconclusive(
              `no field of the ${rows.length} records has a value some other record lacks: a server ignoring filter_values would look the same`,
            ),
      );
      continue;
    }
    const pick = decisiveFilterValue(rows, field, exact)!;
    const record = await ctx.check(e, id, assertion, async () =>
      settled(async () => {
        const { page, refused: refusedForms } = await filterValuesPage(ctx, e, base, field, pick.want, exact);
        const verdict = judge(page, field, pick.want, exact, pick.source);
        // A form of the array refused as invalid (and the others refused or ignored): filter_values itself
        // cannot be sent, whatever exact_match says.
        if (verdict.status === 'fail' && refusedForms.length > 0 && assertion === A.listExactMatch) {
          return {
            ...verdict,
            message: `filter_values cannot be sent: refused as ${refusedForms.join(', ')}, and no other form filtered: ${verdict.message}`,
            assertion: A.listFilterValues,
          };
        }
        // Every record back, as without the filter: filter_values was ignored, not matched the wrong way.
        const ignored =
          isPage(page) && isPage(whole) && page.total === whole.total && whole.rows.some((r) => !matches(r, field, pick.want, false));
        if (verdict.status === 'fail' && ignored && assertion === A.listExactMatch) {
          return {
            ...verdict,
            message: `filter_values was ignored (all ${page.total} records came back): ${verdict.message}`,
            assertion: A.listFilterValues,
          };
        }
        // The records kept are those whose filter_field matches: a server ignoring filter_field (or filtering another field) fails here.
        return withAlso(verdict, [A.listFilterField]);
      }),
    );
    // An exact pick another record's value contains: only there does passing show exact_match=true matched exactly.
    const telling =
      !exact ||
      rows.some(
        (r) => r !== pick.source && typeof r[field] === 'string' && r[field] !== pick.want && (r[field] as string).includes(pick.want),
      );
    filtered.set(id, { passed: record.status === 'pass' && telling, field, pick });
  }
  await runExactMatchDefault(ctx, e, base, filtered, sampled);
  await runFilterAnyValue(ctx, e, base, filtered, rows, sampled);
}

/** Two values of `field`, each matched (contains) by a record the other misses, and a record neither matches. */
export function twoValuePick(rows: readonly Row[], field: string): { a: Row; b: Row; values: [string, string] } | undefined {
  const some = rows.filter((r) => typeof r[field] === 'string' && (r[field] as string).length > 0).slice(0, 60);
  for (const a of some) {
    const va = innerPart(String(a[field]));
    for (const b of some) {
      const vb = innerPart(String(b[field]));
      if (a === b || matches(b, field, va, false) || matches(a, field, vb, false)) continue;
      if (rows.some((c) => !matches(c, field, va, false) && !matches(c, field, vb, false))) return { a, b, values: [va, vb] };
    }
  }
  return undefined;
}

/**
 * Several filter_values: a record passes when any of them matches (decision: the spec does not say how
 * they combine). Told only where filter_values with one value filtered as the spec says (.contains).
 */
async function runFilterAnyValue(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  filtered: Map<string, { passed: boolean; field: string; pick: { source: Row; want: string } }>,
  rows: readonly Row[],
  sampled: boolean,
): Promise<void> {
  const fuzzy = filtered.get('list.filter_values.contains');
  await ctx.check(e, 'list.filter_values.any', 'decision.list.filter-any-value', async () => {
    if (!fuzzy?.passed)
      return skip('how several filter_values combine is told only where one value filtered as the spec says (list.filter_values.contains)');
    const pick = twoValuePick(rows, fuzzy.field);
    if (!pick)
      return inconclusive(
        `no two records of ${fuzzy.field} each match a value the other misses, with a third matching neither: any way of combining looks the same`,
      );
    return settled(async () => {
      const { page } = await filterValuesPage(ctx, e, base, fuzzy.field, pick.values, false);
      if (!isPage(page)) return fail(`filter_values ${JSON.stringify(pick.values)} was refused: ${describeAnswer(page)}`, page);
      const bad = page.rows.filter((r) => !pick.values.some((v) => matches(r, fuzzy.field, v, false)));
      if (bad.length > 0)
        return fail(
          `${bad.length} records match none of ${JSON.stringify(pick.values)} in ${fuzzy.field}, e.g. ${JSON.stringify(bad[0][fuzzy.field])}`,
          page.ex,
        );
      const missing = [pick.a, pick.b].filter((r) => !page.rows.some((x) => fingerprint(x) === fingerprint(r)));
      if (missing.length > 0 && !sampled && page.total <= page.rows.length)
        return fail(
          `filter_values ${JSON.stringify(pick.values)}: ${missing.map((r) => JSON.stringify(r[fuzzy.field])).join(' and ')} matches one of them but is missing: a record passes when any value matches`,
          page.ex,
        );
      return pass(
        `filter_values ${JSON.stringify(pick.values)}: ${page.rows.length} records, each matching one of them, both sources among them`,
      );
    });
  });
}

/**
 * Without exact_match a filter_values filter matches by contains (decision: the table gives no
 * default). Told only from a server whose exact_match true and false both work as the spec says:
 * a part of a record's value must then return that record, as exact_match=false does.
 */
async function runExactMatchDefault(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  filtered: Map<string, { passed: boolean; field: string; pick: { source: Row; want: string } }>,
  sampled: boolean,
): Promise<void> {
  const fuzzy = filtered.get('list.filter_values.contains');
  const strict = filtered.get('list.filter_values.exact');
  await ctx.check(e, 'list.exact_match.default', cite(e, 'default', 'exact_match'), async () => {
    if (!fuzzy?.passed || !strict?.passed)
      return skip(
        'what an absent exact_match means is told only where exact_match=true and exact_match=false were both seen filtering as the spec says (list.filter_values.exact on a value another record contains, and .contains)',
      );
    const { field, pick } = fuzzy;
    const value = String(pick.source[field]);
    if (pick.want === value)
      return inconclusive(
        `the value ${JSON.stringify(value)} is too short to take a part of it: exact and contains matching look the same`,
      );
    return settled(async () => {
      const { page } = await filterValuesPage(ctx, e, base, field, pick.want, undefined);
      if (!isPage(page)) return fail(`filter_values without exact_match was refused: ${describeAnswer(page)}`, page);
      const bad = page.rows.filter((r) => !matches(r, field, pick.want, false));
      if (bad.length > 0)
        return fail(`without exact_match ${bad.length} records do not contain ${JSON.stringify(pick.want)} in ${field}`, page.ex);
      const found = page.rows.some((r) => fingerprint(r) === fingerprint(pick.source));
      if (!found && !sampled && page.total <= page.rows.length)
        return fail(
          `without exact_match, ${JSON.stringify(pick.want)} (a part of ${JSON.stringify(value)}) did not return that record: the filter matched exactly, not by contains`,
          page.ex,
        );
      return pass(
        `without exact_match ${JSON.stringify(pick.want)} returns the records containing it (${page.rows.length}), as exact_match=false does`,
      );
    });
  });
}

/**
 * A list filtered with filter_field/filter_values/exact_match. The spec gives filter_values as an
 * array of strings in a query string without saying how an array is written there, so the common
 * encodings are tried in turn (repeated key, `[]`, `[0]`); the first one not refused as a parameter
 * error is the answer. A POST list takes the array in its JSON body.
 */
async function filterValuesPage(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  field: string,
  valueOrValues: string | readonly string[],
  exactMatch: boolean | undefined,
): Promise<{ page: Page | Exchange; refused: string[] }> {
  // exact_match undefined: left out of the request (the server's default decides).
  const exact = exactMatch === true;
  const values = typeof valueOrValues === 'string' ? [valueOrValues] : [...valueOrValues];
  const params = {
    ...base,
    filter_field: field,
    ...(exactMatch === undefined ? {} : { exact_match: exactMatch ? 'true' : 'false' }),
    limit: WHOLE,
  };
  if (e.method === 'POST') {
    const page = await fetchPage(ctx, e, params, { filter_values: values });
    return { page, refused: isPage(page) || !refusedAsInvalid(page) ? [] : ['a JSON array'] };
  }
  const plain = pathWithQuery('', toQuery(params)).replace(/^\?/, '');
  let last: Page | Exchange | undefined;
  const refused: string[] = [];
  for (const key of ['filter_values', 'filter_values[]', 'filter_values[0]']) {
    const pairs = values
      .map((v, i) => `${encodeURIComponent(key === 'filter_values[0]' ? `filter_values[${i}]` : key)}=${encodeURIComponent(v)}`)
      .join('&');
    const query = `${plain ? `${plain}&` : ''}${pairs}`;
    const ex = await ctx.send({ method: 'GET', path: e.path, query }, 'check', e.id);
    const page = pageOf(ex);
    if (page) {
      // A page whose every record matches is the filter at work; otherwise the form may just be ignored: try the next.
      if (page.rows.every((r) => values.some((v) => matches(r, field, v, exact))) || refused.length === 0) return { page, refused };
      last = page;
      continue;
    }
    last = ex;
    if (!refusedAsInvalid(ex)) break;
    refused.push(key === 'filter_values' ? 'a repeated key' : key);
  }
  return { page: last!, refused };
}

/** After a delete, the instance is gone from its list (spec: the service manages the resource). */
export async function runGoneAfterDelete(
  ctx: ConformContext,
  deleteEndpoint: EndpointContract,
  family: ResourceFamilyContract,
  fields: Record<string, unknown>,
  listedBefore: boolean | undefined,
): Promise<void> {
  const list = listingEndpoint(ctx, family);
  const recorded = recordIdentity(family, fields);
  if (!list || !recorded) return;
  const props = Object.keys(((list.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(recorded).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(deleteEndpoint, 'delete.gone-from-list', family.manages, async (): Promise<Verdict> => {
    const v = await goneVerdict();
    return family.deleteBody && (v.status === 'pass' || v.status === 'fail') ? { ...v, also: [family.deleteBody] } : v;
  });
  async function goneVerdict(): Promise<Verdict> {
    const page = await wholeList(ctx, list!);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    if (page.rows.some((r) => identity.every(([k, v]) => r[k] === v)))
      return fail(
        `the deleted ${family.key} ${JSON.stringify(Object.fromEntries(identity))} is still listed (the delete answered success)`,
        page.ex,
      );
    if (listedBefore !== true)
      return inconclusive(
        `the ${family.key} is not listed after the delete, but it was not listed before it either, so its absence shows nothing`,
      );
    return pass(`the deleted ${family.key} was listed before and is no longer listed`);
  }
}
