import fc from 'fast-check';
import { buildParams } from '../../../contract/minimal-params.ts';
import type { HistoryFamily, NamedFilter } from './list-families.ts';

/**
 * The steps of a list history, as data: writes (create, delete, tenant update; a create of a name
 * that exists is the upsert or refusal the spec leaves open), list reads (filters, a sort field in
 * either direction, limit and page), the previous read again (as it was, or in the other
 * direction), and schema binds with their list. Names are symbolic: `{B}` stands for the run's base
 * name, so a generated history is the same case in whatever run (shrinking, replay) executes it.
 *
 * Every value a filter or a sort can see is lower-case letters and digits (or an enum value that
 * sorts alike by code point and ignoring case), from a small alphabet, so names are prefixes of each
 * other, filters are prefixes and middles of several names, and sort keys are often equal.
 */

/** The run's base name in symbolic values. */
export const B = '{B}';
/** The run's two tenants, one a prefix of the other (a contains filter on the first matches both). */
export const RUN_TENANTS = [`${B}s`, `${B}ss`] as const;

/** The alphabet of names, filters and visible values. */
const ALPHABET = ['a', 'b', '1'] as const;

/**
 * A filter value taken, when the step runs, from the values the history has written in that field
 * (the `pick`-th, modulo their number): whole, or a prefix, a middle or a suffix of it. So filters
 * are parts of names the run really has, or had.
 */
export interface ValueRef {
  pick: number;
  cut: 'whole' | 'prefix' | 'middle' | 'suffix';
}

export type FilterValue = string | ValueRef;

/**
 * A page taken, when the read runs, from the number of records the model says match: `inside` the
 * `pick`-th page that holds records (modulo their number), or the first page `past` the end.
 */
type PageRef = { inside: number } | 'past';

export interface QuerySpec {
  /** Named filters by query parameter (symbolic values or references to written values). */
  filters: Readonly<Record<string, FilterValue>>;
  sort?: { field: string; by: 'asc' | 'desc' };
  limit: number;
  page: number | PageRef;
}

export type Step =
  /**
   * A write. `again`: the identity (tenant and name) of the `again`-th instance the history has
   * written in this family, modulo their number (a re-create, an upsert, a delete of what exists or
   * was deleted), instead of the generated one; the generated one when there is none yet.
   */
  | { kind: 'create' | 'delete' | 'update'; tag: string; params: Readonly<Record<string, unknown>>; again?: number }
  /** A list read; `then`: read again at once, as it was or in the other direction. */
  | { kind: 'list'; tag: string; query: QuerySpec; then?: 'same' | 'flip' }
  /** The family's previous list read again: as it was, or with the other sort direction. */
  | { kind: 'again'; tag: string; flip: boolean }
  | { kind: 'bind' | 'unbind'; tag: string; params: Readonly<Record<string, unknown>> }
  /** The bindings of one schema of the run's first tenant. */
  | { kind: 'bindings'; tag: string; schema: string };

const word = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: min, maxLength: max });

/** A short word, short ones most often, so writes meet the same names again (deletes, re-creates, upserts). */
const shortWord = (max: number): fc.Arbitrary<string> =>
  fc.oneof(...Array.from({ length: max }, (_, i) => ({ arbitrary: word(i + 1, i + 1), weight: 2 ** (max - 1 - i) })));

/** A name of a tenant-scoped instance: `a`, `ab`, `1b`… */
const scopedName = shortWord(3);
const maybeLetter = (emptyWeight: number) =>
  fc.oneof({ arbitrary: fc.constant(''), weight: emptyWeight }, { arbitrary: word(1, 1), weight: 1 });
/** A tenant made by the history: the base name with a short word after it, sometimes a letter before. */
const tenantName = fc.tuple(maybeLetter(3), shortWord(2)).map(([before, after]) => `${before}${B}${after}`);
/** A contains filter on tenant names: scoped to the run, and still a middle of several names. */
const tenantFilter = fc.tuple(maybeLetter(3), maybeLetter(2)).map(([before, after]) => `${before}${B}${after}`);

const scopeTenant = fc.oneof({ arbitrary: fc.constant(RUN_TENANTS[0]), weight: 3 }, { arbitrary: fc.constant(RUN_TENANTS[1]), weight: 1 });

/** A reference to a written instance, `weight` times as often as none. */
const againArb = (weight: number): fc.Arbitrary<{ again?: number }> =>
  fc.oneof({ arbitrary: fc.constant({}), weight: 1 }, { arbitrary: fc.nat(20).map((again) => ({ again })), weight });

