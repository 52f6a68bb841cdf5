import {
  crossCuttingChecks,
  endpointKey,
  failingLevels,
  failsEndpoint,
  checkKey,
  type CheckRecord,
  type EndpointReport,
  type Finding,
  type Report,
  type StatusRule,
} from '../../conform/report-model.ts';

/** XML 1.0 text: escapes markup and drops characters XML cannot carry at all. */
function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      // Lone surrogates are not XML characters either (a cut response body can end in half a pair).
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** The failure's full story for the CI log: message, request, response, curl, replay. */
function detail(c: CheckRecord, replay: string): string {
  const lines = [c.message, `assertion: ${c.assertion}`];
  if (c.request) {
    lines.push(`request: ${c.request.method} ${c.request.path}${c.request.asRemotePeer ? ' (from a non-loopback address)' : ''}`);
    if (c.request.body !== undefined)
      lines.push(`request body: ${typeof c.request.body === 'string' ? c.request.body : JSON.stringify(c.request.body)}`);
  }
  if (c.response)
    lines.push(
      c.response.error
        ? `response: transport error: ${c.response.error}`
        : `response: HTTP ${c.response.status}${c.response.contentType ? ` (${c.response.contentType})` : ''}\n${c.response.body}`,
    );
  if (c.curl) lines.push(`curl: ${c.curl}`);
  lines.push(`replay the run: ${replay}`);
  return lines.join('\n');
}

/** With a baseline, a failure's message says whether its finding is new or known, so the CI log shows what broke. */
function failurePrefix(report: Report, e: EndpointReport, c: CheckRecord): string {
  if (!report.baseline) return '';
  const finding = report.findings.find((f) => f.checks.some((x) => x.endpoint === e.id && x.id === c.id));
  const isNew = !!finding && report.baseline.newFindings.some((f) => f.id === finding.id && f.endpoints.includes(endpointKey(e)));
  return isNew ? 'NEW: ' : 'known (in baseline): ';
}

/** Why a failed check does not fail its endpoint's testsuite (the report's one status rule), or undefined when it does. */
function notFailingReason(e: EndpointReport, c: CheckRecord, rule: StatusRule): string | undefined {
  if (c.status !== 'fail' || failsEndpoint(e.id, c, rule)) return undefined;
  if (c.consequenceOf)
    return `a consequence of ${c.consequenceOf.check} (${c.consequenceOf.endpoint}), which failed: counted in that check's finding`;
  if (rule.crossCutting?.has(checkKey(e.id, c.id)))
    return 'part of a cross-cutting finding: counted once, in the testsuite "cross-cutting findings"';
  return `below --fail-on ${rule.failOn}: reported as a finding without failing the run`;
}

/** Per-testcase properties: the assertion cited, and for a failure that does not fail its endpoint, the finding it reports. */
function caseProperties(report: Report, e: EndpointReport, c: CheckRecord, rule: StatusRule): string {
  const cite = report.citations?.[c.assertion];
  const props = [`        <property name="mqsim.assertion" value="${xmlEscape(c.assertion)}"/>`];
  if (cite) props.push(`        <property name="mqsim.citation" value="${xmlEscape(`${cite.section}: ${cite.quote}`)}"/>`);
  const reason = notFailingReason(e, c, rule);
  if (reason !== undefined) {
    if (c.level === 'INFO') props.push(`        <property name="mqsim.info-finding" value="${xmlEscape(c.message)}"/>`);
    else props.push(`        <property name="mqsim.finding" value="${xmlEscape(c.message)}"/>`);
    props.push(`        <property name="mqsim.not-failing" value="${xmlEscape(reason)}"/>`);
  }
  if (c.status === 'inconclusive') props.push(`        <property name="mqsim.inconclusive" value="${xmlEscape(c.message)}"/>`);
  return `      <properties>\n${props.join('\n')}\n      </properties>`;
}

/**
 * One check as a testcase. A failure is a `<failure>` exactly when it fails its endpoint by the
 * report's one status rule (failsEndpoint: at a --fail-on level, not part of a cross-cutting finding,
 * not a consequence of another failure); any other failure is a passed case carrying the finding
 * (`mqsim.info-finding` for INFO, `mqsim.finding` otherwise) and `mqsim.not-failing` saying why, so
 * a CI dashboard counts what the report's statuses count. Inconclusive checks are skipped cases.
 */
function testcase(report: Report, e: EndpointReport, c: CheckRecord, rule: StatusRule): string {
  const open = `    <testcase classname="${xmlEscape(e.tag)}" name="${xmlEscape(`${c.id} [${c.level}]`)}">`;
  const props = caseProperties(report, e, c, rule);
  if (c.status === 'pass' || (c.status === 'fail' && !failsEndpoint(e.id, c, rule))) return `${open}\n${props}\n    </testcase>`;
  if (c.status === 'skipped' || c.status === 'inconclusive')
    return `${open}\n${props}\n      <skipped message="${xmlEscape(`${c.status === 'inconclusive' ? 'inconclusive: ' : ''}${c.message}`)}"/>\n    </testcase>`;
  const message = `${failurePrefix(report, e, c)}${c.message}`;
  return `${open}\n${props}\n      <failure type="${xmlEscape(c.level)}" message="${xmlEscape(message)}">${xmlEscape(detail(c, report.replay))}</failure>\n    </testcase>`;
}

