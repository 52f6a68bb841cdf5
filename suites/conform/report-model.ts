import type { DetectedCapabilities } from './detected-capabilities.ts';
/**
 * The conformance report: one model for every output (JSON, HTML, JUnit). Shape fixed by the issue:
 * `{target, seed, summary: {checks, passed, failed, skipped}, endpoints: [{method, path, status,
 * checks: [{id, level, status, message}]}]}`; everything else is an addition. Since issue 11 every
 * check cites the spec assertion it tests (`assertion`, with the quote in `citations`), failed checks
 * are grouped into `findings` by cause, and the exit status is decided on findings (`--fail-on`).
 */

/** The level of a spec assertion, and of the checks and findings that cite it. */
export type Level = 'MUST' | 'SHOULD' | 'INFO';
/**
 * `inconclusive`: the check ran, but what the target answered could not have failed a wrong server
 * (one record where a sort needs two, a filter value every record shares, a write never listed):
 * counted and listed, never a pass.
 */
export type CheckStatus = 'pass' | 'fail' | 'skipped' | 'inconclusive';
/** An endpoint's status: the worst of its checks (`untested` when none ran). */
export type EndpointStatus = 'pass' | 'fail' | 'skipped' | 'inconclusive' | 'untested';
/** The finding level from which the exit status is 1: `must` (default), `should` (MUST and SHOULD), `info` (any finding). */
export type FailOn = 'must' | 'should' | 'info';

/** The request behind a check, as sent (the token is never written to a report). */
export interface RequestRecord {
  method: string;
  /** Path with query string. */
  path: string;
  body?: unknown;
  /** Sent from the non-loopback address (auth checks). */
  asRemotePeer?: boolean;
  /** Sent from a loopback address other than 127.0.0.1 (the loopback-exemption check). */
  asLoopbackPeer?: boolean;
  /** `token`: the run's token; `none`: no Authorization header; other text: that header, verbatim. */
  authorization?: string;
}

/** The answer behind a check, as received (secrets redacted). */
export interface ResponseRecord {
  status: number;
  contentType?: string;
  /** Body text, cut at a few thousand characters. */
  body: string;
  durationMs?: number;
  /** Transport failure (timeout, refused connection) instead of an answer. */
  error?: string;
}

/**
 * Why a failure is not (only) its own rule's: the answer it got was a server error, a transport
 * failure or not JSON at all. Failures with the same cause on one endpoint are one finding.
 * `stopped`: no answer because the whole target had stopped answering (target-watch.ts): one finding
 * for the run.
 */
export type FailureCause = 'server-error' | 'transport' | 'non-json' | 'not-found' | 'stopped';

/**
 * The rule a failure broke, finer or wider than its assertion: one catalogue row per connector type
 * states several rules (a required key, a range, a URL scheme), and one rule (a URL scheme) is stated
 * in several rows. Failures of one rule are one finding, titled by `wrong` and the subjects it showed on.
 */
export interface CheckRule {
  /** Stable across runs: the finding's id (`connector.config.url-scheme`). */
  id: string;
  /** What is wrong, as a finding title: "connector configs: a URL with another scheme than the type's is accepted". */
  wrong: string;
  /** What this check applied the rule to (a connector type, a config section), listed after the title. */
  subject?: string;
}

/** An earlier check of the run, named so a later check can say it rests on it. */
export interface CheckRef {
  endpoint: string;
  check: string;
}

/** One check of one endpoint: what it tested (the assertion it cites, at its level) and its outcome. */
export interface CheckRecord {
  id: string;
  /** Id of the spec assertion the check tests (`citations` of the report holds its quote). */
  assertion: string;
  /** Further assertions of the same level its evidence tested (the field rows a schema check covered). */
  also?: string[];
  /** The assertion's level. */
  level: Level;
  status: CheckStatus;
  message: string;
  /** Failures only: the answer was a 5xx, a transport failure or not JSON (see FailureCause). */
  cause?: FailureCause;
  /** With `cause`: the endpoint id that gave that answer (a check of one endpoint may read another). */
  causeEndpoint?: string;
  /** Failures only: the rule broken, when the check names one finer or wider than its assertion (findings group by it). */
  rule?: CheckRule;
  /**
   * Failures only: an earlier check this one rests on failed (the set it reads back was refused), so
   * this failure is a consequence: it is folded under that check's finding and does not fail its
   * endpoint on its own.
   */
  consequenceOf?: CheckRef;
  request?: RequestRecord;
  response?: ResponseRecord;
  /** A curl command that repeats the request (failures only). */
  curl?: string;
}

