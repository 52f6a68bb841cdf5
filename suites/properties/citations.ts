import { assertionById, citeRule, citeRuleOrDecision, type CoverRule } from '../../contract/assertions/index.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { A } from '../conform/cite.ts';
import type { Level } from '../conform/report-model.ts';
import type { Origin, RuleKind } from './arbitraries/param-arbitraries.ts';

/**
 * The spec assertions the property suites cite: every rule a property checks names the sentence of
 * the spec (or the project's decision) it comes from, and takes its level from it.
 */

export function levelOf(assertion: string): Level {
  return assertionById(assertion).level;
}

/**
 * A valid request of `e` is served: the Index row that lists the endpoint; for an endpoint the spec
 * gives only by method and path, the request the suites send is the reference notes' (INFO).
 */
export function requestAssertion(e: EndpointContract): string {
  return e.specTable === 'path-only' ? A.pathOnlyRequest : citeRuleOrDecision(e.id, 'exists').id;
}

/** A 5xx or no answer to a valid request: the endpoint is listed by the spec (index or path-only table), so it must serve. */
export function servesAssertion(e: EndpointContract): string {
  return citeRuleOrDecision(e.id, 'exists').id;
}

const RULE_OF: Record<RuleKind, CoverRule | undefined> = {
  missing: 'required',
  'too-long': 'length',
  'too-short': 'length',
  'bad-enum': 'enum',
  'below-minimum': 'range',
  'above-maximum': 'range',
  'not-integer': 'range',
  'wrong-type': undefined,
};

/** The statement that gives a parameter at all (its type with it): the first rule the spec states for it. */
function paramStatement(e: EndpointContract, param: string): string {
  for (const rule of ['required', 'length', 'enum', 'range', 'default', 'match'] as const) {
    const a = citeRule(e.id, rule, param);
    if (a) return a.id;
  }
  return citeRuleOrDecision(e.id, 'required', param).id;
}

/**
 * What a request breaking one rule of one parameter tests. In a body, the statement of that rule
 * (an invalid body is refused). In a query, a value outside a listed set (topic_type, sort_by) is
 * refused only by the project's decision: the spec lists the values but never says others are refused.
 */
export function mutationAssertion(e: EndpointContract, path: string, rule: RuleKind, origin: Origin): string {
  const param = path.split('.')[0];
  // The catalogue's enum covers of query parameters are decisions (refusing an unlisted value is not stated).
  void origin;
  const cover = RULE_OF[rule];
  return cover ? citeRuleOrDecision(e.id, cover, param).id : paramStatement(e, param);
}