/** The cross-cutting findings, once each: a `<failure>` when the finding's level is at --fail-on. */
function crossCuttingSuite(
  report: Report,
  findings: readonly Finding[],
): { xml: string; tests: number; failures: number; skipped: number } {
  const levels = failingLevels(report.failOn ?? 'must');
  const cases = findings.map((f) => {
    const open = `    <testcase classname="cross-cutting" name="${xmlEscape(`${f.id} [${f.level}]`)}">`;
    const props = `      <properties>\n        <property name="mqsim.assertion" value="${xmlEscape(f.assertion)}"/>\n        <property name="mqsim.endpoints" value="${xmlEscape(f.endpoints.join(', '))}"/>\n      </properties>`;
    if (!levels.includes(f.level)) return `${open}\n${props}\n    </testcase>`;
    const lines = [
      f.title,
      `assertion: ${f.assertion}`,
      `endpoints (${f.endpoints.length}): ${f.endpoints.join(', ')}`,
      `failed checks: ${f.checks.length}`,
    ];
    if (f.example?.curl) lines.push(`example: ${f.example.curl}`);
    lines.push(`replay the run: ${report.replay}`);
    return `${open}\n${props}\n      <failure type="${xmlEscape(f.level)}" message="${xmlEscape(f.title)}">${xmlEscape(lines.join('\n'))}</failure>\n    </testcase>`;
  });
  const failures = findings.filter((f) => levels.includes(f.level)).length;
  return {
    xml: `  <testsuite name="cross-cutting findings" tests="${findings.length}" failures="${failures}" errors="0" skipped="0" time="0.000" timestamp="${xmlEscape(report.startedAt.replace(/\.\d+Z$/, ''))}">\n${cases.join('\n')}\n  </testsuite>`,
    tests: findings.length,
    failures,
    skipped: 0,
  };
}

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

function testsuite(report: Report, e: EndpointReport, rule: StatusRule): { xml: string; tests: number; failures: number; skipped: number } {
  const attrs = (t: number, f: number, s: number) =>
    `name="${xmlEscape(endpointKey(e))}" tests="${t}" failures="${f}" errors="0" skipped="${s}" time="${seconds(e.durationMs)}" timestamp="${xmlEscape(report.startedAt.replace(/\.\d+Z$/, ''))}"`;
  const props = `    <properties>\n      <property name="endpoint.id" value="${xmlEscape(e.id)}"/>\n      <property name="tag" value="${xmlEscape(e.tag)}"/>\n      <property name="status" value="${xmlEscape(e.status)}"/>\n    </properties>`;
  if (e.checks.length === 0) {
    const untested = `    <testcase classname="${xmlEscape(e.tag)}" name="untested">\n      <skipped message="no check ran for this endpoint"/>\n    </testcase>`;
    return { xml: `  <testsuite ${attrs(1, 0, 1)}>\n${props}\n${untested}\n  </testsuite>`, tests: 1, failures: 0, skipped: 1 };
  }
  const failures = e.checks.filter((c) => failsEndpoint(e.id, c, rule)).length;
  const skipped = e.checks.filter((c) => c.status === 'skipped' || c.status === 'inconclusive').length;
  const cases = e.checks.map((c) => testcase(report, e, c, rule)).join('\n');
  return {
    xml: `  <testsuite ${attrs(e.checks.length, failures, skipped)}>\n${props}\n${cases}\n  </testsuite>`,
    tests: e.checks.length,
    failures,
    skipped,
  };
}

/**
 * JUnit XML: one testsuite per endpoint (`METHOD path`), one testcase per check (classname = the
 * endpoint's tag, name = `check-id [LEVEL]`); an untested endpoint is one skipped case, so it shows.
 * The cross-cutting findings are one more testsuite, a case each. A suite fails exactly when the
 * report's status of its endpoint is `fail`.
 */
export function renderJunit(report: Report): string {
  const rule: StatusRule = { failOn: report.failOn ?? 'must', crossCutting: crossCuttingChecks(report.findings ?? []) };
  const cross = (report.findings ?? []).filter((f) => f.crossCutting);
  const suites = [...(cross.length ? [crossCuttingSuite(report, cross)] : []), ...report.endpoints.map((e) => testsuite(report, e, rule))];
  const total = suites.reduce((n, s) => n + s.tests, 0);
  const failures = suites.reduce((n, s) => n + s.failures, 0);
  const skipped = suites.reduce((n, s) => n + s.skipped, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`mqsim conform ${report.target} seed ${report.seed}${report.shard ? ` shard ${report.shard.index}/${report.shard.count}` : ''}`)}" tests="${total}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}">`,
    ...suites.map((s) => s.xml),
    '</testsuites>',
    '',
  ].join('\n');
}