/** One endpoint of the contract in a report: its status and every check run on it. */
export interface EndpointReport {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary?: string;
  status: EndpointStatus;
  checks: CheckRecord[];
  /** Wall time of this endpoint's checks. */
  durationMs?: number;
}

/** Shard `index` of `count` (1-based): the selected endpoints at positions ≡ index-1 (mod count). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Which endpoints the run checked (`--only`, `--skip`, `--shard`). */
export interface SelectionRecord {
  /** `--only` patterns (path glob, endpoint id glob or tag); empty = every endpoint. */
  only: string[];
  skip: string[];
  /** Endpoints of the contract. */
  contractEndpoints: number;
  /** Endpoints left by `only`/`skip`, before sharding. */
  selectedEndpoints: number;
}

/** An assertion as the report cites it. */
export interface Citation {
  section: string;
  quote: string;
  level: Level;
  source: 'spec' | 'notes' | 'decision';
  kind: string;
}

/** One failing check as a finding lists it. */
export interface FindingCheck {
  endpoint: string;
  /** `METHOD /path`. */
  key: string;
  id: string;
  level: Level;
  message: string;
}

/**
 * Failed checks grouped by cause: one broken rule (an assertion) across the endpoints where it
 * failed, or one endpoint answering server errors / non-JSON. Cascades (a property failure re-finding
 * what a scenario check found in the same family) are folded under their cause.
 */
export interface Finding {
  /** Stable across runs: the assertion id, a rule id, `<cause>@<endpoint id>`, or `target-stopped`. */
  id: string;
  title: string;
  level: Level;
  assertion: string;
  /** With a rule stated in several places (one row per connector type): every assertion its checks cite. */
  assertions?: string[];
  citation?: Citation;
  /**
   * An API-wide rule (wire format, envelope, authentication, common list parameters, refusal texts)
   * broken on many endpoints: shown once, and not counted in each endpoint's status (`crossCutting.ts`).
   */
  crossCutting?: boolean;
  /** `METHOD /path` of every endpoint where it showed. */
  endpoints: string[];
  checks: FindingCheck[];
  /** Ids of findings folded into this one as cascades of it. */
  folded?: string[];
  /** One failing exchange that shows it. */
  example?: { check: string; request?: RequestRecord; response?: ResponseRecord; curl?: string };
}

/** One finding's failure, named so it can be found in another report. */
export interface FailureRef {
  /** Finding id. */
  id: string;
  title: string;
  level: Level;
  /** `METHOD /path` of the endpoints concerned. */
  endpoints: string[];
}

/**
 * This run against an earlier report, compared by findings: a finding is NEW when its id did not
 * fail in the baseline, or when it now shows on an endpoint where it did not before; FIXED when a
 * finding of the baseline is gone (on the endpoints this run checked).
 */
export interface BaselineComparison {
  baselineFile: string;
  baselineRunId?: string;
  newFindings: FailureRef[];
  fixed: FailureRef[];
  /** Findings present in both (on the same endpoints or fewer). */
  stillFailing: number;
}

/** Where a merged report came from (`mqsim report merge`). */
interface MergeRecord {
  inputs: { file: string; runId: string; target: string; seed: number; shard?: ShardSpec; endpoints: number }[];
}

/** Counts of a report: checks by status and level, endpoints by status, findings by level. */
export interface ReportSummary {
  checks: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Checks whose answers could not tell a right server from a wrong one: never passes. */
  inconclusive: number;
  /** Failed checks per level. */
  failedByLevel: Record<Level, number>;
  /** Findings (failed checks grouped by cause) per level: the exit status is decided on these. */
  findingsByLevel: Record<Level, number>;
  /** Endpoints per status. */
  endpoints: Record<EndpointStatus, number>;
  /** Endpoints with no check at all. */
  untested: number;
  /** The whole run is vacuous (most answers were 401): it never counts as passed. */
  vacuous: boolean;
}