/** A filter value: a part of a value the history wrote in the field, or a short word. */
const valueRefArb: fc.Arbitrary<FilterValue> = fc.oneof(
  {
    arbitrary: fc.record({
      pick: fc.nat(20),
      cut: fc.constantFrom('whole' as const, 'prefix' as const, 'middle' as const, 'suffix' as const),
    }),
    weight: 3,
  },
  { arbitrary: shortWord(2), weight: 2 },
);

/**
 * The name of an instance in one of the run's tenants. The spec does not give every family's names
 * a tenant scope (connector names have none; the real server keeps them unique across tenants, and
 * its delete finds one by name alone), so a name is never used in both tenants: the second tenant's
 * names end in `s`, a letter the alphabet lacks. Either reading then gives the same answers.
 */
function nameIn(tenant: string | undefined, name: string): string {
  return tenant === RUN_TENANTS[1] ? `${name}s` : name;
}

/** The parameters of a create: the fixture's valid instance, with the history's name, tenant and visible values. */
function createArb(h: HistoryFamily): fc.Arbitrary<Record<string, unknown>> {
  const f = h.family;
  const visible: Record<string, fc.Arbitrary<unknown>> = {};
  for (const v of h.visible) {
    if (h.examples?.params.includes(v.param)) continue;
    visible[v.param] = v.values ? fc.constantFrom(...v.values) : shortWord(2);
  }
  const examples = h.examples && h.examples.examples.length > 0 ? fc.constantFrom(...h.examples.examples) : fc.constant({});
  return fc
    .tuple(f.scopeParam ? scopeTenant : fc.constant(undefined), f.scopeParam ? scopedName : tenantName, fc.record(visible), examples)
    .map(([tenant, name, values, example]) => {
      const base = f.fixture.fields({ seed: 0, tenant: tenant ?? RUN_TENANTS[0], topic: 'tp' }, '');
      const fields: Record<string, unknown> = { ...base, ...example, ...values, [f.nameParam]: nameIn(tenant, name) };
      if (f.scopeParam) fields[f.scopeParam] = tenant;
      // Texts the list does not read keep the fixture's value; a topic or pattern field gets a plain one.
      return buildParams(h.endpoints.create, fields);
    });
}

function identityArb(h: HistoryFamily): fc.Arbitrary<Record<string, unknown>> {
  const f = h.family;
  return fc
    .tuple(f.scopeParam ? scopeTenant : fc.constant(undefined), f.scopeParam ? scopedName : tenantName)
    .map(([tenant, name]) =>
      buildParams(h.endpoints.delete, { ...(f.scopeParam ? { [f.scopeParam]: tenant } : {}), [f.nameParam]: nameIn(tenant, name) }),
    );
}

/** A tenant update: a history tenant or the run's first tenant, with a new description. */
function updateArb(h: HistoryFamily): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.oneof(tenantName, fc.constant(RUN_TENANTS[0])), word(1, 4))
    .map(([name, desc]) => buildParams(h.endpoints.update!, { [h.family.nameParam]: name, desc: `updated ${desc}` }));
}

/** A value of a filter: the scope of the run for the tenant, a part of a written value (or a short word) elsewhere. */
function filterValueArb(h: HistoryFamily, filter: NamedFilter): fc.Arbitrary<FilterValue> {
  if (filter.source.kind === 'tenant') return filter.match === 'exact' ? scopeTenant : fc.oneof(scopeTenant, fc.constant(B));
  if (!h.family.scopeParam && filter.source.kind === 'name') return tenantFilter;
  return valueRefArb;
}

/** Page 1 most often, then a page holding records, the first past the end, or a number. */
const pageArb: fc.Arbitrary<number | PageRef> = fc.oneof(
  { arbitrary: fc.constant<number | PageRef>(1), weight: 3 },
  { arbitrary: fc.nat(6).map<number | PageRef>((inside) => ({ inside })), weight: 3 },
  { arbitrary: fc.constant<number | PageRef>('past'), weight: 1 },
  { arbitrary: fc.integer({ min: 2, max: 5 }).map<number | PageRef>((n) => n), weight: 1 },
);

/** A sort field; the tenant less often (the run's records live in two tenants, so its keys are mostly equal). */
function sortFieldArb(h: HistoryFamily): fc.Arbitrary<string> {
  return fc.oneof(...h.sortFields.map((s) => ({ arbitrary: fc.constant(s.field), weight: s.source.kind === 'tenant' ? 1 : 3 })));
}

