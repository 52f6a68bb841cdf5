import type { Entry, FamilyModel, Ident } from './family-model.ts';
import type { Shown } from './record-match.ts';

/**
 * One page of a filtered, sorted, paged list judged against the reference model, by what the spec
 * states: the records of the page match the filters and exist after the acknowledged writes; the
 * page is the requested slice of the matching records (its sort keys, when sorted, are the slice of
 * the model's sorted keys: which of several records with equal keys shows is not judged); there are
 * no more records than `limit`, and none past the end; `total_count` is the number of matching
 * records. Without a sort field, the order is not judged (the spec does not give one).
 *
 * The model may hold several possible states (an instance a 5xx left "maybe" there, an accepted
 * duplicate create that may have kept the old values or taken the new ones). A page conforms when
 * one combination of those states (a world) explains it; the worlds it rules out are then dropped
 * from the model, so later pages are judged against what the target showed.
 */

/** The values of the fields a query reads (name, tenant, filter and sort fields), as texts. */
type RecordView = Readonly<Record<string, string>>;

export interface PageQuery {
  /** The first filter (query parameter) a record with these values fails, or undefined when it matches. */
  failedFilter(view: RecordView): string | undefined;
  sort?: { field: string; descending: boolean };
  limit: number;
  page: number;
}

export interface PageAnswer {
  rows: readonly Record<string, unknown>[];
  total: number;
}

/** What is wrong with a page, most telling first. */
const PROBLEM_KINDS = [
  'not-a-record',
  'unknown-record',
  'missing-record',
  'filter',
  'values',
  'duplicate',
  'total',
  'page-size',
  'order',
] as const;
type ProblemKind = (typeof PROBLEM_KINDS)[number];

export interface PageProblem {
  kind: ProblemKind;
  text: string;
  /** For `filter`: the query parameter the record does not match. */
  param?: string;
  /** For `missing-record`: the instances the page must show and does not. */
  missing?: Ident[];
}

export type PageVerdict =
  | { kind: 'conforms'; worlds: number }
  /** No world explains the page; the problems of the world that comes closest. */
  | { kind: 'deviates'; problems: PageProblem[] }
  /** Too many possible states to try, and a page that does not show them all: read the whole list first. */
  | { kind: 'undecided'; worlds: number };

/** How the judge reads the model's instances and the target's rows. */
export interface PageReader {
  /** The fields the query reads of an instance in one of its possible states. */
  viewOf(ident: Ident, shown: Shown): RecordView;
  /** The same fields of a row of the answer. */
  rowView(row: Record<string, unknown>): RecordView;
}

/** Worlds tried at most before a page must show every matching record to be judged. */
export const MAX_WORLDS = 512;

const OUT = undefined;
type Option = RecordView | typeof OUT;

interface Ambiguous {
  key: string;
  entry: Entry;
  options: Option[];
}

/** Sort keys compare as lower-case texts by code point: the histories only write values every collation orders alike. */
export const sortKey = (v: string): string => v.toLowerCase();

function sameView(a: RecordView, b: RecordView): boolean {
  return Object.keys(a).every((k) => sortKey(a[k]) === sortKey(b[k] ?? ''));
}

function viewText(v: RecordView): string {
  return JSON.stringify(v);
}

/** Each entry's distinct views, and the options it has under the query: out (absent or not matching) or in with a view. */
function optionsOf(model: FamilyModel, query: PageQuery, reader: PageReader): { fixed: Map<string, RecordView>; ambiguous: Ambiguous[] } {
  const fixed = new Map<string, RecordView>();
  const ambiguous: Ambiguous[] = [];
  for (const [key, entry] of model.entries) {
    const views = new Map<string, RecordView>();
    for (const c of entry.candidates) {
      const v = reader.viewOf(entry.ident, c);
      views.set(viewText(v), v);
    }
    const all = [...views.values()];
    const matching = all.filter((v) => query.failedFilter(v) === undefined);
    if (matching.length === 0) continue;
    const canBeOut = entry.maybe || matching.length < all.length;
    if (!canBeOut && matching.length === 1) fixed.set(key, matching[0]);
    else ambiguous.push({ key, entry, options: [...(canBeOut ? [OUT] : []), ...matching] });
  }
  return { fixed, ambiguous };
}

