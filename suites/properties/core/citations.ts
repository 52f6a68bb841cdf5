import { assertionById, citeRuleOrDecision } from '../../../contract/assertions/index.ts';
import type { EndpointContract } from '../../../contract/core/types.ts';
import { A } from '../../conform/cite.ts';
import type { Level } from '../../conform/report-model.ts';

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
