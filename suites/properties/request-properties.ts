import fc from 'fast-check';
import type { EndpointContract, ParamSpec, ResourceFamilyContract } from '../../contract/core/types.ts';
import { A } from '../conform/cite.ts';
import { levelOf, requestAssertion, servesAssertion } from './core/citations.ts';
import { mutationAssertion } from './arbitraries/mutation-citations.ts';
import { citeRuleOrDecision } from '../../contract/assertions/index.ts';
import { namesParam } from '../conform/envelope.ts';
import { declaredParams } from '../../contract/minimal-params.ts';
import { applyMutation, hasNonAscii, mutationsOf, objectValue, type Mutation } from './arbitraries/param-arbitraries.ts';
import { bindingRequestArb, requestArb, type GeneratedRequest } from './arbitraries/family-requests.ts';
import { describeValue, resolveParams, type Scope } from './arbitraries/symbols.ts';
import { checkAnswer, type Expectation } from './core/expectations.ts';
import { describeAnswer, type Answer, type PropertyClient } from './core/property-client.ts';
import type { PropertyDef } from './core/property-def.ts';
import type { ModelledFamily } from './reference-model/families.ts';
import { PropertyAbort, PropertyViolation, StepVerdict } from './core/violation.ts';

/**
 * Request properties: for every endpoint that is safe to call repeatedly (every GET with
 * parameters, and the creates of the eight families inside the run's tenant), requests generated
 * from the contract. A valid request is never refused as a parameter error, never answered 5xx and
 * always answered (it may still fail for a business reason, e.g. code 1 for an unknown topic). A
 * request that breaks one rule is refused as a parameter error (MUST), naming the parameter (SHOULD).
 */

export interface RequestPropertyOptions {
  client: PropertyClient;
  seed: number;
  numRuns: number;
  /** Tenant the creates work in (made by the caller before, deleted after). */
  tenant: string;
  runTag: string;
}

/**
 * Common list parameters not generated: how an array travels in a query string is not specified
 * (filter_values, and the filter_field/exact_match that go with it), and which sort fields an
 * endpoint accepts is partly a project decision (the conformance checks sort per field).
 */
const UNGENERATED = new Set(['filter_field', 'filter_values', 'exact_match', 'sort_field']);

/**
 * Valid paging values: 1 and up (the spec: pages start at 1; 0 has no agreed meaning), with the
 * largest u32 now and then, which a server must answer (an empty page) rather than overflow on.
 * sort_by only as the spec gives it, `asc` or `desc`: what another value means is a decision, and a
 * server may refuse it as a parameter error (list.sort_by.invalid accepts that).
 */
function queryOverrides(): Record<string, fc.Arbitrary<unknown>> {
  return {
    sort_by: fc.constantFrom('asc', 'desc'),
    limit: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 200 }), weight: 4 }, { arbitrary: fc.constant(4_294_967_295), weight: 1 }),
    page: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 5 }), weight: 4 }, { arbitrary: fc.constant(4_294_967_295), weight: 1 }),
  };
}

function queryParams(e: EndpointContract): ParamSpec[] {
  return declaredParams(e).filter((p) => !UNGENERATED.has(p.name));
}

/** GET endpoints with parameters, answered with an envelope. */
function readEndpoints(contract: readonly EndpointContract[]): EndpointContract[] {
  return contract.filter(
    (e) => e.method === 'GET' && e.response.kind === 'envelope' && e.path.startsWith('/api/') && queryParams(e).length > 0,
  );
}

