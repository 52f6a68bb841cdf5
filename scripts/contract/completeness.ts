import fc from 'fast-check';
import { hasAssertion } from '../../contract/assertions/index.ts';
import { familyEndpoint, familyInRole, visibilityRules, type FamilyRole } from '../../contract/family-rules.ts';
import { toOpenApi } from '../../contract/to-openapi.ts';
import type { ApiContract, EndpointContract, ResourceFamilyContract, RunNames } from '../../contract/core/types.ts';
import { metaWritePolicy } from '../../sim/model/nodes/meta-write-gate.ts';
import type { HandlerTable } from '../../sim/admin-api/core/handler-types.ts';
import { declaredParams } from '../../contract/minimal-params.ts';
import { bindingValidParams, mutationsFor, validParams } from '../../suites/properties/arbitraries/family-requests.ts';
import { resolveParams } from '../../suites/properties/arbitraries/symbols.ts';
import { isModelled, modelledFamilies, type ModelledFamily } from '../../suites/properties/reference-model/families.ts';
import type { ScenarioSuite } from '../../suites/scenarios/index.ts';
import { effectOf } from '../chaos/api-history.ts';

/**
 * Everything derived from the contract, checked for each endpoint and each resource family: an
 * endpoint needs a handler, a write class when it is a POST, an OpenAPI operation and a scenario
 * suite for its tag; a family needs its endpoints, a fixture that builds a valid instance, a
 * reference-model entry (or the reason it has none), request generators, and visibility rules the
 * chaos history follows (or the reason its list shows no instances by name). The built-in API has
 * none missing (completeness.test.ts); a copy missing a part is reported, naming it.
 */

/** An implementation of an API: the contract, the simulator's handlers, the conformance scenario suites. */
export interface Implementation {
  api: ApiContract;
  handlers: HandlerTable;
  scenarioSuites: readonly ScenarioSuite[];
}

/** Names a fixture builder is called with here: any run's would do. */
const SAMPLE_NAMES: RunNames = { seed: 1, tenant: 'completeness-1', topic: 'completeness/1/topic' };

const paramNames = (e: EndpointContract | undefined): Set<string> => new Set(e ? declaredParams(e).map((p) => p.name) : []);
const recordFields = (e: EndpointContract): Set<string> =>
  new Set(Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {}));

function endpointProblems(impl: Implementation): string[] {
  const out: string[] = [];
  const paths = toOpenApi(impl.api.endpoints).paths as Record<string, Record<string, unknown> | undefined>;
  const ids = new Set<string>();
  for (const e of impl.api.endpoints) {
    const at = `endpoint ${e.id}`;
    if (ids.has(e.id)) out.push(`${at}: the id is declared twice`);
    ids.add(e.id);
    if (typeof impl.handlers[e.id] !== 'function') out.push(`${at}: no handler (sim/admin-api/handlers/<module>.ts)`);
    try {
      metaWritePolicy(e);
    } catch {
      out.push(`${at}: a POST without writeClass (metadata, metadata-self-checked or none)`);
    }
    if (!paths[e.path]?.[e.method.toLowerCase()]) out.push(`${at}: no operation in the OpenAPI export`);
    if (!impl.scenarioSuites.some((s) => s.tags.includes(e.tag))) out.push(`${at}: no scenario suite checks its tag ${e.tag}`);
  }
  return [...out, ...scenarioProblems(impl)];
}

/** Every scenario records its checks on an endpoint of the API, against an assertion of the catalogue. */
function scenarioProblems(impl: Implementation): string[] {
  const keys = new Set(impl.api.endpoints.map((e) => `${e.method} ${e.path}`));
  return impl.scenarioSuites.flatMap((suite) =>
    suite.scenarios.flatMap((s) => {
      const at = `scenario ${s.checks.join(', ')} (${suite.name})`;
      return [
        ...(keys.has(s.endpoint) ? [] : [`${at}: its endpoint ${s.endpoint} is not in the contract`]),
        ...(hasAssertion(s.assertion) ? [] : [`${at}: unknown assertion ${s.assertion} (contract/assertions/)`]),
      ];
    }),
  );
}

