import fc from 'fast-check';
import type { EndpointContract, ParamMeaning, ParamPair, ParamSpec, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { A } from '../../conform/cite.ts';
import { mutationAssertion } from './mutation-citations.ts';
import { applyMutation, mutationsOf, objectValue, type Mutation, type MutationHooks } from './param-arbitraries.ts';
import { Sym } from './symbols.ts';
import { freeText, ipv4, ipv4Network, regexText, topicFilter, topicName } from './text.ts';

/**
 * Requests of the contract's resource families, generated from their ParamSpecs with the meaning
 * the contract gives some parameters (a topic filter, an address, a connector config of its type,
 * a schema of its language), so a "valid" request is valid under every reading of the spec. Names
 * are symbols from a few slots, so creates, deletes and lists of one run collide on purpose. The
 * contract says what a parameter means; the generators for each meaning live here.
 */

export interface GeneratedRequest {
  /** Parameters, names as symbols (resolved per run). */
  params: Record<string, unknown>;
  /** The one rule the request breaks, if any. */
  mutation?: Mutation;
}

export const SLOTS = ['a', 'b', 'c'] as const;

/** A name of the run: one of the slots, mostly plain, sometimes with letters outside ASCII or at the maximum length. */
export function nameArb(maxLength: number, slots: readonly string[] = SLOTS): fc.Arbitrary<Sym> {
  return fc
    .tuple(
      fc.constantFrom(...slots),
      fc.constantFrom('plain', 'plain', 'plain', 'plain', 'unicode', 'max') as fc.Arbitrary<'plain' | 'unicode' | 'max'>,
    )
    .map(([slot, shape]) => Sym.name(slot, shape, maxLength));
}

/** Far-future ban ends (2096-2100): valid whatever the clock says. */
const FUTURE_SECONDS = fc.integer({ min: 4_000_000_000, max: 4_102_444_800 });

const failureStrategy = fc.oneof(
  fc.constant({ strategy: 'discard' }),
  fc.record({
    strategy: fc.constant('discard_after_retry'),
    retry_total_times: fc.integer({ min: 1, max: 10 }),
    wait_time_ms: fc.integer({ min: 1, max: 5000 }),
  }),
  fc.record(
    {
      strategy: fc.constant('dead_message_queue'),
      retry_total_times: fc.integer({ min: 1, max: 10 }),
      wait_time_ms: fc.integer({ min: 1, max: 5000 }),
      topic_name: topicName(256),
    },
    { requiredKeys: ['strategy'] },
  ),
);

/** The failure strategy whose fields are all allowed: set first to break one rule of a nested field. */
const FULL_FAILURE_STRATEGY = 'dead_message_queue';

/** Valid values of a parameter with a meaning beyond type and length. */
function meaningArb(meaning: ParamMeaning, p: ParamSpec): fc.Arbitrary<unknown> {
  if (typeof meaning === 'object') return nameArb(p.maxLength ?? 64); // an instance of the run in the same slots
  switch (meaning) {
    case 'topic-filter':
      return topicFilter(p.maxLength ?? 256);
    case 'topic-name':
      return topicName(p.maxLength ?? 256);
    case 'regex':
      return regexText(p.maxLength ?? 500);
    case 'ipv4-or-network':
      return fc.oneof(ipv4, ipv4Network);
    case 'far-future-time':
      return FUTURE_SECONDS;
    case 'failure-strategy':
      return failureStrategy;
  }
}

const paramOf = (e: EndpointContract, name: string): ParamSpec | undefined => e.params.find((p) => p.name === name);

/** Valid values for the name, the tenant and the parameters whose contract gives them a meaning. */
function overrides(family: ResourceFamilyContract, e: EndpointContract): Record<string, fc.Arbitrary<unknown>> {
  const name = paramOf(e, family.nameParam);
  const out: Record<string, fc.Arbitrary<unknown>> = { [family.nameParam]: nameArb(name?.maxLength ?? 64) };
  if (family.scopeParam) out[family.scopeParam] = fc.constant(Sym.tenant());
  for (const [param, meaning] of Object.entries(family.meanings ?? {})) {
    const p = paramOf(e, param);
    if (p) out[param] = meaningArb(meaning, p);
  }
  return out;
}

/** The generator of one value form of a typed pair's name. */
function namedFormArb(form: 'text' | 'ipv4' | 'ipv4-network', p: ParamSpec | undefined): fc.Arbitrary<unknown> {
  if (form === 'ipv4') return ipv4;
  if (form === 'ipv4-network') return ipv4Network;
  return freeText(p?.minLength ?? 0, p?.maxLength);
}

/** Valid combinations of a pair of parameters that are only valid together. */
function pairArb(pair: ParamPair, e: EndpointContract): fc.Arbitrary<Record<string, unknown>> {
  if (pair.kind === 'examples') return fc.constantFrom(...pair.examples) as fc.Arbitrary<Record<string, unknown>>;
  const forms = pair.forms.map((f) =>
    fc.record({
      [pair.type]: f.values.length === 1 ? fc.constant(f.values[0]) : fc.constantFrom(...f.values),
      [pair.name]: namedFormArb(f.form, paramOf(e, pair.name)),
    }),
  );
  return fc.oneof(...forms) as fc.Arbitrary<Record<string, unknown>>;
}

const pairParams = (pair: ParamPair): readonly string[] => (pair.kind === 'examples' ? pair.params : [pair.type, pair.name]);

/** A valid request for `e` (a create, update or delete of the family). */
export function validParams(family: ResourceFamilyContract, e: EndpointContract): fc.Arbitrary<Record<string, unknown>> {
  const o = overrides(family, e);
  const pairs = e.id === family.endpoints.create ? (family.pairs ?? []) : [];
  const paired = new Set<string>(pairs.flatMap(pairParams));
  const always = new Set(family.alwaysSent ?? []);
  const singles = e.params.filter((p) => !paired.has(p.name)).map((p) => (always.has(p.name) ? { ...p, required: true } : p));
  const base = objectValue(singles, o);
  if (pairs.length === 0) return base;
  return fc.tuple(base, ...pairs.map((p) => pairArb(p, e))).map(([b, ...ps]) => Object.assign({ ...b }, ...ps) as Record<string, unknown>);
}

/** Stem of the texts of exact length the families' own writers pad (a file name in /tmp). */
const PROPERTY_STEM = 'mqsim-prop-';

/** Mutation hooks: too-long names stay the run's, too-long config and schema texts stay well-formed. */
function familyHooks(family: ResourceFamilyContract, e: EndpointContract): MutationHooks {
  const strategies = Object.entries(family.meanings ?? {})
    .filter(([, m]) => m === 'failure-strategy')
    .map(([p]) => p);
  return {
    fill(_p, path, length) {
      if (path === family.nameParam) return Sym.paddedName('z', length);
      if (family.scopeParam && path === family.scopeParam) return Sym.paddedTenant(length);
      return family.fixture.textOfLength?.[path]?.(length, PROPERTY_STEM);
    },
    base(path) {
      const strategy = strategies.find((p) => path.startsWith(`${p}.`));
      if (strategy) return { [strategy]: { strategy: FULL_FAILURE_STRATEGY } };
      // A pair's text written to an exact length is valid for the combination it was written for.
      for (const pair of family.pairs ?? [])
        if (pair.kind === 'examples' && pair.lengthBase && pair.params.includes(path) && !(path in pair.lengthBase))
          return { ...pair.lengthBase };
      return undefined;
    },
    cites: (_p, path, rule) => ({ assertion: mutationAssertion(e, path, rule, 'body'), namingAssertion: A.errorsNamesParam }),
  };
}

/**
 * Violations beyond the ParamSpecs that the contract's error cases fix: the values a pair refuses
 * (an unknown connector type; a config that is not JSON, sent with the type its texts are written for).
 */
function extraMutations(family: ResourceFamilyContract, e: EndpointContract): Mutation[] {
  if (e.id !== family.endpoints.create) return [];
  const out: Mutation[] = [];
  for (const pair of family.pairs ?? []) {
    if (pair.kind !== 'examples') continue;
    for (const [path, value] of Object.entries(pair.refused ?? {})) {
      const selector = pair.lengthBase !== undefined && path in pair.lengthBase;
      const rule = selector ? 'bad-enum' : 'wrong-type';
      out.push({
        path,
        rule,
        value,
        ...(!selector && pair.lengthBase ? { base: { ...pair.lengthBase } } : {}),
        assertion: mutationAssertion(e, path, rule, 'body'),
        namingAssertion: A.errorsNamesParam,
      });
    }
  }
  return out;
}

export function mutationsFor(family: ResourceFamilyContract, e: EndpointContract): Mutation[] {
  return [...mutationsOf(e.params, 'body', familyHooks(family, e)), ...extraMutations(family, e)];
}

/** A request for `e` that is valid, or breaks exactly one rule (with the given odds). */
export function requestArb(
  family: ResourceFamilyContract,
  e: EndpointContract,
  invalidWeight = 1,
  validWeight = 3,
): fc.Arbitrary<GeneratedRequest> {
  const valid = validParams(family, e);
  const ms = mutationsFor(family, e);
  const arbs: { arbitrary: fc.Arbitrary<GeneratedRequest>; weight: number }[] = [
    { arbitrary: valid.map((params) => ({ params })), weight: validWeight },
  ];
  if (ms.length > 0 && invalidWeight > 0) {
    arbs.push({
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...ms))
        .map(([params, mutation]) => ({ params: applyMutation(params, mutation), mutation })),
      weight: invalidWeight,
    });
  }
  return fc.oneof(...arbs);
}

