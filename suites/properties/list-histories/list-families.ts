import { familyEndpoint, familyTag } from '../../../contract/family-rules.ts';
import type { ApiContract, EndpointContract, ParamPair, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { cite, sortAssertion } from '../../conform/cite.ts';

/**
 * What the list histories know of each family, read from the contract: its endpoints, the sort
 * fields whose order the model can know (the record's name and tenant, and create parameters the
 * list shows), the named filters of its list query with their match (exact or contains), and the
 * create parameters whose values a filter or a sort can see. Every family with a list that shows its
 * instances by name is covered; a binding family rides with the family it attaches to.
 */

/** Where the value of a record field comes from in the model. */
export type FieldSource = { kind: 'name' } | { kind: 'tenant' } | { kind: 'param'; param: string };

interface SortField {
  field: string;
  source: FieldSource;
  /** The statement listing it (the spec's query paragraph, or the decision/notes for extra fields). */
  assertion: string;
}

export interface NamedFilter {
  /** Query parameter. */
  param: string;
  /** Record field it matches. */
  field: string;
  match: 'exact' | 'fuzzy';
  source: FieldSource;
  /** The list's query statement that defines the filter. */
  assertion: string;
}

/** A create parameter a filter or a sort can see, with the values the histories give it. */
interface VisibleParam {
  param: string;
  /** Closed values (an enum, or the values of a typed pair's text forms); undefined: generated text. */
  values?: readonly string[];
}

export interface HistoryFamily {
  family: ResourceFamilyContract;
  tag: string;
  endpoints: { create: EndpointContract; delete: EndpointContract; list: EndpointContract; update?: EndpointContract };
  /** Schema bindings, for the schemas family: bind, unbind and their list. */
  binding?: { family: ResourceFamilyContract; create: EndpointContract; delete: EndpointContract; list: EndpointContract };
  sortFields: readonly SortField[];
  /** Sort fields of the contract the model cannot order, with why. */
  unjudgedSortFields: readonly { field: string; why: string }[];
  /** Named filters; for a tenant-scoped family the first is the tenant. */
  filters: readonly NamedFilter[];
  visible: readonly VisibleParam[];
  /** A pair of create parameters given together from the contract's examples (connector type and config). */
  examples?: { params: readonly string[]; examples: readonly Readonly<Record<string, unknown>>[] };
}

/**
 * Values that sort the same by code point and ignoring case (so every collation reading agrees):
 * `IPCIDR` and `Ip` do not (`IP…` < `Ip` by code point, `ip` < `ipcidr` ignoring case), so the
 * later of two disagreeing values is left out.
 */
export function orderAgreeing(values: readonly string[]): string[] {
  const kept: string[] = [];
  for (const v of values) {
    const agrees = kept.every((k) => Math.sign(codePointCompare(k, v)) === Math.sign(codePointCompare(k.toLowerCase(), v.toLowerCase())));
    if (agrees) kept.push(v);
  }
  return kept;
}

function codePointCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Letters and digits only, lower case: a value every reading of case and collation sorts alike. */
const PLAIN = /^[a-z0-9]+$/;

/** Where the list record's `field` comes from, or undefined when the server sets it (a time, a state). */
function sourceOf(f: ResourceFamilyContract, field: string): FieldSource | undefined {
  const l = f.listing!;
  if (field === l.nameField) return { kind: 'name' };
  if (f.scopeParam && field === l.tenantField) return { kind: 'tenant' };
  const shown = l.shows.find((s) => (s.field ?? s.param) === field && s.compare !== 'quota');
  return shown ? { kind: 'param', param: shown.param } : undefined;
}

function typedPairOf(f: ResourceFamilyContract, param: string): Extract<ParamPair, { kind: 'typed-name' }> | undefined {
  return f.pairs?.find(
    (p): p is Extract<ParamPair, { kind: 'typed-name' }> => p.kind === 'typed-name' && (p.type === param || p.name === param),
  );
}

/** The closed values a visible parameter takes, or undefined for generated text. */
function closedValues(f: ResourceFamilyContract, create: EndpointContract, param: string): readonly string[] | undefined {
  const pair = typedPairOf(f, param);
  if (pair && pair.type === param) {
    // Only types that name a plain text (ClientId, User…): an address would bring dots into the sort.
    return orderAgreeing(pair.forms.filter((x) => x.form === 'text').flatMap((x) => x.values));
  }
  const spec = create.params.find((p) => p.name === param);
  if (spec?.enum) return orderAgreeing(spec.enum.map(String));
  return undefined;
}

function examplesOf(f: ResourceFamilyContract, visible: readonly string[]): HistoryFamily['examples'] {
  const pair = f.pairs?.find(
    (p): p is Extract<ParamPair, { kind: 'examples' }> => p.kind === 'examples' && p.params.some((x) => visible.includes(x)),
  );
  if (!pair) return undefined;
  // Examples whose visible values are plain, so sorting by them agrees under every collation.
  const plain = pair.examples.filter((ex) => pair.params.filter((p) => visible.includes(p)).every((p) => PLAIN.test(String(ex[p]))));
  return { params: pair.params, examples: plain };
}

/** Families a list history covers, in the contract's order. */
export function historyFamilies(api: ApiContract): HistoryFamily[] {
  const out: HistoryFamily[] = [];
  for (const f of api.families) {
    if (!f.listing || f.attachesTo || !f.endpoints.list) continue;
    const create = familyEndpoint(api.endpoints, f, 'create');
    const del = familyEndpoint(api.endpoints, f, 'delete');
    const list = familyEndpoint(api.endpoints, f, 'list');
    const update = familyEndpoint(api.endpoints, f, 'update');
    const tag = familyTag(api, f);
    if (!create || !del || !list?.list || !tag) continue;

    const sortFields: SortField[] = [];
    const unjudgedSortFields: { field: string; why: string }[] = [];
    for (const field of list.list.sortFields) {
      const source = sourceOf(f, field);
      if (source) sortFields.push({ field, source, assertion: sortAssertion(list, field) });
      else
        unjudgedSortFields.push({
          field,
          why: 'its value is set by the server (a time or a run state), so the model cannot know the order',
        });
    }
    const filters: NamedFilter[] = [];
    for (const p of list.params) {
      if (!p.match || p.type !== 'string') continue;
      const field = p.field ?? p.name;
      const source = f.scopeParam && p.name === f.listing.tenantQuery ? ({ kind: 'tenant' } as const) : sourceOf(f, field);
      if (!source) continue;
      filters.push({ param: p.name, field, match: p.match, source, assertion: cite(list, 'match', p.name) });
    }
    filters.sort((a, b) => Number(b.source.kind === 'tenant') - Number(a.source.kind === 'tenant'));

    const visibleParams = [...new Set([...sortFields, ...filters].flatMap((x) => (x.source.kind === 'param' ? [x.source.param] : [])))];
    const examples = examplesOf(f, visibleParams);
    const visible = visibleParams.map((param) => {
      const values = examples?.params.includes(param)
        ? [...new Set(examples.examples.map((ex) => String(ex[param])))]
        : closedValues(f, create, param);
      return values ? { param, values } : { param };
    });

    const bindingFamily = api.families.find((b) => b.attachesTo === f.key);
    const bindingEndpoints =
      bindingFamily && (['create', 'delete', 'list'] as const).map((r) => familyEndpoint(api.endpoints, bindingFamily, r));
    const binding =
      bindingFamily && bindingEndpoints?.every((e) => e !== undefined)
        ? { family: bindingFamily, create: bindingEndpoints[0]!, delete: bindingEndpoints[1]!, list: bindingEndpoints[2]! }
        : undefined;

    out.push({
      family: f,
      tag,
      endpoints: { create, delete: del, list, ...(update ? { update } : {}) },
      ...(binding ? { binding } : {}),
      sortFields,
      unjudgedSortFields,
      filters,
      visible,
      ...(examples ? { examples } : {}),
    });
  }
  return out;
}
