import { citeRule, citeRuleOrDecision, type CoverRule } from '../../../contract/assertions/index.ts';
import type { EndpointContract } from '../../../contract/core/types.ts';
import type { Origin, RuleKind } from './param-arbitraries.ts';

// What a generated request breaking one rule tests: kept with the mutations, not in ../core/citations.ts,
// so that the arbitraries import nothing from the suites built on them.

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
