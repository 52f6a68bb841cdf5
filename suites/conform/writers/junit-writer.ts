import { endpointKey, type CheckRecord, type EndpointReport, type Report } from '../report-model.ts';

/** XML 1.0 text: escapes markup and drops characters XML cannot carry at all. */
export function xmlEscape(text: string): string {
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

/** Per-testcase properties: the assertion cited, and for an INFO failure the finding it reports. */
function caseProperties(report: Report, c: CheckRecord): string {
  const cite = report.citations?.[c.assertion];
  const props = [`        <property name="mqsim.assertion" value="${xmlEscape(c.assertion)}"/>`];
  if (cite) props.push(`        <property name="mqsim.citation" value="${xmlEscape(`${cite.section}: ${cite.quote}`)}"/>`);
  if (c.status === 'fail' && c.level === 'INFO')
    props.push(`        <property name="mqsim.info-finding" value="${xmlEscape(c.message)}"/>`);
  if (c.status === 'inconclusive') props.push(`        <property name="mqsim.inconclusive" value="${xmlEscape(c.message)}"/>`);
  return `      <properties>\n${props.join('\n')}\n      </properties>`;
}

/**
 * One check as a testcase. INFO failures are not spec violations (a decision of this project or a
 * shape from the reference notes): they are written as passed cases carrying a `mqsim.info-finding`
 * property, so a CI dashboard does not count them as failures. Inconclusive checks are skipped cases.
 */
function testcase(report: Report, e: EndpointReport, c: CheckRecord): string {
  const open = `    <testcase classname="${xmlEscape(e.tag)}" name="${xmlEscape(`${c.id} [${c.level}]`)}">`;
  const props = caseProperties(report, c);
  if (c.status === 'pass' || (c.status === 'fail' && c.level === 'INFO')) return `${open}\n${props}\n    </testcase>`;
  if (c.status === 'skipped' || c.status === 'inconclusive')
    return `${open}\n${props}\n      <skipped message="${xmlEscape(`${c.status === 'inconclusive' ? 'inconclusive: ' : ''}${c.message}`)}"/>\n    </testcase>`;
  const message = `${failurePrefix(report, e, c)}${c.message}`;
  return `${open}\n${props}\n      <failure type="${xmlEscape(c.level)}" message="${xmlEscape(message)}">${xmlEscape(detail(c, report.replay))}</failure>\n    </testcase>`;
}

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

function testsuite(report: Report, e: EndpointReport): { xml: string; tests: number; failures: number; skipped: number } {
  const attrs = (t: number, f: number, s: number) =>
    `name="${xmlEscape(endpointKey(e))}" tests="${t}" failures="${f}" errors="0" skipped="${s}" time="${seconds(e.durationMs)}" timestamp="${xmlEscape(report.startedAt.replace(/\.\d+Z$/, ''))}"`;
  const props = `    <properties>\n      <property name="endpoint.id" value="${xmlEscape(e.id)}"/>\n      <property name="tag" value="${xmlEscape(e.tag)}"/>\n      <property name="status" value="${xmlEscape(e.status)}"/>\n    </properties>`;
  if (e.checks.length === 0) {
    const untested = `    <testcase classname="${xmlEscape(e.tag)}" name="untested">\n      <skipped message="no check ran for this endpoint"/>\n    </testcase>`;
    return { xml: `  <testsuite ${attrs(1, 0, 1)}>\n${props}\n${untested}\n  </testsuite>`, tests: 1, failures: 0, skipped: 1 };
  }
  const failures = e.checks.filter((c) => c.status === 'fail' && c.level !== 'INFO').length;
  const skipped = e.checks.filter((c) => c.status === 'skipped' || c.status === 'inconclusive').length;
  const cases = e.checks.map((c) => testcase(report, e, c)).join('\n');
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
 */
export function renderJunit(report: Report): string {
  const suites = report.endpoints.map((e) => testsuite(report, e));
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
