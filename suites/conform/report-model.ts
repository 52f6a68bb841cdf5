import type { DetectedCapabilities } from './conform-context.ts';
/**
 * The conformance report: one model for every output (JSON, HTML, JUnit). Shape fixed by the issue:
 * `{target, seed, summary: {checks, passed, failed, skipped}, endpoints: [{method, path, status,
 * checks: [{id, level, status, message}]}]}`; everything else is an addition.
 */

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export type CheckStatus = 'pass' | 'fail' | 'skipped';
export type EndpointStatus = 'pass' | 'fail' | 'skipped' | 'untested';

/** The request behind a check, as sent (the token is never written to a report). */
export interface RequestRecord {
  method: string;
  /** Path with query string. */
  path: string;
  body?: unknown;
  /** Sent from the non-loopback address (auth checks). */
  asRemotePeer?: boolean;
  /** `token`: the run's token; `none`: no Authorization header; other text: that header, verbatim. */
  authorization?: string;
}

export interface ResponseRecord {
  status: number;
  contentType?: string;
  /** Body text, cut at a few thousand characters. */
  body: string;
  durationMs?: number;
  /** Transport failure (timeout, refused connection) instead of an answer. */
  error?: string;
}

export interface CheckRecord {
  id: string;
  level: Level;
  status: CheckStatus;
  message: string;
  /** A pass whose requests never reached the behaviour (e.g. an empty list where a law was checked). */
  vacuous?: boolean;
  request?: RequestRecord;
  response?: ResponseRecord;
  /** A curl command that repeats the request (failures only). */
  curl?: string;
}

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

/** One check's failure, named so it can be found in another report. */
export interface FailureRef {
  method: string;
  path: string;
  endpointId?: string;
  id: string;
  level: Level;
  message: string;
}

/**
 * This run against an earlier report: with a baseline, only NEW failures (a check failing now that
 * did not fail on the same endpoint in the baseline) of MUST level make the run fail.
 */
export interface BaselineComparison {
  baselineFile: string;
  baselineRunId?: string;
  /** Failing now, not failing in the baseline (passed, skipped or absent there). */
  newFailures: FailureRef[];
  /** Failed in the baseline, pass now. */
  fixed: FailureRef[];
  /** Failed in both. */
  stillFailing: number;
  /** New failures of MUST level: these alone decide the exit status. */
  newMustFailures: number;
}

/** Where a merged report came from (`mqsim report merge`). */
export interface MergeRecord {
  inputs: { file: string; runId: string; target: string; seed: number; shard?: ShardSpec; endpoints: number }[];
}

export interface ReportSummary {
  checks: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Failed checks per level; only MUST failures decide the exit status. */
  failedByLevel: Record<Level, number>;
  /** Endpoints per status. */
  endpoints: Record<EndpointStatus, number>;
  /** Endpoints with no check at all. */
  untested: number;
  /** Checks that passed without reaching the behaviour they check. */
  vacuousChecks: number;
  /** The whole run is vacuous (most answers were 401): it never counts as passed. */
  vacuous: boolean;
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
  verdict: 'pass' | 'fail';
  /** Why the verdict is what it is, in one line. */
  verdictLine: string;
  requests: RequestStats;
  summary: ReportSummary;
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

/** fail if any check failed, pass if one passed, skipped if every check was skipped, untested if none ran. */
export function endpointStatusOf(checks: readonly CheckRecord[]): EndpointStatus {
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => c.status === 'fail')) return 'fail';
  if (checks.some((c) => c.status === 'pass')) return 'pass';
  return 'skipped';
}

/** Share of 401 answers from which a run counts as vacuous. */
export const VACUOUS_UNAUTHORIZED_SHARE = 0.9;

