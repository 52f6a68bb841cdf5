import type { EndpointContract } from '../../../fixtures/contract/types.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, levelFor, pass, refusedAsInvalid, skip, succeeded, type Verdict } from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';
import type { CreatedResources, ResourceFamily } from '../resource-families.ts';

type Row = Record<string, unknown>;

interface Page {
  ex: Exchange;
  rows: Row[];
  total: number;
}

/** Fields that identify a record across requests (values that change, like counters, are left out). */
export const IDENTITY_FIELDS = ['tenant', 'tenant_name', 'name', 'username', 'client_id', 'connection_id', 'path', 'connector_name', 'topic_id', 'topic_name', 'mail_address', 'schema_name', 'resource_name', 'data_type', 'shard_name', 'segment_seq', 'node_id'];

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

  await ctx.check(e, 'list.default-limit', level, () => {
    if (first.rows.length > list.defaultLimit) return fail(`without limit the page holds ${first.rows.length} records; the default page size is ${list.defaultLimit}`, happy);
    if (list.sampleLimit === undefined && first.total > list.defaultLimit && first.rows.length < list.defaultLimit) {
      return fail(`without limit the page holds ${first.rows.length} of ${first.total} records; the default page size is ${list.defaultLimit}`, happy);
    }
    return pass(`default page of ${first.rows.length} records (default limit ${list.defaultLimit}, total ${first.total})`, undefined, first.total <= list.defaultLimit);
  });

  if (list.sampleLimit !== undefined) {
    const sample = list.sampleLimit;
    await ctx.check(e, 'list.sample-limit', level, async () => {
      const page = await fetchPage(ctx, e, base, { limit: 10_000 });
      if (!isPage(page)) return fail(`limit=10000 was not answered with a page: ${describeAnswer(page)}`, page);
      if (page.rows.length > sample) return fail(`at most ${sample} records are sampled, but limit=10000 answered ${page.rows.length}`, page.ex);
      return pass(`${page.rows.length} records with limit=10000 (at most ${sample} sampled), total_count ${page.total}`, undefined, page.total <= sample);
    });
  }

  const k = 2;
  await ctx.check(e, 'list.page-default', level, async () =>
    settled(async () => {
      const sortedFirst = list.sortFields[0] ? { sort_field: list.sortFields[0], sort_by: 'asc' } : {};
      const implicit = await fetchPage(ctx, e, base, { ...sortedFirst, limit: k });
      if (!isPage(implicit)) return fail(`limit=${k} without page was not answered with a page: ${describeAnswer(implicit)}`, implicit);
      const explicit = await fetchPage(ctx, e, base, { ...sortedFirst, limit: k, page: 1 });
      if (!isPage(explicit)) return fail(`page=1 was not answered with a page: ${describeAnswer(explicit)}`, explicit);
      const a = JSON.stringify(implicit.rows.map(fingerprint));
      const b = JSON.stringify(explicit.rows.map(fingerprint));
      if (a !== b) return fail(`without page the list answered ${a.slice(0, 160)}, but page=1 is ${b.slice(0, 160)}; the default page is 1`, implicit.ex);
      return pass(`no page = page 1 (${implicit.rows.length} records)`, undefined, implicit.rows.length === 0);
    }),
  );

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
        // One page of every record when possible: the reverse law needs the whole set.
        const limit = Math.max(list.defaultLimit, 10_000);
        const asc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'asc', limit });
        if (!isPage(asc)) return fail(`sort_field=${field}&sort_by=asc was refused: ${describeAnswer(asc)}`, asc);
        const desc = await fetchPage(ctx, e, base, { sort_field: field, sort_by: 'desc', limit });
        if (!isPage(desc)) return fail(`sort_field=${field}&sort_by=desc was refused: ${describeAnswer(desc)}`, desc);
        if (asc.total > asc.rows.length && list.sampleLimit === undefined) return skip(`more than one page of records (${asc.total}); the reverse law needs the whole set`);
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

