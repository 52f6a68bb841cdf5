import type { CheckRecord, EndpointReport, Report } from '../report-model.ts';

/** XML 1.0 text: escapes markup and drops characters XML cannot carry at all. */
export function xmlEscape(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function detail(c: CheckRecord): string {
  const lines = [c.message];
  if (c.request) lines.push(`request: ${c.request.method} ${c.request.path}${c.request.body !== undefined ? ` ${JSON.stringify(c.request.body)}` : ''}`);
  if (c.response) lines.push(`response: HTTP ${c.response.status} ${c.response.error ?? c.response.body}`);
  if (c.curl) lines.push(`curl: ${c.curl}`);
  return lines.join('\n');
}

function testcase(e: EndpointReport, c: CheckRecord): string {
  const open = `    <testcase classname="${xmlEscape(`${e.tag}.${e.method} ${e.path}`)}" name="${xmlEscape(`${c.id} [${c.level}]`)}"`;
  if (c.status === 'pass') return `${open}/>`;
  if (c.status === 'skipped') return `${open}>\n      <skipped message="${xmlEscape(c.message)}"/>\n    </testcase>`;
  return `${open}>\n      <failure type="${c.level}" message="${xmlEscape(c.message)}">${xmlEscape(detail(c))}</failure>\n    </testcase>`;
}

/** JUnit XML: one testsuite per tag, one testcase per check; an untested endpoint is one skipped case. */
export function renderJunit(report: Report): string {
  const tags = [...new Set(report.endpoints.map((e) => e.tag))];
  const suites: string[] = [];
  let total = 0;
  let failures = 0;
  let skipped = 0;
  for (const tag of tags) {
    const cases: string[] = [];
    let t = 0;
    let f = 0;
    let s = 0;
    for (const e of report.endpoints.filter((x) => x.tag === tag)) {
      if (e.checks.length === 0) {
        cases.push(`    <testcase classname="${xmlEscape(`${e.tag}.${e.method} ${e.path}`)}" name="untested">\n      <skipped message="no check ran for this endpoint"/>\n    </testcase>`);
        t++;
        s++;
        continue;
      }
      for (const c of e.checks) {
        cases.push(testcase(e, c));
        t++;
        if (c.status === 'fail') f++;
        if (c.status === 'skipped') s++;
      }
    }
    total += t;
    failures += f;
    skipped += s;
    suites.push(`  <testsuite name="${xmlEscape(tag)}" tests="${t}" failures="${f}" errors="0" skipped="${s}">\n${cases.join('\n')}\n  </testsuite>`);
  }
  const time = (report.durationMs / 1000).toFixed(3);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`mqsim conform ${report.target} seed ${report.seed}`)}" tests="${total}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