/** The checks of one answer to a request valid by the contract. */
function checkValidAnswer(answer: Answer, params: Record<string, unknown>, verdict: StepVerdict, e: EndpointContract): void {
  const id = e.id;
  const ex = answer.exchange;
  if (answer.outcome === 'invalid') {
    const named = declaredParams(e).filter((p) => p.name in params && namesParam(answer.text, p.name));
    // The weakest statement the refusal could be about: the rules of the parameters it names (a
    // length the spec states only for another request is a decision), names outside ASCII (no
    // character set is given), else the endpoint's own request.
    const candidates = named.map(
      (p) =>
        citeRuleOrDecision(
          e.id,
          p.type === 'string' && (p.minLength !== undefined || p.maxLength !== undefined)
            ? 'length'
            : p.enum
              ? 'enum'
              : p.minimum !== undefined || p.maximum !== undefined
                ? 'range'
                : 'required',
          p.name,
        ).id,
    );
    if (hasNonAscii(params)) candidates.push(A.decisionNonAscii);
    if (candidates.length === 0) candidates.push(requestAssertion(e));
    const rank = { INFO: 0, SHOULD: 1, MUST: 2 } as const;
    const assertion = candidates.sort((a, b) => rank[levelOf(a)] - rank[levelOf(b)])[0];
    verdict.add(
      new PropertyViolation(
        assertion,
        id,
        'valid.not-refused',
        `a request valid by the contract was refused as a parameter error${named.length ? ` naming ${named.map((p) => p.name).join(', ')}` : ''}: ${describeAnswer(answer)}`,
        ex,
      ),
    );
  } else if (answer.outcome === 'server-error') {
    verdict.add(
      new PropertyViolation(
        servesAssertion(e),
        id,
        'valid.no-server-error',
        `a request valid by the contract got a server error: ${describeAnswer(answer)}`,
        ex,
      ),
    );
  } else if (answer.outcome === 'no-answer') {
    verdict.add(
      new PropertyViolation(
        servesAssertion(e),
        id,
        'valid.answered',
        `a request valid by the contract got no answer: ${describeAnswer(answer)}`,
        ex,
      ),
    );
  }
}

/**
 * A request breaking one rule must be refused as a parameter error. A read may instead answer for
 * a reason that comes first in the spec's words: a name longer than its limit cannot exist ("does not
 * exist"), or the component the endpoint needs is not running (mq9). The spec does not order these
 * checks, so such a refusal is accepted too.
 */
function invalidExpectation(m: Mutation, e: EndpointContract): Expectation {
  const otherReason =
    e.method === 'GET' && (m.rule === 'too-long' || m.rule === 'too-short' || e.errors.some((x) => x.id === 'component-not-running'));
  return {
    allowed: otherReason ? ['invalid', 'failure'] : ['invalid'],
    assertion: m.assertion,
    rule: `invalid.${m.rule}`,
    says: `a request with ${m.path} ${m.rule === 'missing' ? 'left out' : `breaking its rule (${m.rule})`} must be refused${otherReason ? '' : ' as a parameter error (HTTP 400 or code 400)'}`,
    namesParam: { param: m.path, assertion: m.namingAssertion },
  };
}

function describeRequest(e: EndpointContract, r: GeneratedRequest): string {
  return `${e.method} ${e.path} ${describeValue(r.params)}${r.mutation ? ` — breaks ${r.mutation.path} (${r.mutation.rule})` : ' — valid'}`;
}

function readProperty(e: EndpointContract, options: RequestPropertyOptions): PropertyDef {
  const o = { ...options, client: options.client.child() };
  const specs = queryParams(e);
  const valid = objectValue(specs, queryOverrides());
  const ms = mutationsOf(specs, 'query', {
    cites: (_p, path, rule) => ({ assertion: mutationAssertion(e, path, rule, 'query'), namingAssertion: A.errorsNamesParam }),
  });
  // Invalid cases twice as often: each breaks one of many rules, a valid case only needs a few samples.
  const arb: fc.Arbitrary<GeneratedRequest> = fc.oneof(
    { arbitrary: valid.map((params) => ({ params })), weight: 1 },
    ...(ms.length > 0
      ? [
          {
            arbitrary: fc
              .tuple(valid, fc.constantFrom(...ms))
              .map(([params, mutation]) => ({ params: applyMutation(params, mutation), mutation })),
            weight: 2,
          },
        ]
      : []),
  );
  return requestPropertyDef(e, o, arb, async (r, verdict) => {
    const answer = await o.client.call(e, r.params, verdict);
    if (r.mutation) checkAnswer(answer, invalidExpectation(r.mutation, e), verdict);
    else checkValidAnswer(answer, r.params, verdict, e);
  });
}