/**
 * List parameters outside what the spec allows (a sort field the endpoint does not list, a sort_by
 * other than asc/desc, a negative limit) are refused as parameter errors. SHOULD: the spec names the
 * allowed values but a lenient server may ignore a bad one.
 */
export async function runListParamChecks(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['list.sort_field.unknown', { sort_field: 'mqsim_not_a_field', sort_by: 'asc' }, 'sort_field', `a sort_field not among ${e.list!.sortFields.join(', ') || '(none)'}`],
    ['list.sort_by.invalid', { ...(e.list!.sortFields[0] ? { sort_field: e.list!.sortFields[0] } : {}), sort_by: 'sideways' }, 'sort_by', 'sort_by "sideways" (asc or desc)'],
    ['list.limit.negative', { limit: -1 }, 'limit', 'limit -1 (a u32)'],
  ];
  for (const [id, extra, param, what] of cases) {
    const ex = await ctx.call(e, { ...base, ...extra });
    await ctx.check(e, id, levelFor('SHOULD', e.response.source), () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (refusedAsInvalid(ex)) return namesParam(envelopeOf(ex)?.text ?? ex.response.text, param) ? pass(`${what}: refused naming ${param}`) : pass(`${what}: refused (${describeAnswer(ex)})`);
      return fail(`${what} should be refused as a parameter error, got ${describeAnswer(ex)}`, ex);
    });
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
  await runCreatedValues(ctx, e, family, fields, identity);
}

/**
 * The listed record carries the values the create sent (spec: the resource tables name the same
 * fields in the create body and the record). Compared where both have the field in the same JSON
 * type; fields the list shows in another form (labels, local time, normalised config) are left out.
 */