/** The family's endpoints exist, identify instances by parameters they take, and its listing names real fields. */
function shapeProblems(api: ApiContract, f: ResourceFamilyContract, at: string): string[] {
  const out: string[] = [];
  for (const [role, id] of Object.entries(f.endpoints) as [FamilyRole, string][])
    if (!familyEndpoint(api.endpoints, f, role)) out.push(`${at}: its ${role} endpoint ${id} is not in the contract`);
  const create = familyEndpoint(api.endpoints, f, 'create');
  const del = familyEndpoint(api.endpoints, f, 'delete');
  if (!create || !del) return out;
  if (create.method !== 'POST' || del.method !== 'POST') out.push(`${at}: create and delete must be POSTs`);
  if (familyInRole(api.families, 'create', create.id) !== f) out.push(`${at}: another family has the same create endpoint`);
  const createParams = paramNames(create);
  const deleteParams = paramNames(del);
  if (!f.identity.includes(f.nameParam)) out.push(`${at}: its name parameter ${f.nameParam} is not part of its identity`);
  if (f.scopeParam && !f.identity.includes(f.scopeParam))
    out.push(`${at}: its scope parameter ${f.scopeParam} is not part of its identity`);
  for (const p of f.identity)
    if (!createParams.has(p) || !deleteParams.has(p)) out.push(`${at}: identity parameter ${p} is not taken by both create and delete`);
  for (const p of [...Object.keys(f.meanings ?? {}), ...(f.alwaysSent ?? []), ...Object.keys(f.fixture.textOfLength ?? {})])
    if (!createParams.has(p)) out.push(`${at}: ${p} (a meaning, always-sent or exact-length parameter) is not a create parameter`);
  for (const pair of f.pairs ?? [])
    for (const p of pair.kind === 'examples' ? pair.params : [pair.type, pair.name])
      if (!createParams.has(p)) out.push(`${at}: paired parameter ${p} is not a create parameter`);
  for (const m of Object.values(f.meanings ?? {}))
    if (typeof m === 'object' && !api.families.some((x) => x.key === m.family))
      out.push(`${at}: a parameter refers to unknown family ${m.family}`);
  for (const a of [f.manages, ...(f.deleteBody ? [f.deleteBody] : [])]) if (!hasAssertion(a)) out.push(`${at}: unknown assertion ${a}`);
  if (!f.listing === !f.unlisted)
    out.push(`${at}: declares ${f.listing ? 'both a listing and why it has none' : 'neither a listing nor why it has none'}`);
  const list = familyEndpoint(api.endpoints, f, 'list');
  if (f.listing) {
    if (!list?.list) out.push(`${at}: a listing without a list endpoint`);
    else {
      const fields = recordFields(list);
      const query = paramNames(list);
      for (const x of [f.listing.nameField, ...(f.listing.tenantField ? [f.listing.tenantField] : [])])
        if (!fields.has(x)) out.push(`${at}: record field ${x} is not in the list's record schema`);
      for (const q of [f.listing.tenantQuery, f.listing.nameQuery])
        if (q !== undefined && !query.has(q)) out.push(`${at}: list query parameter ${q} is not a parameter of ${list.id}`);
      if (f.scopeParam && !f.listing.tenantField) out.push(`${at}: a scoped family whose records do not name their tenant`);
      for (const s of f.listing.shows)
        if (!createParams.has(s.param)) out.push(`${at}: the list shows ${s.param}, which the create does not take`);
    }
  }
  return out;
}

/** Conformance: the fixture builds a valid instance (every required create parameter) after what it depends on. */
function fixtureProblems(api: ApiContract, f: ResourceFamilyContract, at: string): string[] {
  const out: string[] = [];
  const create = familyEndpoint(api.endpoints, f, 'create');
  if (!create) return out;
  const fields = f.fixture.fields(SAMPLE_NAMES, '');
  // A required parameter left out is sent with its default or first enum value (buildParams); any other must be given.
  for (const p of create.params)
    if (p.required && fields[p.name] === undefined && p.default === undefined && !p.enum?.length)
      out.push(`${at}: its fixture leaves out required ${p.name}`);
  if (JSON.stringify(f.fixture.fields(SAMPLE_NAMES, '-a')) === JSON.stringify(fields))
    out.push(`${at}: its fixture ignores the suffix, so two instances would collide`);
  if (!f.fixture.stem || api.families.some((x) => x !== f && x.fixture.stem === f.fixture.stem))
    out.push(`${at}: its fixture stem is empty or shared with another family`);
  const index = api.families.indexOf(f);
  for (const d of f.dependsOn ?? []) {
    const i = api.families.findIndex((x) => x.key === d);
    if (i < 0) out.push(`${at}: depends on unknown family ${d}`);
    else if (i > index) out.push(`${at}: depends on ${d}, which comes after it (fixtures are made in the families' order)`);
  }
  return out;
}