/** The parameter of a binding family that names the instance it attaches to (schema_name of a schema binding). */
export function attachedParam(binding: ResourceFamilyContract): string {
  const ref = Object.entries(binding.meanings ?? {}).find(([, m]) => typeof m === 'object' && m.family === binding.attachesTo);
  if (!ref) throw new Error(`binding family ${binding.key} has no parameter meaning an instance of ${binding.attachesTo}`);
  return ref[0];
}

/** A valid bind or unbind request: the run's tenant, a slot of the family attached to, a resource slot. */
export function bindingValidParams(binding: ResourceFamilyContract, e: EndpointContract): fc.Arbitrary<Record<string, unknown>> {
  const attached = attachedParam(binding);
  return fc.record({
    [binding.scopeParam ?? 'tenant']: fc.constant(Sym.tenant()),
    [attached]: nameArb(paramOf(e, attached)?.maxLength ?? 64),
    [binding.nameParam]: fc.constantFrom('x', 'y').map((s) => Sym.name(`res-${s}`, 'plain')),
  }) as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * Bind/unbind requests of a binding family: the run's tenant, a slot of the family it attaches to
 * (the schemas' own slots), and a resource slot of the run.
 */
export function bindingRequestArb(binding: ResourceFamilyContract, e: EndpointContract, invalidWeight = 1): fc.Arbitrary<GeneratedRequest> {
  const scope = binding.scopeParam ?? 'tenant';
  const attached = attachedParam(binding);
  const valid = bindingValidParams(binding, e);
  const hooks: MutationHooks = {
    fill: (_p, path, n) => (path === scope ? Sym.paddedTenant(n) : Sym.paddedName(path === attached ? 'z' : 'res-z', n)),
    cites: (_p, path, rule) => ({ assertion: mutationAssertion(e, path, rule, 'body'), namingAssertion: A.errorsNamesParam }),
  };
  const ms = mutationsOf(e.params, 'body', hooks);
  return fc.oneof(
    { arbitrary: valid.map((params) => ({ params })), weight: 3 },
    {
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...ms))
        .map(([params, mutation]) => ({ params: applyMutation(params, mutation), mutation })),
      weight: invalidWeight,
    },
  );
}
