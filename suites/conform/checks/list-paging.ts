import type { EndpointContract } from '../../../contract/core/types.ts';
import { A, cite, pagedAssertion } from '../cite.ts';
import { type ConformContext, describeAnswer, fail, inconclusive, pass, skip } from '../conform-context.ts';
import { fetchPage, fingerprint, isPage, type Page, type Row, type SeenPages, settled, WHOLE } from './list-pages.ts';

/**
 * Paging laws of every list (spec: Response envelope — paged list; Common list parameters): total_count,
 * the default page size, sampling, the default page, pages past the end, pages partitioning the list,
 * and the project's decisions on page 0 and limit 0.
 */

/**
 * Page sizes a default page must be told from (issue: "enough records to tell the spec's default
 * limit from 10 and 20"; and a small default from the general 10000).
 */
function alternativeDefaults(defaultLimit: number): number[] {
  return [10, 20, ...(defaultLimit < 10_000 ? [10_000] : [])].filter((w) => w !== defaultLimit);
}

/** With `total` records, the page sizes the default page cannot be told from. */
function indistinguishableDefaults(defaultLimit: number, total: number, sample = Number.POSITIVE_INFINITY): number[] {
  const size = (w: number) => Math.min(total, w, sample);
  return alternativeDefaults(defaultLimit).filter((w) => size(w) === size(defaultLimit));
}

/** Paging laws, in the order the report lists them; `seen` keeps pages the later decisions compare with. */
export async function runPagingLaws(
  ctx: ConformContext,
  e: EndpointContract,
  first: Page,
  base: Record<string, unknown>,
  seen: SeenPages,
): Promise<void> {
  await checkTotalCount(ctx, e, base);
  await runDefaultLimit(ctx, e, first, base, seen);
  await checkSampleLimit(ctx, e, base);
  await checkPageDefault(ctx, e, base, seen);
  await checkPagePastEnd(ctx, e, base);
  await checkPagesPartition(ctx, e, base, seen);
}

/** Sorted ascending by the list's first sort field, when it has one: pages of a stable order. */
function firstSortAscending(e: EndpointContract): Record<string, unknown> {
  const sortField = e.list!.sortFields[0];
  return sortField ? { sort_field: sortField, sort_by: 'asc' } : {};
}

/** total_count counts the matching records, not the page. */
async function checkTotalCount(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const list = e.list!;
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
}

/** A list that samples holds at most its sample. */
async function checkSampleLimit(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const list = e.list!;
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
}

/** No page parameter is page 1. */
async function checkPageDefault(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>, seen: SeenPages): Promise<void> {
  const k = 2;
  const sorted = firstSortAscending(e);
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
}

/** A page past the end is empty. */
async function checkPagePastEnd(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const k = 2;
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
}

/** Pages of 2 partition the first 6 records. */
async function checkPagesPartition(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  seen: SeenPages,
): Promise<void> {
  const k = 2;
  const sortField = e.list!.sortFields[0];
  const sorted = firstSortAscending(e);
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
 * Page 0 is page 1 and limit 0 the default page size (decision.list.page-zero, INFO: the Common list
 * parameters are silent), decided only on a list that pages and honours a limit.
 */
export async function runPageZero(
  ctx: ConformContext,
  e: EndpointContract,
  first: Page,
  base: Record<string, unknown>,
  seen: SeenPages,
): Promise<void> {
  const k = 2;
  const sorted = firstSortAscending(e);
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
}
