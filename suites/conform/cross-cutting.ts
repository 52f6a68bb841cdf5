import type { Finding } from './report-model.ts';

/**
 * Which findings are cross-cutting: a rule the spec states for every endpoint (or every list) rather
 * than for one, broken on many endpoints at once. A server implements such a rule in one place (its
 * router, its JSON layer, its auth middleware, its validation or list layer), so one fix clears every
 * endpoint: the report shows the finding once, at the top, and keeps it out of each endpoint's status
 * (endpointStatusOf), so an endpoint is judged by its own behaviour.
 *
 * The API-wide rules, by the assertion's id: the wire format and output conventions (`conventions.*`,
 * spec "What the service does"), the response envelope (`envelope.*`, except the paged-list fields,
 * which each list fills from its own records), authentication (`auth.*`), the common list parameters
 * (`list-params.*`), the refusal text naming the parameter (`errors.case.rejected-body`), and the
 * project's decisions on the router (`decision.wrong-method-405`) and unknown parameters.
 */
const API_WIDE: readonly RegExp[] = [
  /^conventions\./,
  /^envelope\.(?!paged\.)/,
  /^auth\./,
  /^list-params\./,
  /^errors\.case\.rejected-body$/,
  /^decision\.wrong-method-405$/,
  /^decision\.unknown-params-ignored$/,
];

/**
 * A cross-cutting finding shows on at least this many endpoints (or, in a run of fewer endpoints, on
 * all of them, from two): below it, the rule broken on two or three endpoints says something of those.
 */
const CROSS_CUTTING_MIN_ENDPOINTS = 5;

/** Is the assertion one of a rule stated for every endpoint (or every list)? */
function isApiWideAssertion(id: string): boolean {
  return API_WIDE.some((re) => re.test(id));
}

/**
 * A finding of an API-wide rule that shows on enough endpoints (`runEndpoints`: how many the report
 * has). A finding of one endpoint's cause (a 5xx, no answer, a missing route) is never cross-cutting.
 */
export function isCrossCutting(f: Pick<Finding, 'id' | 'assertion' | 'endpoints'>, runEndpoints: number): boolean {
  if (f.id.includes('@') || !isApiWideAssertion(f.assertion)) return false;
  const needed = Math.min(CROSS_CUTTING_MIN_ENDPOINTS, Math.max(2, runEndpoints));
  return f.endpoints.length >= needed;
}
