import fc from 'fast-check';
import { CONNECTOR_CATALOGUE } from '../../../fixtures/contract/connector-catalogue.ts';
import { endpointById } from '../../../fixtures/contract/index.ts';
import type { EndpointContract, ParamSpec } from '../../../fixtures/contract/types.ts';
import { A } from '../../conform/cite.ts';
import { mutationAssertion } from '../citations.ts';
import { BINDING_ENDPOINTS, FAMILIES, type FamilyKey, type FamilySpec } from '../reference-model/families.ts';
import { applyMutation, mutationsOf, objectValue, type Mutation, type MutationHooks } from './param-arbitraries.ts';
import { Sym } from './symbols.ts';
import { freeText, ipv4, ipv4Network, regexText, topicFilter, topicName } from './text.ts';

/**
 * Requests of the eight families, generated from the contract's ParamSpecs with the meaning the
 * spec gives some parameters (a topic filter, an address, a connector config of its type, a schema
 * of its language), so a "valid" request is valid under every reading of the spec. Names are
 * symbols from a few slots, so creates, deletes and lists of one run collide on purpose.
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

const paramOf = (e: EndpointContract, name: string): ParamSpec | undefined => e.params.find((p) => p.name === name);

const SCHEMA_TEXTS: readonly (readonly [string, string])[] = [
  ['json', '{"type":"object","properties":{"a":{"type":"string"}}}'],
  ['avro', '{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}'],
  ['protobuf', 'syntax = "proto3"; message M { string a = 1; }'],
];

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

/** Valid values for parameters whose spec gives them a meaning beyond type and length, per family. */
function overrides(key: FamilyKey, e: EndpointContract): Record<string, fc.Arbitrary<unknown>> {
  const f = FAMILIES[key];
  const name = paramOf(e, f.nameParam);
  const common: Record<string, fc.Arbitrary<unknown>> = { [f.nameParam]: nameArb(name?.maxLength ?? 64) };
  if (f.scopeParam) common[f.scopeParam] = fc.constant(Sym.tenant());
  switch (key) {
    case 'acl':
      return { ...common, topic: topicFilter(256), ip: fc.oneof(ipv4, ipv4Network) };
    case 'topic-rewrite':
      return { ...common, source_topic: topicFilter(256), dest_topic: topicName(256), regex: regexText(500) };
    case 'auto-subscribe':
      return { ...common, topic: topicFilter(256) };
    case 'connectors':
      return { ...common, topic_name: topicFilter(256), failure_strategy: failureStrategy };
    case 'blacklist':
      return { ...common, end_time: FUTURE_SECONDS };
    default:
      return common;
  }
}

/** Parameters generated together because one gives the other its meaning, and their generator. */
const PAIRED: Partial<Record<FamilyKey, readonly string[]>> = {
  acl: ['resource_type', 'resource_name'],
  blacklist: ['blacklist_type', 'resource_name'],
  connectors: ['connector_type', 'config'],
  schemas: ['schema_type', 'schema'],
};

function pairs(key: FamilyKey): fc.Arbitrary<Record<string, unknown>> | undefined {
  switch (key) {
    case 'acl':
      return fc.oneof(
        fc.record({ resource_type: fc.constantFrom('ClientId', 'User'), resource_name: freeText(1, 256) }),
        fc.record({ resource_type: fc.constant('Ip'), resource_name: ipv4 }),
      );
    case 'blacklist':
      return fc.oneof(
        fc.record({ blacklist_type: fc.constantFrom('ClientId', 'User', 'ClientIdMatch', 'UserMatch'), resource_name: freeText(1, 256) }),
        fc.record({ blacklist_type: fc.constant('Ip'), resource_name: ipv4 }),
        fc.record({ blacklist_type: fc.constant('IPCIDR'), resource_name: ipv4Network }),
      );
    case 'connectors':
      return fc.constantFrom(...CONNECTOR_CATALOGUE).map((t) => ({ connector_type: t.id, config: JSON.stringify(t.example) }));
    case 'schemas':
      return fc.constantFrom(...SCHEMA_TEXTS).map(([schema_type, schema]) => ({ schema_type, schema }));
    default:
      return undefined;
  }
}

/**
 * Optional parameters always sent, because whether they may be left out is open (connector
 * failure_strategy: "whether it may be omitted: not shown"; schema desc: required by the reference).
 */
const ALWAYS_SENT: Partial<Record<FamilyKey, readonly string[]>> = { connectors: ['failure_strategy'], schemas: ['desc'] };

