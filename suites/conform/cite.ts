import { citeRuleOrDecision, type CoverRule } from '../../contract/assertions/index.ts';
import type { EndpointContract } from '../../contract/core/types.ts';

/**
 * The spec assertions the generic checks cite, by what they are about. Checks name these (or the
 * per-endpoint ones `cite(e, rule, param)` finds through the assertions' `covers`), so the mapping
 * from a check to the sentence of the spec it tests lives in one place.
 */
export const A = {
  /** "Two envelope forms occur. Both carry `code` … and `data`." */
  envelopeForms: 'envelope.forms',
  /** Form A: message `success` on success. */
  envelopeFormA: 'envelope.form-a',
  /** Form B: error null on success. */
  envelopeFormB: 'envelope.form-b',
  /** "Failure: `code` is non-zero, `data` is null or an empty string, and `message` or `error` holds a text." */
  envelopeFailure: 'envelope.failure',
  /** "Create, delete, update and set operations return `data` equal to the text `success` unless stated otherwise." */
  writeSuccessText: 'envelope.write-success',
  /** Paged list `data`: the records of the requested page. */
  pagedData: 'envelope.paged.data',
  /** Paged list `total_count`: total number of matching records. */
  pagedTotal: 'envelope.paged.total-count',
  /** "| Wire format | JSON request and response bodies |" */
  wireFormat: 'conventions.wire-format',
  /** Output time forms per field. */
  outputTime: 'conventions.output-time',
  /** Common list parameters, one row each. */
  listLimit: 'list-params.limit',
  listPage: 'list-params.page',
  listSortBy: 'list-params.sort-by',
  listSortField: 'list-params.sort-field',
  listFilterField: 'list-params.filter-field',
  listFilterValues: 'list-params.filter-values',
  listExactMatch: 'list-params.exact-match',
  /** "| tenant update for an unknown tenant | code 1, text that tenant `<tenant_name>` was not found |" */
  errorsTenantUpdateUnknown: 'errors.case.tenant-update-unknown',
  /** "| 400 | request parameter error |" */
  errorsParameterCode: 'errors.code.400',
  /** "| rejected request body (example) | code 400, message naming the invalid parameter |" (SHOULD) */
  errorsNamesParam: 'errors.case.rejected-body',
  /** What the service lets a client do: manage tenants, users, ACL… (writes acknowledged are applied). */
  manageResources: 'service.manage',
  manageConnectors: 'service.connectors',
  /** Topics: listed (service purpose) and created (path-only endpoint). */
  manageTopics: 'service.lists',
  /** Storage-engine shards and segments. */
  manageShards: 'service.storage',
  /** Authentication rules. */
  authLoopback: 'auth.rule-1-loopback',
  authRemoteToken: 'auth.rule-2-remote-token',
  authOpenPaths: 'auth.rule-3-open-paths',
  authLogin: 'auth.rule-4-login',
  auth401: 'auth.rule-5-401',
  authHs256: 'auth.rule-6-hs256',
  /** Path-only endpoints: the request the suites send comes from the reference notes (INFO). */
  pathOnlyRequest: 'notes.path-only.request',
  /** Decisions where the spec is silent (INFO). */
  decisionWrongMethod: 'decision.wrong-method-405',
  decisionUnknownParams: 'decision.unknown-params-ignored',
  decisionUnknownSortField: 'decision.unknown-sort-field-ignored',
  decisionUnknownSortBy: 'decision.unknown-sort-by-desc',
  /** Out-of-domain values of query parameters (topic_type, sort_by…) are refused. */
  decisionQueryValuesRefused: 'decision.list.query-values-refused',
  decisionTimeForms: 'decision.time-forms',
  decisionSecretsHidden: 'decision.secrets-hidden',
  decisionSortByDefault: 'decision.sort-by-default-asc',
  /** Sort fields the contract accepts beyond the ones the spec lists for a list (create_time…). */
  decisionExtraSortFields: 'decision.list.extra-sort-fields',
  /** "| client and session list sampling | at most 100 records sampled |" */
  limitsSampling: 'limits.sampling',
  /** Names and texts outside ASCII are accepted like any other (the spec gives no character set). */
  decisionNonAscii: 'decision.non-ascii-text',
} as const;

/** The assertion stating `rule` for endpoint `e` (and parameter), or the project's decision where the spec states none. */
export function cite(e: Pick<EndpointContract, 'id'>, rule: CoverRule, param?: string): string {
  return citeRuleOrDecision(e.id, rule, param).id;
}

/**
 * A paging rule of a list: the spec's paged-list statements for the lists of its Index; for a list
 * the spec gives only by method and path ("Payload shapes … not shown"), its shape comes from the
 * reference notes, so the same rule is cited from there (INFO).
 */
export function pagedAssertion(
  e: Pick<EndpointContract, 'id' | 'specTable'>,
  rule: 'data' | 'total' | 'page' | 'limit' | 'filter-values' | 'exact-match',
): string {
  if (e.specTable === 'path-only') return citeRuleOrDecision(e.id, 'response').id;
  // The common filters are the spec's rule only where the list's own paragraph names them (the tenant list).
  if (rule === 'filter-values') return citeRuleOrDecision(e.id, 'match', 'filter_values').id;
  if (rule === 'exact-match') return citeRuleOrDecision(e.id, 'match', 'exact_match').id;
  const byRule = {
    data: A.pagedData,
    total: A.pagedTotal,
    page: A.listPage,
    limit: A.listLimit,
  };
  return byRule[rule];
}

/**
 * The fields a list's statement gives `sort_field`: "`sort_field` (`a`, `b`)" or "`sort_field` `a`".
 * Only those: the same statement names its filters too ("`tenant` (exact)"), which are no sort fields.
 */
export function listedSortFields(quote: string): string[] {
  const m = /`sort_field`\s*(\([^)]*\)|`[^`]+`)/.exec(quote);
  return m ? [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]) : [];
}

/**
 * A sort law on `field` of list `e`: the list's own statement when the spec lists that field among
 * its sort fields, else the project's decision to sort by it too (INFO).
 */
export function sortAssertion(e: Pick<EndpointContract, 'id'>, field: string): string {
  const a = citeRuleOrDecision(e.id, 'sort', field);
  if (a.source === 'spec' && !listedSortFields(a.quote).includes(field)) return A.decisionExtraSortFields;
  return a.id;
}