/** Spec coverage: which assertions the run tested (a check citing it passed or failed). */
export interface SpecCoverage {
  /** Assertions in the contract. */
  assertions: number;
  /** Assertions a check over the HTTP API can test (the others carry an `untestable` reason). */
  testable: number;
  /** Testable assertions a check of this run decided (pass or fail). */
  tested: number;
  /** Testable assertions the run did not decide, each with why (no check cites it; skipped: …; inconclusive: …). */
  untested: { id: string; level: Level; reason: string }[];
  /** Assertions no HTTP check can test, with the reason. */
  untestable: { id: string; reason: string }[];
}

export interface RequestStats {
  total: number;
  /** Requests answered 401, not counting the auth checks that ask for a 401. */
  unauthorized: number;
  /** Requests counted for the vacuous rule (all but the auth checks). */
  counted: number;
  /** Counted requests that got an HTTP answer. */
  answered: number;
  byStatus: Record<string, number>;
  transportErrors: number;
}

/**
 * The result of a conformance run, as `report.json` holds it (schema: fixtures/report/report.schema.json):
 * the verdict, the findings (MUST first), spec coverage and every endpoint with its checks.
 */
export interface Report {
  tool: { name: 'mqsim'; version: string };
  runId: string;
  target: string;
  seed: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** How to run the same checks again. */
  replay: string;
  /** The run is vacuous: the summary never reports it as passed. */
  vacuous: boolean;
  vacuousReason?: string;
  /** The finding level that decides the exit status. */
  failOn: FailOn;
  verdict: 'pass' | 'fail';
  /** Why the verdict is what it is, in one line. */
  verdictLine: string;
  requests: RequestStats;
  summary: ReportSummary;
  /** Failed checks grouped by cause, MUST first. */
  findings: Finding[];
  /** Spec coverage of the run. */
  coverage?: SpecCoverage;
  /** The assertions the checks cite, by id. */
  citations: Record<string, Citation>;
  endpoints: EndpointReport[];
  /** Present when the run checked one shard of the selection. */
  shard?: ShardSpec;
  /** Present when the run (or merge) narrowed the endpoints with --only/--skip/--shard. */
  selection?: SelectionRecord;
  /** Present with `--baseline`. */
  baseline?: BaselineComparison;
  /** Present on a report combined from shard reports. */
  merged?: MergeRecord;
  /** What the run found the target can do (remote peer, control interface, MQTT listener...). */
  capabilities?: DetectedCapabilities;
  /** Present when the property-based suites ran. */
  properties?: PropertyRunRecord;
  /** Problems of the harness itself that are not tied to an endpoint (e.g. fixture setup). */
  notes: string[];
  /**
   * Present when the target stopped answering in the middle of the run (killed, crashed): the run
   * ended there and is incomplete; its one finding `target-stopped` says when and at which request.
   */
  stopped?: RunStop;
}

/** When and where the target stopped answering, and how much of the run was done. */
export interface RunStop {
  /** Wall time of the first request that got no answer (ISO). */
  at: string;
  /** That request (`METHOD /path`) and its number among the run's requests. */
  request: string;
  requestNumber: number;
  error: string;
  /** What the re-probe asked (`GET /health/ready`, `GET /`) and got. */
  probe: string;
  /** Endpoints whose checks ran (at least in part) before the stop, of those selected. */
  endpointsChecked: number;
  endpointsSelected: number;
}

/** The property-based part of a run: replay it with the same seed (and `--property-path` for one case). */
export interface PropertyRunRecord {
  seed: number;
  numRuns: number;
  path?: string;
  results: number;
  failed: number;
  durationMs: number;
}

/**
 * How an endpoint's status is decided, the same in every output (report.json, HTML, JUnit, console):
 * the findings levels of `--fail-on`, and the failures that belong to findings about more than the
 * endpoint (cross-cutting findings, consequences of a failure elsewhere).
 */
