import type { EndpointContract } from '../../../fixtures/contract/types.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, levelFor, pass, skip, succeeded, type Verdict } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';
import type { CreatedResources, ResourceFamily } from '../resource-families.ts';

type Row = Record<string, unknown>;

interface Page {
  ex: Exchange;
  rows: Row[];
  total: number;
}

/** Fields that identify a record across requests (values that change, like counters, are left out). */
const IDENTITY_FIELDS = ['tenant', 'tenant_name', 'name', 'username', 'client_id', 'connection_id', 'path', 'connector_name', 'topic_id', 'topic_name', 'mail_address', 'schema_name', 'resource_name', 'data_type', 'shard_name', 'segment_seq', 'node_id'];

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

async function fetchPage(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>, extra: Record<string, unknown>): Promise<Page | Exchange> {
  const ex = await ctx.call(e, { ...base, ...extra });
  return pageOf(ex) ?? ex;
}

const isPage = (p: Page | Exchange): p is Page => 'rows' in p;

/** Runs a law twice before failing it: live targets change between two requests (clients come and go). */
async function settled(law: () => Promise<Verdict>): Promise<Verdict> {
  const first = await law();
  if (first.status !== 'fail') return first;
  const second = await law();
  return second.status === 'fail' ? { ...second, message: `${second.message} (seen twice)` } : { ...second, message: `${second.message} (after one retry: the first attempt saw ${first.message})` };
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
 * Laws every paged list obeys (spec: Response envelope, Common list parameters): total_count counts
 * at least the page, a page past the end is empty, pages of size k partition the first records, and
 * for each sort field desc is asc reversed.
 */
export async function runListLaws(ctx: ConformContext, e: EndpointContract, happy: Exchange, base: Record<string, unknown>): Promise<void> {
  const list = e.list!;
  const level = levelFor('MUST', 'spec');
  const first = pageOf(happy);
  if (!first) {
    await ctx.check(e, 'list.laws', level, () => skip(`the valid list request did not succeed (${describeAnswer(happy)})`));
    return;
  }

  await ctx.check(e, 'list.total-count', level, () => {
    if (first.total < first.rows.length) return fail(`total_count ${first.total} is less than the ${first.rows.length} records of the page`, happy);
    const complete = list.sampleLimit === undefined && list.totalCount !== 'scope' && first.total <= list.defaultLimit;
    if (complete && first.rows.length !== first.total) return fail(`page 1 with the default limit ${list.defaultLimit} holds ${first.rows.length} records but total_count is ${first.total}`, happy);
    return pass(`total_count ${first.total}, page of ${first.rows.length}`, undefined, first.total === 0);
  });

  const k = 2;
  await ctx.check(e, 'list.page-past-end', level, async () =>
    settled(async () => {
      const probe = await fetchPage(ctx, e, base, { limit: k, page: 1 });
      if (!isPage(probe)) return fail(`limit=${k} was not answered with a page: ${describeAnswer(probe)}`, probe);
      const pastPage = Math.floor(probe.total / k) + 2;
      const past = await fetchPage(ctx, e, base, { limit: k, page: pastPage });
      if (!isPage(past)) return fail(`page ${pastPage} was not answered with a page: ${describeAnswer(past)}`, past);
      if (past.rows.length > 0) return fail(`page ${pastPage} of size ${k} is past the end of ${probe.total} records but holds ${past.rows.length}`, past.ex);
      if (probe.rows.length > k) return fail(`limit=${k} answered ${probe.rows.length} records`, probe.ex);
      return pass(`page ${pastPage} (limit ${k}) is empty; total_count ${past.total}`, undefined, probe.total === 0);
    }),
  );

  const sortField = list.sortFields[0];
  const sorted = sortField ? { sort_field: sortField, sort_by: 'asc' } : {};
  await ctx.check(e, 'list.pages-partition', level, async () =>
    settled(async () => {
      const whole = await fetchPage(ctx, e, base, { ...sorted, limit: 6, page: 1 });
      if (!isPage(whole)) return fail(`limit=6 was not answered with a page: ${describeAnswer(whole)}`, whole);
      const n = whole.rows.length;
      if (n > 6) return fail(`limit=6 answered ${n} records`, whole.ex);
      const got: Row[] = [];
      for (let page = 1; page <= Math.ceil(n / k); page++) {
        const p = await fetchPage(ctx, e, base, { ...sorted, limit: k, page });
        if (!isPage(p)) return fail(`page ${page} (limit ${k}) was not answered with a page: ${describeAnswer(p)}`, p);
        got.push(...p.rows);
      }
      const want = whole.rows.map(fingerprint);
      const have = got.slice(0, n).map(fingerprint);
      if (JSON.stringify(want) !== JSON.stringify(have)) return fail(`pages of ${k}${sortField ? ` sorted by ${sortField}` : ''} do not partition the first ${n} records: ${JSON.stringify(have).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`, whole.ex);
      return pass(`pages of ${k} partition the first ${n} records`, undefined, n <= 1);
    }),
  );

  for (const field of list.sortFields) {
    await ctx.check(e, `list.sort.${field}`, level, async () =>
      settled(async () => {
        const asc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'asc', limit: list.defaultLimit });
        if (!isPage(asc)) return fail(`sort_field=${field}&sort_by=asc was refused: ${describeAnswer(asc)}`, asc);
        const desc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'desc', limit: list.defaultLimit });
        if (!isPage(desc)) return fail(`sort_field=${field}&sort_by=desc was refused: ${describeAnswer(desc)}`, desc);
        if (asc.rows.length >= list.defaultLimit && asc.total > asc.rows.length) return skip(`more than one page of records (${asc.total}); the reverse law needs the whole set`);
        const key = (r: Row) => JSON.stringify(r[field]);
        if (!reversedAfterIntersect(asc.rows.map(key), desc.rows.map(key))) {
          return fail(`sort_by=desc is not the reverse of sort_by=asc on ${field}: asc ${asc.rows.map(key).slice(0, 6).join(',')}… desc ${desc.rows.map(key).slice(0, 6).join(',')}…`, desc.ex);
        }
        const distinct = new Set(asc.rows.map(key)).size;
        return pass(`desc reverses asc over ${asc.rows.length} records (${distinct} distinct keys)`, undefined, distinct <= 1);
      }),
    );
  }
}

/** A created fixture shows up in its list (spec: create then list). */
export async function runShowsCreated(ctx: ConformContext, e: EndpointContract, family: ResourceFamily, resources: CreatedResources, base: Record<string, unknown>): Promise<void> {
  const fields = resources.fixtures.get(family.key);
  if (!fields || !family.identity) return;
  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(family.identity(fields)).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(e, 'list.shows-created', levelFor('MUST', e.response.source), async () => {
    const page = await fetchPage(ctx, e, base, { limit: e.list!.defaultLimit });
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const found = page.rows.some((r) => identity.every(([k, v]) => r[k] === v));
    if (found) return pass(`the ${family.key} created by the run is listed`);
    if (page.total > page.rows.length) return skip(`the list has more records (${page.total}) than one page; the ${family.key} may be on another page`);
    return fail(`the ${family.key} ${JSON.stringify(Object.fromEntries(identity))} created by the run is missing from the list`, page.ex);
  });
}