/** A run is vacuous when ≥90% (or all) of its answers were 401, or no request got an answer at all. */
export function vacuousRun(requests: RequestStats): { vacuous: boolean; reason?: string } {
  if (requests.answered === 0) return { vacuous: true, reason: `none of the ${requests.counted} requests got an HTTP answer: is the target up at that address?` };
  const share = requests.unauthorized / requests.answered;
  if (share >= VACUOUS_UNAUTHORIZED_SHARE) {
    return {
      vacuous: true,
      reason: `${requests.unauthorized} of ${requests.answered} answers (${Math.round(share * 100)}%) were 401: the checks never reached the API. Run from 127.0.0.1 or pass --username/--password.`,
    };
  }
  return { vacuous: false };
}

export function summarize(endpoints: readonly EndpointReport[], vacuous: boolean): ReportSummary {
  const checks = endpoints.flatMap((e) => e.checks);
  const failedByLevel: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  for (const c of checks) if (c.status === 'fail') failedByLevel[c.level]++;
  const byEndpoint: Record<EndpointStatus, number> = { pass: 0, fail: 0, skipped: 0, untested: 0 };
  for (const e of endpoints) byEndpoint[e.status]++;
  return {
    checks: checks.length,
    passed: checks.filter((c) => c.status === 'pass').length,
    failed: checks.filter((c) => c.status === 'fail').length,
    skipped: checks.filter((c) => c.status === 'skipped').length,
    failedByLevel,
    endpoints: byEndpoint,
    untested: byEndpoint.untested,
    vacuousChecks: checks.filter((c) => c.vacuous && c.status === 'pass').length,
    vacuous,
  };
}

/**
 * Exit status of `mqsim conform`: 0 only when the run reached the API and no MUST check failed —
 * or, with a baseline, no MUST check failed that did not fail in the baseline already.
 */
export function exitCodeOf(report: Pick<Report, 'summary' | 'vacuous' | 'baseline'>): 0 | 1 {
  if (report.vacuous) return 1;
  const mustFailures = report.baseline ? report.baseline.newMustFailures : report.summary.failedByLevel.MUST;
  return mustFailures > 0 ? 1 : 0;
}

export function verdictLineOf(summary: ReportSummary, vacuous: boolean, vacuousReason?: string, baseline?: BaselineComparison): string {
  const counts = `${summary.checks} checks: ${summary.passed} passed, ${summary.failed} failed (MUST ${summary.failedByLevel.MUST}, SHOULD ${summary.failedByLevel.SHOULD}, INFO ${summary.failedByLevel.INFO}), ${summary.skipped} skipped; ${summary.untested} endpoints untested`;
  if (vacuous) return `VACUOUS — not a pass: ${vacuousReason ?? 'the checks never reached the API'} (${counts})`;
  if (baseline) {
    const against = `against baseline ${baseline.baselineFile}: ${baseline.newFailures.length} new failures (MUST ${baseline.newMustFailures}), ${baseline.fixed.length} fixed, ${baseline.stillFailing} still failing`;
    if (baseline.newMustFailures > 0) return `FAIL — ${baseline.newMustFailures} new MUST failures ${against} (${counts})`;
    return `PASS — no new MUST failure ${against} (${counts})`;
  }
  if (summary.failedByLevel.MUST > 0) return `FAIL — ${summary.failedByLevel.MUST} MUST checks failed (${counts})`;
  const soft = summary.failed > 0 ? `; ${summary.failed} SHOULD/INFO failures do not change the exit status` : '';
  return `PASS — no MUST check failed (${counts}${soft})`;
}

/** Sets `verdict` and `verdictLine` from the summary, the vacuous flag and the baseline comparison. */
export function applyVerdict(report: Report): Report {
  report.verdict = exitCodeOf(report) === 0 ? 'pass' : 'fail';
  report.verdictLine = verdictLineOf(report.summary, report.vacuous, report.vacuousReason, report.baseline);
  return report;
}

/** `GET /api/status`: how an endpoint is named across reports (ids may be renamed, method + path are the API). */
export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method} ${e.path}`;
}