async function runCreatedValues(ctx: ConformContext, e: EndpointContract, family: ResourceFamily, fields: Record<string, unknown>, identity: [string, unknown][]): Promise<void> {
  const props = ((e.response.data ?? {}) as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const skipFields = new Set(family.listForm ?? []);
  const compared = Object.entries(fields).filter(([k, v]) => k in props && !skipFields.has(k) && v !== undefined && v !== null && typeof v !== 'object');
  if (compared.length === 0) return;
  await ctx.check(e, 'list.created-values', levelFor('MUST', e.response.source), async () => {
    const page = await fetchPage(ctx, e, {}, { limit: e.list!.defaultLimit });
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const row = page.rows.find((r) => identity.every(([k, v]) => r[k] === v));
    if (!row) return skip(`the ${family.key} created by the run is not on the first page`);
    const wrong = compared.filter(([k, v]) => typeof row[k] === typeof v && row[k] !== v);
    if (wrong.length > 0) return fail(`the listed ${family.key} differs from what was created: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(row[k])} (sent ${JSON.stringify(v)})`).join(', ')}`, page.ex);
    const otherForm = compared.filter(([k, v]) => typeof row[k] !== typeof v).map(([k]) => k);
    return pass(`${compared.length - otherForm.length} fields as created${otherForm.length ? ` (${otherForm.join(', ')} shown in another form)` : ''}`);
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
 * Named filters of a list (spec: each list's query parameters, "exact" or "fuzzy"/contains) and the
 * common filter_field/filter_values/exact_match: every record returned matches the filter, and the
 * record the value was taken from is among them (unless the list samples before filtering).
 */
export async function runListFilters(ctx: ConformContext, e: EndpointContract, happy: Exchange, base: Record<string, unknown>): Promise<void> {
  const first = pageOf(happy);
  if (!first || first.rows.length === 0) return;
  const sampled = e.list!.sampleLimit !== undefined;

  const judge = (page: Page | Exchange, field: string, want: string, exact: boolean, source: Row): Verdict => {
    if (!isPage(page)) return fail(`the filtered list was refused: ${describeAnswer(page)}`, page);
    const bad = page.rows.filter((r) => {
      const v = fieldText(r, field);
      return v === undefined || (exact ? v !== want : !v.includes(want));
    });
    if (bad.length > 0) return fail(`${bad.length} of ${page.rows.length} records do not ${exact ? 'equal' : 'contain'} ${JSON.stringify(want)} in ${field}, e.g. ${JSON.stringify(bad[0][field])}`, page.ex);
    const found = page.rows.some((r) => fingerprint(r) === fingerprint(source));
    if (!found && !sampled && page.total <= page.rows.length) return fail(`the record ${fingerprint(source)} has ${field} ${JSON.stringify(source[field])} but is missing from the filtered list`, page.ex);
    return pass(`${page.rows.length} records, all ${exact ? 'equal to' : 'containing'} ${JSON.stringify(want)}`);
  };

  for (const p of e.params.filter((x) => x.match && x.type === 'string')) {
    const field = p.field ?? p.name;
    const source = first.rows.find((r) => typeof r[field] === 'string' && (r[field] as string).length > 0);
    if (!source) continue;
    const value = source[field] as string;
    const want = p.match === 'fuzzy' ? innerPart(value) : value;
    await ctx.check(e, `list.filter.${p.name}`, levelFor('MUST', p.source ?? e.response.source), async () =>
      settled(async () => judge(await fetchPage(ctx, e, base, { [p.name]: want }), field, want, p.match === 'exact', source)),
    );
    // An exact filter does not match on a part: the record the part comes from must not be returned.
    const part = innerPart(value);
    if (p.match === 'exact' && part !== value && !first.rows.some((r) => r[field] === part)) {
      await ctx.check(e, `list.filter.${p.name}.not-partial`, levelFor('MUST', p.source ?? e.response.source), async () =>
        settled(async () => {
          const page = await fetchPage(ctx, e, base, { [p.name]: part });
          if (!isPage(page)) return fail(`the filtered list was refused: ${describeAnswer(page)}`, page);
          const wrong = page.rows.filter((r) => fieldText(r, field) !== part);
          if (wrong.length > 0) return fail(`${p.name} is an exact filter, but ${JSON.stringify(part)} returned ${wrong.length} records whose ${field} only contains it, e.g. ${JSON.stringify(wrong[0][field])}`, page.ex);
          return pass(`${JSON.stringify(part)} (a part of ${JSON.stringify(value)}) matches no record: equality, not containment`);
        }),
      );
    }
  }

  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const field = [...e.list!.sortFields, ...IDENTITY_FIELDS].find((f) => props.includes(f) && first.rows.some((r) => typeof r[f] === 'string' && (r[f] as string).length > 0));
  if (!field) return;
  const source = first.rows.find((r) => typeof r[field] === 'string' && (r[field] as string).length > 0)!;
  const value = source[field] as string;
  // The spec lists filter_field, filter_values and exact_match without spelling out their matching: SHOULD.
  await ctx.check(e, 'list.filter_values.exact', 'SHOULD', async () =>
    settled(async () => judge(await fetchPage(ctx, e, base, { filter_field: field, filter_values: [value], exact_match: 'true' }), field, value, true, source)),
  );
  await ctx.check(e, 'list.filter_values.contains', 'SHOULD', async () =>
    settled(async () => judge(await fetchPage(ctx, e, base, { filter_field: field, filter_values: [innerPart(value)], exact_match: 'false' }), field, innerPart(value), false, source)),
  );
}

/** After a delete, the instance is gone from its list (spec: delete). */
export async function runGoneAfterDelete(ctx: ConformContext, deleteEndpoint: EndpointContract, family: ResourceFamily, fields: Record<string, unknown>): Promise<void> {
  const list = family.listPath ? ctx.endpoint('GET', family.listPath) : undefined;
  if (!list || !family.identity) return;
  const props = Object.keys(((list.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(family.identity(fields)).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(deleteEndpoint, 'delete.gone-from-list', levelFor('MUST', deleteEndpoint.response.source), async () => {
    const page = await fetchPage(ctx, list, {}, { limit: list.list!.defaultLimit });
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    if (page.rows.some((r) => identity.every(([k, v]) => r[k] === v))) return fail(`the deleted ${family.key} ${JSON.stringify(Object.fromEntries(identity))} is still listed`, page.ex);
    return pass(`the deleted ${family.key} is no longer listed`);
  });
}