/** A valid request for `e` (a create, update or delete of the family). */
export function validParams(key: FamilyKey, e: EndpointContract): fc.Arbitrary<Record<string, unknown>> {
  const o = overrides(key, e);
  const pair = e.id === FAMILIES[key].createId ? pairs(key) : undefined;
  const paired = new Set<string>(pair ? (PAIRED[key] ?? []) : []);
  const always = new Set(ALWAYS_SENT[key] ?? []);
  const singles = e.params.filter((p) => !paired.has(p.name)).map((p) => (always.has(p.name) ? { ...p, required: true } : p));
  const base = objectValue(singles, o);
  return pair ? fc.tuple(base, pair).map(([b, p]) => ({ ...b, ...p })) : base;
}

/** Mutation hooks: too-long names stay the run's, too-long config and schema texts stay well-formed. */
export function familyHooks(key: FamilyKey, e: EndpointContract): MutationHooks {
  const f = FAMILIES[key];
  return {
    fill(_p, path, length) {
      if (path === f.nameParam) return Sym.paddedName('z', length);
      if (f.scopeParam && path === f.scopeParam) return Sym.paddedTenant(length);
      if (key === 'connectors' && path === 'config') {
        const head = '{"local_file_path":"/tmp/mqsim-prop-';
        const tail = '.log"}';
        return `${head}${'x'.repeat(Math.max(0, length - head.length - tail.length))}${tail}`;
      }
      if (key === 'schemas' && path === 'schema') {
        const head = '{"type":"object","description":"';
        const tail = '"}';
        return `${head}${'x'.repeat(Math.max(0, length - head.length - tail.length))}${tail}`;
      }
      return undefined;
    },
    base(path) {
      if (path.startsWith('failure_strategy.')) return { failure_strategy: { strategy: 'dead_message_queue' } };
      if (key === 'connectors' && path === 'config') return { connector_type: 'file' };
      if (key === 'schemas' && path === 'schema') return { schema_type: 'json' };
      return undefined;
    },
    cites: (_p, path, rule) => ({ assertion: mutationAssertion(e, path, rule, 'body'), namingAssertion: A.errorsNamesParam }),
  };
}

/** Violations beyond the ParamSpecs that the contract's error cases fix (connector type and config). */
function extraMutations(key: FamilyKey, e: EndpointContract): Mutation[] {
  if (key !== 'connectors' || e.id !== FAMILIES.connectors.createId) return [];
  return [
    {
      path: 'connector_type',
      rule: 'bad-enum',
      value: 'no-such-type',
      assertion: mutationAssertion(e, 'connector_type', 'bad-enum', 'body'),
      namingAssertion: A.errorsNamesParam,
    },
    {
      path: 'config',
      rule: 'wrong-type',
      value: '{"local_file_path": ',
      base: { connector_type: 'file' },
      assertion: mutationAssertion(e, 'config', 'wrong-type', 'body'),
      namingAssertion: A.errorsNamesParam,
    },
  ];
}

export function mutationsFor(key: FamilyKey, e: EndpointContract): Mutation[] {
  return [...mutationsOf(e.params, 'body', familyHooks(key, e)), ...extraMutations(key, e)];
}

/** A request for `e` that is valid, or breaks exactly one rule (with the given odds). */
export function requestArb(key: FamilyKey, e: EndpointContract, invalidWeight = 1, validWeight = 3): fc.Arbitrary<GeneratedRequest> {
  const valid = validParams(key, e);
  const ms = mutationsFor(key, e);
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

export interface FamilyEndpoints {
  create: EndpointContract;
  delete: EndpointContract;
  list: EndpointContract;
  update?: EndpointContract;
}

export function familyEndpoints(f: FamilySpec): FamilyEndpoints {
  return {
    create: endpointById(f.createId),
    delete: endpointById(f.deleteId),
    list: endpointById(f.listId),
    ...(f.updateId ? { update: endpointById(f.updateId) } : {}),
  };
}

export function bindingEndpoints() {
  return {
    create: endpointById(BINDING_ENDPOINTS.create),
    delete: endpointById(BINDING_ENDPOINTS.delete),
    list: endpointById(BINDING_ENDPOINTS.list),
  };
}

/** Bind/unbind requests: a schema slot (the schemas' own) and a resource slot of the run. */
export function bindingRequestArb(e: EndpointContract, invalidWeight = 1): fc.Arbitrary<GeneratedRequest> {
  const valid = fc.record({
    tenant: fc.constant(Sym.tenant()),
    schema_name: nameArb(128),
    resource_name: fc.constantFrom('x', 'y').map((s) => Sym.name(`res-${s}`, 'plain')),
  }) as fc.Arbitrary<Record<string, unknown>>;
  const hooks: MutationHooks = {
    fill: (_p, path, n) => (path === 'tenant' ? Sym.paddedTenant(n) : Sym.paddedName(path === 'schema_name' ? 'z' : 'res-z', n)),
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