export interface StatusRule {
  failOn: FailOn;
  /** `checkKey(endpoint, check)` of the failed checks held by cross-cutting findings. */
  crossCutting?: ReadonlySet<string>;
}

/** How a failed check is named across findings and statuses: endpoint id and check id. */
export const checkKey = (endpoint: string, check: string): string => `${endpoint}\u0000${check}`;

/**
 * Does this failure fail its endpoint? Only a failure of the endpoint's own: at a `--fail-on` level,
 * not part of a cross-cutting finding (shown once for every endpoint), not the consequence of an
 * earlier check that failed (folded under that check's finding).
 */
export function failsEndpoint(endpointId: string, c: CheckRecord, rule: StatusRule): boolean {
  return (
    c.status === 'fail' &&
    failingLevels(rule.failOn).includes(c.level) &&
    !c.consequenceOf &&
    c.cause !== 'stopped' &&
    !rule.crossCutting?.has(checkKey(endpointId, c.id))
  );
}

/**
 * An endpoint's status, by its own checks (the one rule of every output): `fail` when a failure of its
 * own at a `--fail-on` level exists (failsEndpoint); else `pass` when a check passed or failed below
 * that level or elsewhere (it is reported, as a finding, without failing the endpoint); else
 * `inconclusive`, `skipped`, or `untested` when no check ran (or none got to the target before it
 * stopped answering).
 */
export function endpointStatusOf(e: { id: string; checks: readonly CheckRecord[] }, rule: StatusRule = { failOn: 'must' }): EndpointStatus {
  // A request lost because the target had stopped answering tested nothing of the endpoint.
  const checks = e.checks.filter((c) => c.cause !== 'stopped');
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => failsEndpoint(e.id, c, rule))) return 'fail';
  if (checks.some((c) => c.status === 'pass' || c.status === 'fail')) return 'pass';
  if (checks.some((c) => c.status === 'inconclusive')) return 'inconclusive';
  return 'skipped';
}

/** The failed checks of cross-cutting findings, as the status rule takes them. */
export function crossCuttingChecks(findings: readonly Pick<Finding, 'crossCutting' | 'checks'>[]): Set<string> {
  return new Set(findings.filter((f) => f.crossCutting).flatMap((f) => f.checks.map((c) => checkKey(c.endpoint, c.id))));
}

/** Sets every endpoint's status by the one rule, from the report's findings and `--fail-on`. */
export function applyEndpointStatuses(report: Pick<Report, 'endpoints' | 'findings' | 'failOn'>): void {
  const rule: StatusRule = { failOn: report.failOn ?? 'must', crossCutting: crossCuttingChecks(report.findings) };
  for (const e of report.endpoints) e.status = endpointStatusOf(e, rule);
}

/** Share of 401 answers from which a run counts as vacuous. */
const VACUOUS_UNAUTHORIZED_SHARE = 0.9;

/** A run is vacuous when ≥90% (or all) of its answers were 401, or no request got an answer at all. */
export function vacuousRun(requests: RequestStats): { vacuous: boolean; reason?: string } {
  if (requests.answered === 0)
    return { vacuous: true, reason: `none of the ${requests.counted} requests got an HTTP answer: is the target up at that address?` };
  const share = requests.unauthorized / requests.answered;
  if (share >= VACUOUS_UNAUTHORIZED_SHARE) {
    return {
      vacuous: true,
      reason: `${requests.unauthorized} of ${requests.answered} answers (${Math.round(share * 100)}%) were 401: the checks never reached the API. Run from 127.0.0.1 or pass --username/--password.`,
    };
  }
  return { vacuous: false };
}

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

export function summarize(
  endpoints: readonly EndpointReport[],
  vacuous: boolean,
  findings: readonly Pick<Finding, 'level'>[] = [],
): ReportSummary {
  const checks = endpoints.flatMap((e) => e.checks);
  const failedByLevel: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  for (const c of checks) if (c.status === 'fail') failedByLevel[c.level]++;
  const findingsByLevel: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  for (const f of findings) findingsByLevel[f.level]++;
  const byEndpoint: Record<EndpointStatus, number> = { pass: 0, fail: 0, skipped: 0, inconclusive: 0, untested: 0 };
  for (const e of endpoints) byEndpoint[e.status]++;
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  return {
    checks: checks.length,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skipped'),
    inconclusive: count('inconclusive'),
    failedByLevel,
    findingsByLevel,
    endpoints: byEndpoint,
    untested: byEndpoint.untested,
    vacuous,
  };
}