/** A few generated requests of `e`, each with every required parameter. */
function generatorProblems(arb: fc.Arbitrary<Record<string, unknown>>, e: EndpointContract, at: string): string[] {
  for (const params of fc.sample(arb, { seed: 1, numRuns: 5 })) {
    const resolved = resolveParams(params, { tenant: 't', prefix: 'p-' });
    const missing = e.params.filter((p) => p.required && resolved[p.name] === undefined).map((p) => p.name);
    if (missing.length > 0) return [`${at}: generated requests of ${e.id} leave out ${missing.join(', ')}`];
  }
  return [];
}

/** Property suites: a reference-model entry (or why none), and request generators giving every required parameter. */
function propertyProblems(f: ResourceFamilyContract, modelled: readonly ModelledFamily[], at: string): string[] {
  const out: string[] = [];
  const own = modelled.find((m) => m.family === f);
  const parent = f.attachesTo !== undefined ? modelled.find((m) => m.family.key === f.attachesTo) : undefined;
  if (isModelled(f) && !own) out.push(`${at}: no reference-model entry`);
  if (!own && !parent && f.unmodelled === undefined) out.push(`${at}: no reference-model entry, and no reason given (unmodelled)`);
  if (f.attachesTo !== undefined && !parent) out.push(`${at}: attaches to ${f.attachesTo}, which the reference model does not cover`);
  if (own) {
    for (const e of [own.endpoints.create, own.endpoints.delete, ...(own.endpoints.update ? [own.endpoints.update] : [])]) {
      out.push(...generatorProblems(validParams(f, e), e, at));
      if (mutationsFor(f, e).length === 0) out.push(`${at}: no invalid requests generated for ${e.id}`);
    }
  }
  if (parent?.binding?.family === f)
    for (const e of [parent.binding.endpoints.create, parent.binding.endpoints.delete])
      out.push(...generatorProblems(bindingValidParams(f, e), e, at));
  return out;
}

/** Chaos: every call that makes an instance appear or disappear is followed, by parameters that call takes. */
function visibilityProblems(api: ApiContract, f: ResourceFamilyContract, at: string): string[] {
  const out: string[] = [];
  if (!f.listing) return out;
  for (const rule of visibilityRules(f)) {
    const e = api.endpoints.find((x) => x.id === rule.endpoint);
    if (!e) {
      out.push(`${at}: visibility rule on unknown endpoint ${rule.endpoint}`);
      continue;
    }
    const params = paramNames(e);
    const name = rule.nameParam ?? f.nameParam;
    const scope = f.scopeParam ? (rule.scopeParam ?? f.scopeParam) : undefined;
    for (const p of [name, ...(scope ? [scope] : [])])
      if (!params.has(p)) out.push(`${at}: visibility rule on ${e.id} reads ${p}, which it does not take`);
    const effect = effectOf({ method: e.method, path: e.path, body: { [name]: 'n', ...(scope ? { [scope]: 't' } : {}) } }, api);
    if (effect?.family !== f.key || effect.name !== 'n' || effect.present !== (rule.effect === 'appears'))
      out.push(`${at}: the chaos history does not follow ${e.id} (another family's rule on the same endpoint?)`);
  }
  return out;
}

/** Every derived part an endpoint or family of `impl` lacks, one line each (empty: complete). */
export function missingParts(impl: Implementation): string[] {
  const out = endpointProblems(impl);
  const { api } = impl;
  // Families naming endpoints the contract lacks are reported below, not modelled.
  const resolved = api.families.filter((f) => Object.values(f.endpoints).every((id) => api.endpoints.some((e) => e.id === id)));
  let modelled: ModelledFamily[] = [];
  try {
    modelled = modelledFamilies({ ...api, families: resolved });
  } catch (e) {
    out.push(`reference model: ${(e as Error).message}`);
  }
  const keys = new Set<string>();
  for (const f of api.families) {
    const at = `family ${f.key}`;
    if (keys.has(f.key)) out.push(`${at}: the key is declared twice`);
    keys.add(f.key);
    const shape = shapeProblems(api, f, at);
    out.push(...shape);
    if (shape.some((p) => p.includes('is not in the contract'))) continue;
    out.push(...fixtureProblems(api, f, at), ...propertyProblems(f, modelled, at), ...visibilityProblems(api, f, at));
  }
  return out;
}