/**
 * The property of one endpoint's generated requests: `body` checks one request into the verdict;
 * an abort (the target stopped answering) ends the whole property, not just this case.
 */
function requestPropertyDef(
  e: EndpointContract,
  o: RequestPropertyOptions,
  arb: fc.Arbitrary<GeneratedRequest>,
  body: (r: GeneratedRequest, verdict: StepVerdict) => Promise<void>,
): PropertyDef {
  const def: PropertyDef = {
    id: `requests.${e.id}`,
    checkId: 'property.requests',
    endpoints: [e],
    assertion: requestAssertion(e),
    commands: false,
    numRuns: o.numRuns,
    client: o.client,
    build(minLevel) {
      return fc.asyncProperty(arb, async (r) => {
        if (def.aborted) throw def.aborted;
        const verdict = new StepVerdict(minLevel);
        try {
          await body(r, verdict);
        } catch (err) {
          if (err instanceof PropertyAbort) def.aborted = err;
          throw err;
        }
        verdict.throwIfAny();
      });
    },
    describe: (v) => [describeRequest(e, v as GeneratedRequest)],
  };
  return def;
}

/**
 * The create property of a family (`binding`: a binding family, whose requests name an instance of
 * the family it attaches to); each accepted instance is deleted again at once, by its identity.
 */
function createProperty(
  family: ResourceFamilyContract,
  e: EndpointContract,
  undo: EndpointContract,
  binding: boolean,
  options: RequestPropertyOptions,
): PropertyDef {
  const o = { ...options, client: options.client.child() };
  const arb = binding ? bindingRequestArb(family, e, 2) : requestArb(family, e, 2, 1);
  const identity = family.identity;
  let runs = 0;
  return requestPropertyDef(e, o, arb, async (r, verdict) => {
    const n = ++runs;
    // The unscoped family (tenants) names its instances under a prefix of their own; so does a binding
    // family, or its names would be those the create property of the family it attaches to makes in
    // the same tenant at the same run number: what a bind finds would depend on which property ran first.
    const scope: Scope = {
      tenant: o.tenant,
      prefix: !family.scopeParam ? `pq${o.seed}-${o.runTag}r${n}-` : `${o.runTag}${binding ? 'b' : 'q'}${n}-`,
    };
    const params = resolveParams(r.params, scope);
    try {
      const answer = await o.client.call(e, params, verdict);
      if (answer.outcome === 'ok' || answer.outcome === 'server-error' || answer.outcome === 'no-answer') {
        const ident: Record<string, unknown> = {};
        for (const p of identity) ident[p] = params[p];
        if (identity.every((p) => typeof ident[p] === 'string')) await o.client.call(undo, ident).catch(() => undefined);
      }
      if (r.mutation) checkAnswer(answer, invalidExpectation(r.mutation, e), verdict);
      else checkValidAnswer(answer, params, verdict, e);
      verdict.throwIfAny();
    } catch (err) {
      if (err instanceof PropertyViolation) err.names = `$TENANT = ${scope.tenant}, $PREFIX = ${scope.prefix}`;
      throw err;
    }
  });
}

/** The request properties of the given endpoints (reads) and of the modelled families and their bindings (creates). */
export function requestProperties(
  contract: readonly EndpointContract[],
  families: readonly ModelledFamily[],
  o: RequestPropertyOptions,
): PropertyDef[] {
  const ids = new Set(contract.map((e) => e.id));
  const defs: PropertyDef[] = readEndpoints(contract).map((e) => readProperty(e, o));
  const inRun = (a: EndpointContract, b: EndpointContract) => ids.has(a.id) && ids.has(b.id);
  for (const m of families)
    if (inRun(m.endpoints.create, m.endpoints.delete))
      defs.push(createProperty(m.family, m.endpoints.create, m.endpoints.delete, false, o));
  for (const { binding } of families)
    if (binding && inRun(binding.endpoints.create, binding.endpoints.delete))
      defs.push(createProperty(binding.family, binding.endpoints.create, binding.endpoints.delete, true, o));
  return defs;
}