function worldCount(ambiguous: readonly Ambiguous[]): number {
  return ambiguous.reduce((n, a) => Math.min(n * a.options.length, Number.MAX_SAFE_INTEGER), 1);
}

/** How many states of the model a query's page must be judged against. */
export function worldsOf(model: FamilyModel, query: PageQuery, reader: PageReader): number {
  return worldCount(optionsOf(model, query, reader).ambiguous);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The problems of the page in one world (`inSet`: the matching records and their views). */
function problemsIn(
  model: FamilyModel,
  inSet: ReadonlyMap<string, RecordView>,
  query: PageQuery,
  answer: PageAnswer,
  reader: PageReader,
): PageProblem[] {
  const problems: PageProblem[] = [];
  const seen = new Set<string>();
  const offset = (query.page - 1) * query.limit;
  for (const row of answer.rows) {
    const ident = model.identOfRecord(row);
    if (!ident) {
      problems.push({ kind: 'not-a-record', text: `a row is not a record of the list: ${JSON.stringify(row).slice(0, 120)}` });
      continue;
    }
    const key = model.key(ident);
    const label = JSON.stringify(ident);
    if (seen.has(key)) problems.push({ kind: 'duplicate', text: `${label} shows twice on the page` });
    seen.add(key);
    const view = reader.rowView(row);
    const failed = query.failedFilter(view);
    const want = inSet.get(key);
    if (failed !== undefined)
      problems.push({ kind: 'filter', param: failed, text: `${label} (${viewText(view)}) does not match the filter ${failed}` });
    else if (!want)
      problems.push({
        kind: 'unknown-record',
        text: model.entries.has(key)
          ? `${label} is listed, but the acknowledged writes leave it out (deleted, or not matching)`
          : `${label} is listed, but no acknowledged write made it (or it was deleted)`,
      });
    else if (!sameView(want, view))
      problems.push({ kind: 'values', text: `${label} shows ${viewText(view)}, but the acknowledged writes give ${viewText(want)}` });
  }
  // A page that must hold every matching record: each one it leaves out is missing.
  if (offset === 0 && inSet.size <= query.limit) {
    const missing = [...inSet.keys()].filter((k) => !seen.has(k)).map((k) => model.entries.get(k)!.ident);
    if (missing.length > 0)
      problems.push({
        kind: 'missing-record',
        missing,
        text: `${missing.map((i) => JSON.stringify(i)).join(', ')} ${missing.length === 1 ? 'matches' : 'match'} the query after the acknowledged writes, but the page does not show ${missing.length === 1 ? 'it' : 'them'}`,
      });
  }
  if (answer.total !== inSet.size)
    problems.push({ kind: 'total', text: `total_count is ${answer.total}, but ${inSet.size} records match` });
  const expected = Math.max(0, Math.min(query.limit, inSet.size - offset));
  if (answer.rows.length !== expected)
    problems.push({
      kind: 'page-size',
      text: `page ${query.page} of limit ${query.limit} holds ${answer.rows.length} records; ${inSet.size} match, so it must hold ${expected}`,
    });
  const sort = query.sort;
  if (sort) {
    const keys = [...inSet.values()].map((v) => sortKey(v[sort.field] ?? '')).sort(compareKeys);
    if (sort.descending) keys.reverse();
    const want = keys.slice(offset, offset + query.limit);
    const got = answer.rows.map((r) => sortKey(reader.rowView(r)[sort.field] ?? ''));
    if (JSON.stringify(want) !== JSON.stringify(got))
      problems.push({
        kind: 'order',
        text: `sorted by ${sort.field} ${sort.descending ? 'desc' : 'asc'}, page ${query.page} of limit ${query.limit} has the keys [${got.join(', ')}], but the matching records' keys from position ${offset + 1} are [${want.join(', ')}] (of [${keys.join(', ')}])`,
      });
  }
  return problems.sort((a, b) => PROBLEM_KINDS.indexOf(a.kind) - PROBLEM_KINDS.indexOf(b.kind));
}

/** The one world the rows point to: each ambiguous instance as shown, or out when not shown. */
function shownWorld(model: FamilyModel, ambiguous: readonly Ambiguous[], answer: PageAnswer, reader: PageReader): Option[] {
  const rows = new Map<string, RecordView>();
  for (const r of answer.rows) {
    const ident = model.identOfRecord(r);
    if (ident) rows.set(model.key(ident), reader.rowView(r));
  }
  return ambiguous.map((a) => {
    const shown = rows.get(a.key);
    if (shown === undefined) return a.options.includes(OUT) ? OUT : a.options[0];
    return a.options.find((o) => o !== OUT && sameView(o, shown)) ?? a.options.find((o) => o !== OUT);
  });
}

function* allWorlds(ambiguous: readonly Ambiguous[]): Generator<Option[]> {
  const at = ambiguous.map(() => 0);
  for (;;) {
    yield ambiguous.map((a, i) => a.options[at[i]]);
    let i = 0;
    while (i < at.length && ++at[i] === ambiguous[i].options.length) at[i++] = 0;
    if (i === at.length) return;
  }
}

/**
 * Judges a page and, when it conforms, narrows the model to the states that explain it. A page
 * that holds every matching record (fewer rows than the limit on page 1) is judged in the one world
 * it shows; otherwise every world is tried, up to MAX_WORLDS.
 */
export function judgePage(model: FamilyModel, query: PageQuery, answer: PageAnswer, reader: PageReader): PageVerdict {
  const { fixed, ambiguous } = optionsOf(model, query, reader);
  const count = worldCount(ambiguous);
  const showsAll = query.page === 1 && answer.rows.length < query.limit;
  let worlds: Iterable<Option[]>;
  if (count <= MAX_WORLDS) worlds = allWorlds(ambiguous);
  else if (showsAll) worlds = [shownWorld(model, ambiguous, answer, reader)];
  else return { kind: 'undecided', worlds: count };

  const consistent: Option[][] = [];
  let closest: PageProblem[] | undefined;
  for (const world of worlds) {
    const inSet = new Map(fixed);
    world.forEach((o, i) => {
      if (o !== OUT) inSet.set(ambiguous[i].key, o);
    });
    const problems = problemsIn(model, inSet, query, answer, reader);
    if (problems.length === 0) consistent.push(world);
    else if (!closest || problems.length < closest.length || (problems.length === closest.length && rank(problems) < rank(closest)))
      closest = problems;
  }
  if (consistent.length === 0) return { kind: 'deviates', problems: closest ?? [] };
  const shown = new Set(answer.rows.map((r) => model.identOfRecord(r)).flatMap((i) => (i ? [model.key(i)] : [])));
  narrow(model, query, reader, ambiguous, consistent, (a) => showsAll || shown.has(a.key));
  return { kind: 'conforms', worlds: count };
}

/** Lower is more telling: a world whose worst problem is an order problem explains more than one showing a missing record. */
function rank(problems: readonly PageProblem[]): number {
  return -PROBLEM_KINDS.indexOf(problems[0].kind);
}

/**
 * Keeps, for each ambiguous instance the page shows (or, when the page holds every matching record,
 * leaves out), only the states some world explaining the page gives it. Of an instance the page
 * neither shows nor must show, only whether it is there is settled (by the count and the slice),
 * not its values: where the others stand is no evidence of them, since a page whose slice comes out
 * right for its old values may come from a server that keeps the record at the wrong place (a later
 * page then shows the fault as an order, not as a lost write).
 */
function narrow(
  model: FamilyModel,
  query: PageQuery,
  reader: PageReader,
  ambiguous: readonly Ambiguous[],
  consistent: readonly Option[][],
  evidence: (a: Ambiguous) => boolean,
): void {
  ambiguous.forEach((a, i) => {
    const allowed = consistent.map((w) => w[i]);
    const out = allowed.includes(OUT);
    const views = allowed.filter((o): o is RecordView => o !== OUT);
    if (!evidence(a)) {
      // Only whether it is there, and only when its values cannot decide that (every state matches the query).
      if (!a.entry.candidates.every((c) => query.failedFilter(reader.viewOf(a.entry.ident, c)) === undefined)) return;
      if (!out) a.entry.maybe = false;
      else if (views.length === 0) model.entries.delete(a.key);
      return;
    }
    const keep = (c: Shown) => {
      const v = reader.viewOf(a.entry.ident, c);
      if (query.failedFilter(v) !== undefined) return out;
      return views.some((w) => sameView(w, v));
    };
    const candidates = a.entry.candidates.filter(keep);
    if (candidates.length === 0) {
      model.entries.delete(a.key);
      return;
    }
    a.entry.candidates = candidates;
    // Shown on the page, or sure to match: it is there.
    if (!out) a.entry.maybe = false;
  });
}
