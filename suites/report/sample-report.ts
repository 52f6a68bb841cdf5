import { ASSERTIONS } from '../../contract/assertions/index.ts';
import { citationOf, specCoverage } from '../conform/coverage.ts';
import { buildFindings } from '../conform/findings.ts';
import {
  applyEndpointStatuses,
  applyVerdict,
  endpointStatusOf,
  summarize,
  type CheckRecord,
  type Citation,
  type EndpointReport,
  type Report,
} from '../conform/report-model.ts';

/** Small hand-made reports for the tests of baseline, merge and the writers (not used by the tool). */

const CITATIONS: Record<string, Citation> = Object.fromEntries(ASSERTIONS.map((a) => [a.id, citationOf(a)]));

/** A check citing `assertion` (by default one of the level asked for, so findings group by it). */
export const check = (
  id: string,
  status: CheckRecord['status'],
  level: CheckRecord['level'] = 'MUST',
  extra: Partial<CheckRecord> = {},
): CheckRecord => ({
  id,
  assertion: extra.assertion ?? ASSERTIONS.find((a) => a.level === level)!.id,
  level,
  status,
  message: `${id} ${status}`,
  ...extra,
});

export function endpoint(
  method: string,
  path: string,
  tag: string,
  checks: CheckRecord[],
  id = `${tag}.${method.toLowerCase()}${path.replace(/\//g, '.')}`,
): EndpointReport {
  return { id, method, path, tag, status: endpointStatusOf({ id, checks }), checks };
}

export function reportOf(endpoints: EndpointReport[], overrides: Partial<Report> = {}): Report {
  const report: Report = {
    tool: { name: 'mqsim', version: '0.1.0' },
    runId: 'run-1',
    target: 'http://127.0.0.1:1',
    seed: 7,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    replay: 'mqsim conform --target http://127.0.0.1:1 --seed 7',
    vacuous: false,
    failOn: 'must',
    verdict: 'pass',
    verdictLine: '',
    requests: { total: 10, unauthorized: 0, counted: 10, answered: 10, byStatus: { '200': 10 }, transportErrors: 0 },
    summary: summarize(endpoints, false),
    findings: [],
    citations: CITATIONS,
    endpoints,
    notes: [],
    ...overrides,
  };
  report.findings = buildFindings(report.endpoints, report.citations);
  applyEndpointStatuses(report);
  report.coverage ??= specCoverage(ASSERTIONS, report.endpoints);
  report.summary = summarize(report.endpoints, report.vacuous, report.findings);
  return applyVerdict(report);
}