/** Levels at or above the `--fail-on` threshold. */
export function failingLevels(failOn: FailOn): readonly Level[] {
  return failOn === 'must' ? ['MUST'] : failOn === 'should' ? ['MUST', 'SHOULD'] : LEVELS;
}

/**
 * Exit status of `mqsim conform`: 0 only when the run reached the API and no finding at or above the
 * `--fail-on` level exists — or, with a baseline, none that is new; 2 when the run could not be
 * completed because the target stopped answering.
 */
export function exitCodeOf(report: Pick<Report, 'summary' | 'vacuous' | 'baseline' | 'findings' | 'failOn' | 'stopped'>): 0 | 1 | 2 {
  if (report.stopped) return 2;
  if (report.vacuous) return 1;
  const levels = failingLevels(report.failOn ?? 'must');
  const gating = report.baseline ? report.baseline.newFindings : report.findings;
  return gating.some((f) => levels.includes(f.level)) ? 1 : 0;
}

function findingCounts(byLevel: Record<Level, number>): string {
  const total = byLevel.MUST + byLevel.SHOULD + byLevel.INFO;
  return `${total} finding${total === 1 ? '' : 's'} (MUST ${byLevel.MUST}, SHOULD ${byLevel.SHOULD}, INFO ${byLevel.INFO})`;
}

export function verdictLineOf(
  report: Pick<Report, 'summary' | 'vacuous' | 'vacuousReason' | 'baseline' | 'failOn' | 'findings' | 'stopped'>,
): string {
  const s = report.summary;
  const counts = `${s.checks} checks: ${s.passed} passed, ${s.failed} failed, ${s.inconclusive} inconclusive, ${s.skipped} skipped; ${s.untested} endpoints untested`;
  const findings = findingCounts(s.findingsByLevel);
  const levels = failingLevels(report.failOn ?? 'must');
  const gate = levels.join('/');
  if (report.stopped) {
    const st = report.stopped;
    return `INCOMPLETE — the target stopped answering at ${st.at} (request ${st.requestNumber}, ${st.request}); the run ended after ${st.endpointsChecked} of ${st.endpointsSelected} endpoints (${findings}; ${counts})`;
  }
  if (report.vacuous) return `VACUOUS — not a pass: ${report.vacuousReason ?? 'the checks never reached the API'} (${findings}; ${counts})`;
  if (report.baseline) {
    const b = report.baseline;
    const gatingNew = b.newFindings.filter((f) => levels.includes(f.level)).length;
    const plural = (n: number) => (n === 1 ? '' : 's');
    const against = `against baseline ${b.baselineFile}: ${b.newFindings.length} new finding${plural(b.newFindings.length)} (${gatingNew} ${gate}), ${b.fixed.length} fixed, ${b.stillFailing} still present`;
    if (gatingNew > 0) return `FAIL — ${gatingNew} new ${gate} finding${plural(gatingNew)} ${against} (${counts})`;
    return `PASS — no new ${gate} finding ${against} (${counts})`;
  }
  const gating = report.findings.filter((f) => levels.includes(f.level)).length;
  if (gating > 0) return `FAIL — ${findings}; ${gating} at ${gate} fail the run (${counts})`;
  return `PASS — ${findings}, none at ${gate} (${counts})`;
}

/** Sets `verdict` and `verdictLine` from the findings, the vacuous flag and the baseline comparison. */
export function applyVerdict(report: Report): Report {
  report.verdict = exitCodeOf(report) === 0 ? 'pass' : 'fail';
  report.verdictLine = verdictLineOf(report);
  return report;
}

/** `GET /api/status`: how an endpoint is named across reports (ids may be renamed, method + path are the API). */
export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method} ${e.path}`;
}
