import type { EndpointContract } from '../../../contract/core/types.ts';
import { A, cite, pagedAssertion } from '../cite.ts';
import { type ConformContext, describeAnswer, fail, inconclusive, pass, refusedAsInvalid, skip, type Verdict } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';
import { pathWithQuery } from '../../targets/target.ts';
import { toQuery } from '../param-values.ts';
import {
  fetchPage,
  fingerprint,
  IDENTITY_FIELDS,
  isPage,
  type Page,
  pageOf,
  type Row,
  settled,
  WHOLE,
  wholeList,
  withAlso,
} from './list-pages.ts';

/**
 * Filtering laws of every list (spec: each list's query parameters, "exact" or "fuzzy"/contains; the
 * common filter_field/filter_values/exact_match) and the project's decisions on how several values
 * combine and what an absent exact_match means.
 */

function fieldText(row: Row, field: string): string | undefined {
  const v = row[field];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A part of `value` for a contains-match: drops the first and last character when long enough. */
function innerPart(value: string): string {
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
function decisiveFilterValue(rows: readonly Row[], field: string, exact: boolean): { source: Row; want: string } | undefined {
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

  const judge = filterJudge(rows, sampled);
  await runNamedFilters(ctx, e, base, rows, judge);
  const filtered = await runFilterValues(ctx, e, base, whole, rows, judge);
  await runExactMatchDefault(ctx, e, base, filtered, sampled);
  await runFilterAnyValue(ctx, e, base, filtered, rows, sampled);
}

/** Judges a filtered page against the filter; `rows` is the unfiltered list (for the evidence in the message). */
type FilterJudge = (page: Page | Exchange, field: string, want: string, exact: boolean, source: Row) => Verdict;

/** Every record returned matches, and the record the value came from is among them (unless the list samples). */
function filterJudge(rows: readonly Row[], sampled: boolean): FilterJudge {
  return (page: Page | Exchange, field: string, want: string, exact: boolean, source: Row): Verdict => {
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
}

/** The named filters of a list (spec: each list's query parameters, "exact" or "fuzzy"/contains). */
async function runNamedFilters(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  rows: readonly Row[],
  judge: FilterJudge,
): Promise<void> {
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
}

/** What filter_values with one value showed, for the decisions that need a filter seen working. */
type FilteredBy = Map<string, { passed: boolean; field: string; pick: { source: Row; want: string } }>;

/** The common filter_field/filter_values/exact_match, with exact_match true and false. */
async function runFilterValues(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  whole: Page | Exchange,
  rows: readonly Row[],
  judge: FilterJudge,
): Promise<FilteredBy> {
  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const candidates = [...e.list!.sortFields, ...IDENTITY_FIELDS].filter((f) => props.includes(f));
  const filtered: FilteredBy = new Map();
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
  return filtered;
}

/** Two values of `field`, each matched (contains) by a record the other misses, and a record neither matches. */
function twoValuePick(rows: readonly Row[], field: string): { a: Row; b: Row; values: [string, string] } | undefined {
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
  filtered: FilteredBy,
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
  filtered: FilteredBy,
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