/** A list read: always scoped to the run (its tenant, or its base name in the tenant filter), `limit` always sent. */
function queryArb(h: HistoryFamily): fc.Arbitrary<QuerySpec> {
  const [scope, ...others] = h.family.scopeParam
    ? h.filters
    : [h.filters.find((x) => x.source.kind === 'name')!, ...h.filters.filter((x) => x.source.kind !== 'name')];
  const optional = others.filter((x) => x !== scope);
  return fc
    .record({
      scope: filterValueArb(h, scope),
      more: fc.tuple(...optional.map((x) => fc.option(filterValueArb(h, x), { freq: 3, nil: undefined }))),
      sort:
        h.sortFields.length === 0
          ? fc.constant(undefined)
          : fc.option(fc.record({ field: sortFieldArb(h), by: fc.constantFrom('asc' as const, 'desc' as const) }), {
              freq: 4,
              nil: undefined,
            }),
      limit: fc.integer({ min: 1, max: 7 }),
      page: pageArb,
    })
    .map(({ scope: s, more, sort, limit, page }) => {
      const filters: Record<string, FilterValue> = { [scope.param]: s };
      more.forEach((v, i) => {
        if (v !== undefined) filters[optional[i].param] = v;
      });
      return { filters, ...(sort ? { sort } : {}), limit, page };
    });
}

/** The steps of one family, weighted toward writes and reads that collide. */
function familySteps(h: HistoryFamily): fc.Arbitrary<Step> {
  const tag = h.tag;
  const arbs: { arbitrary: fc.Arbitrary<Step>; weight: number }[] = [
    {
      arbitrary: fc.tuple(createArb(h), againArb(1)).map(([params, again]) => ({ kind: 'create' as const, tag, params, ...again })),
      weight: 4,
    },
    {
      arbitrary: fc.tuple(identityArb(h), againArb(3)).map(([params, again]) => ({ kind: 'delete' as const, tag, params, ...again })),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(queryArb(h), fc.constantFrom(undefined, undefined, 'same' as const, 'flip' as const))
        .map(([query, then]) => ({ kind: 'list' as const, tag, query, ...(then ? { then } : {}) })),
      weight: 4,
    },
    { arbitrary: fc.boolean().map((flip) => ({ kind: 'again' as const, tag, flip })), weight: 2 },
  ];
  if (h.endpoints.update) arbs.push({ arbitrary: updateArb(h).map((params) => ({ kind: 'update' as const, tag, params })), weight: 1 });
  if (h.binding) {
    const b = h.binding;
    const bind = fc.tuple(scopedName, word(1, 2)).map(([schema, resource]) => ({
      [b.family.scopeParam ?? 'tenant']: RUN_TENANTS[0],
      schema_name: schema,
      [b.family.nameParam]: resource,
    }));
    arbs.push(
      { arbitrary: bind.map((params) => ({ kind: 'bind' as const, tag, params })), weight: 1 },
      { arbitrary: bind.map((params) => ({ kind: 'unbind' as const, tag, params })), weight: 1 },
      { arbitrary: scopedName.map((schema) => ({ kind: 'bindings' as const, tag, schema })), weight: 1 },
    );
  }
  return fc.oneof(...arbs);
}

/** The steps of each family: the sources of a history's bursts. */
export function stepSources(families: readonly HistoryFamily[]): fc.Arbitrary<Step>[] {
  return families.map(familySteps);
}

/** Replaces the run's base name in a symbolic value. */
export function resolveRun<T>(value: T, base: string): T {
  if (typeof value === 'string') return value.split(B).join(base) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => resolveRun(v, base)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveRun(v, base);
    return out as T;
  }
  return value;
}

/** A step as a line of a counterexample (symbolic names: `{B}` is the run's base name). */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'list':
      return `list ${step.tag} ${describeQuery(step.query)}${step.then === 'same' ? ', twice' : step.then === 'flip' ? ', then in the other direction' : ''}`;
    case 'again':
      return `list ${step.tag} again${step.flip ? ', other direction' : ''}`;
    case 'bindings':
      return `list ${step.tag} bindings of ${step.schema}`;
    default:
      return `${step.kind} ${step.tag} ${JSON.stringify(step.params)}${'again' in step && step.again !== undefined ? ` (identity of written instance #${step.again})` : ''}`;
  }
}

/** The query with the other sort direction (the same query when unsorted). */
export function flipped<Q extends QuerySpec>(q: Q): Q {
  return q.sort ? { ...q, sort: { ...q.sort, by: q.sort.by === 'asc' ? 'desc' : 'asc' } } : q;
}

export function describeQuery(q: QuerySpec): string {
  const parts = Object.entries(q.filters).map(([k, v]) => `${k}=${typeof v === 'string' ? v : `<${v.cut} of written value #${v.pick}>`}`);
  if (q.sort) parts.push(`sort_field=${q.sort.field}`, `sort_by=${q.sort.by}`);
  const page =
    typeof q.page === 'number' ? String(q.page) : q.page === 'past' ? '<past the end>' : `<page holding records #${q.page.inside}>`;
  parts.push(`limit=${q.limit}`, `page=${page}`);
  return parts.join('&');
}
