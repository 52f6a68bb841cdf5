import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkKey,
  endpointStatusOf,
  exitCodeOf,
  summarize,
  vacuousRun,
  verdictLineOf,
  type CheckRecord,
  type EndpointReport,
  type Report,
} from '../../conform/report-model.ts';
import { redactReport } from '../../conform/redact.ts';
import { createHash } from 'node:crypto';
import { compareWithBaseline } from '../baseline.ts';
import { check, endpoint, reportOf } from '../sample-report.ts';
import { endpointReplay, renderHtml } from './html-writer.ts';
import { FILTER_SCRIPT } from './html-script.ts';
import { renderJunit } from './junit-writer.ts';
import { copyToLatest, writeReports } from './write-reports.ts';

// Endpoint ids as `<tag>.<path>`, which the replay commands below name.
const ep = (method: string, path: string, tag: string, checks: CheckRecord[]): EndpointReport =>
  endpoint(method, path, tag, checks, `${tag}.${path}`);

function sampleReport(overrides: Partial<Report> = {}): Report {
  const endpoints = [
    ep('GET', '/api/cluster/tenant/list', 'tenants', [
      check('happy-path', 'pass'),
      check('list.sort.tenant_name', 'inconclusive', 'MUST', { assertion: 'list-params.sort-field' }),
    ]),
    ep('POST', '/api/cluster/tenant/create', 'tenants', [
      check('happy-path', 'pass'),
      check('limit.tenant_name.length-129', 'fail', 'MUST', {
        assertion: 'limits.tenant',
        request: { method: 'POST', path: '/api/cluster/tenant/create', body: { tenant_name: 'x'.repeat(129) } },
        response: { status: 200, body: '{"code":0,"message":"success","data":"<script>alert(1)</script><img src=x onerror=alert(2)>"}' },
        curl: "curl -sS -X POST 'http://127.0.0.1:1/api/cluster/tenant/create' --data-raw '{}'",
      }),
    ]),
    ep('GET', '/api/mqtt/overview', 'mqtt', [
      check('data-schema', 'fail', 'INFO', { assertion: 'decision.time-forms', message: 'bad <tag> & "quote" \u0001' }),
    ]),
    ep('GET', '/api/mq9/mail/list', 'mq9', [check('happy-path', 'skipped', 'MUST')]),
    ep('GET', '/health/cluster', 'health', []),
  ];
  return reportOf(endpoints, { notes: ['fixture shard not created'], ...overrides });
}

/** A minimal XML well-formedness check: one root, balanced tags, quoted attributes, escaped text. */
function assertWellFormedXml(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const token = /<\/?([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = token.exec(body)) !== null) {
    consumed = token.lastIndex;
    if (m[4] !== undefined) {
      if (m[4].trim() && stack.length === 0) throw new Error(`text outside the root: ${m[4].slice(0, 40)}`);
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(m[4])) throw new Error(`unescaped & in ${m[4].slice(0, 40)}`);
      continue;
    }
    const closing = m[0].startsWith('</');
    if (closing) {
      if (stack.pop() !== m[1]) throw new Error(`unbalanced </${m[1]}>`);
    } else if (m[3] !== '/') {
      if (stack.length === 0) roots++;
      stack.push(m[1]);
    } else if (stack.length === 0) roots++;
  }
  if (consumed !== body.length) throw new Error(`cannot read XML at: ${body.slice(consumed, consumed + 60)}`);
  if (stack.length !== 0) throw new Error(`unclosed ${stack.join(', ')}`);
  if (roots !== 1) throw new Error(`${roots} root elements`);

  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(xml)) throw new Error('control character in XML');
}

describe('report model', () => {
  it('derives endpoint statuses by their own checks: fail (at --fail-on) > pass > inconclusive > skipped > untested', () => {
    const of = (checks: CheckRecord[], rule?: Parameters<typeof endpointStatusOf>[1]) => endpointStatusOf({ id: 'e', checks }, rule);
    expect(of([])).toBe('untested');
    expect(of([check('a', 'skipped')])).toBe('skipped');
    expect(of([check('a', 'skipped'), check('b', 'inconclusive')])).toBe('inconclusive');
    expect(of([check('a', 'skipped'), check('b', 'pass')])).toBe('pass');
    expect(of([check('a', 'pass'), check('b', 'fail', 'MUST')])).toBe('fail');
    // Below --fail-on, a failure is a finding that does not fail the endpoint (as in JUnit).
    expect(of([check('a', 'pass'), check('b', 'fail', 'INFO')])).toBe('pass');
    expect(of([check('b', 'fail', 'SHOULD')])).toBe('pass');
    expect(of([check('b', 'fail', 'SHOULD')], { failOn: 'should' })).toBe('fail');
    expect(of([check('b', 'fail', 'INFO')], { failOn: 'info' })).toBe('fail');
    // A failure of a cross-cutting finding, or a consequence of a failure elsewhere, counts in that finding.
    expect(of([check('a', 'pass'), check('b', 'fail')], { failOn: 'must', crossCutting: new Set([checkKey('e', 'b')]) })).toBe('pass');
    expect(of([check('a', 'pass'), check('b', 'fail', 'MUST', { consequenceOf: { endpoint: 'x', check: 'y' } })])).toBe('pass');
    // Requests lost because the target had stopped answering tested nothing.
    expect(of([check('b', 'fail', 'MUST', { cause: 'stopped' })])).toBe('untested');
  });

  it('decides an endpoint the same way in report.json, the HTML matrix and JUnit', () => {
    const wire = (i: number) =>
      ep('GET', `/api/x${i}`, 'x', [
        check('happy-path', 'pass'),
        check('content-type', 'fail', 'MUST', { assertion: 'conventions.wire-format' }),
      ]);
    const r = reportOf([
      ...Array.from({ length: 5 }, (_, i) => wire(i)),
      ep('GET', '/api/info-only', 'x', [check('happy-path', 'pass'), check('d', 'fail', 'INFO', { assertion: 'decision.time-forms' })]),
      ep('GET', '/api/own', 'x', [check('happy-path', 'fail', 'MUST', { assertion: 'limits.tenant' })]),
    ]);
    expect(r.findings.map((f) => `${f.id} ${f.crossCutting ?? false}`)).toEqual([
      'conventions.wire-format true',
      'limits.tenant false',
      'decision.time-forms false',
    ]);
    const statuses = Object.fromEntries(r.endpoints.map((e) => [e.path, e.status]));
    expect(statuses).toEqual({
      '/api/x0': 'pass',
      '/api/x1': 'pass',
      '/api/x2': 'pass',
      '/api/x3': 'pass',
      '/api/x4': 'pass',
      '/api/info-only': 'pass',
      '/api/own': 'fail',
    });
    expect(r.summary.endpoints).toMatchObject({ pass: 6, fail: 1 });
    const html = renderHtml(r);
    for (const e of r.endpoints)
      expect(html).toMatch(
        new RegExp(
          `<tr class="ep" [^>]*data-status="${e.status}"[^>]*><td><span class="st ${e.status}">[^]*?<code>${e.path.replace(/\//g, '\\/')}</code>`,
        ),
      );
    const xml = renderJunit(r);
    assertWellFormedXml(xml);
    for (const e of r.endpoints)
      expect(xml).toMatch(
        new RegExp(`<testsuite name="GET ${e.path.replace(/\//g, '\\/')}" tests="\\d+" failures="${e.status === 'fail' ? 1 : 0}"`),
      );
    // The cross-cutting finding is one failing case of its own testsuite, not five.
    expect(xml).toMatch(
      /<testsuite name="cross-cutting findings" tests="1" failures="1"[^>]*>\s*<testcase classname="cross-cutting" name="conventions.wire-format \[MUST\]">/,
    );
    expect(xml).toMatch(/<testsuites [^>]*failures="2"/);
    expect(xml.match(/<property name="mqsim.not-failing" value="part of a cross-cutting finding/g)).toHaveLength(5);
    // --fail-on info: the INFO failure fails its endpoint too, everywhere.
    const strict = reportOf(r.endpoints, { failOn: 'info' });
    expect(strict.endpoints.find((e) => e.path === '/api/info-only')!.status).toBe('fail');
    expect(renderJunit(strict)).toMatch(/<testsuite name="GET \/api\/info-only" tests="2" failures="1"/);
  });

  it('counts checks, failures per level and endpoint statuses', () => {
    const r = sampleReport();
    expect(r.summary).toMatchObject({
      checks: 6,
      passed: 2,
      failed: 2,
      skipped: 1,
      inconclusive: 1,
      failedByLevel: { MUST: 1, SHOULD: 0, INFO: 1 },
      findingsByLevel: { MUST: 1, SHOULD: 0, INFO: 1 },
      untested: 1,
      vacuous: false,
    });
    // The overview's only failure is INFO: a finding, below --fail-on must, so the endpoint passes (as in JUnit).
    expect(r.summary.endpoints).toEqual({ pass: 2, fail: 1, skipped: 1, inconclusive: 0, untested: 1 });
    // Each failed check cites its assertion; findings group them and say which rule of the spec broke.
    expect(r.findings.map((f) => `${f.level} ${f.id} ${f.endpoints.join(',')}`)).toEqual([
      'MUST limits.tenant POST /api/cluster/tenant/create',
      'INFO decision.time-forms GET /api/mqtt/overview',
    ]);
    expect(r.findings[0].citation?.quote).toContain('tenant name / description');
  });

  it('exits 1 for findings at the --fail-on level (MUST by default) or a vacuous run', () => {
    const r = sampleReport();
    expect(exitCodeOf(r)).toBe(1);
    const infoOnly = { ...r, findings: r.findings.filter((f) => f.level === 'INFO') };
    expect(exitCodeOf(infoOnly)).toBe(0);
    expect(exitCodeOf({ ...infoOnly, failOn: 'should' as const })).toBe(0);
    expect(exitCodeOf({ ...infoOnly, failOn: 'info' as const })).toBe(1);
    expect(exitCodeOf({ ...r, vacuous: true, findings: [] })).toBe(1);
  });

  it('calls a run vacuous when ≥90% of answers are 401 or nothing answered', () => {
    expect(vacuousRun({ total: 10, counted: 10, answered: 10, unauthorized: 9, byStatus: {}, transportErrors: 0 }).vacuous).toBe(true);
    expect(vacuousRun({ total: 10, counted: 10, answered: 10, unauthorized: 8, byStatus: {}, transportErrors: 0 }).vacuous).toBe(false);
    expect(vacuousRun({ total: 3, counted: 3, answered: 0, unauthorized: 0, byStatus: {}, transportErrors: 3 })).toMatchObject({
      vacuous: true,
      reason: expect.stringContaining('is the target up'),
    });
    expect(verdictLineOf({ summary: summarize([], true), vacuous: true, vacuousReason: 'all 401', failOn: 'must', findings: [] })).toMatch(
      /^VACUOUS — not a pass: all 401/,
    );
  });
});

describe('report writers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mqsim-writers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes report.json with the fixed shape', () => {
    const files = writeReports(sampleReport(), join(dir, 'run'));
    const json = JSON.parse(readFileSync(files.json, 'utf8'));
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['target', 'seed', 'summary', 'endpoints']));
    expect(json.summary).toMatchObject({ checks: 6, passed: 2, failed: 2, skipped: 1, inconclusive: 1 });
    expect(json.findings).toHaveLength(2);
    for (const e of json.endpoints) {
      expect(Object.keys(e)).toEqual(expect.arrayContaining(['method', 'path', 'status', 'checks']));
      expect(['pass', 'fail', 'skipped', 'inconclusive', 'untested']).toContain(e.status);
      for (const c of e.checks) expect(Object.keys(c)).toEqual(expect.arrayContaining(['id', 'assertion', 'level', 'status', 'message']));
    }
    copyToLatest(files.dir, join(dir, 'latest'));
    expect(JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')).runId).toBe('run-1');
  });

  it('renders one self-contained HTML page: a matrix row per endpoint, failures with request, response, curl and replay', () => {
    const r = sampleReport();
    const html = renderHtml(r);
    for (const e of r.endpoints) expect(html).toContain(`<code>${e.path}</code>`);
    expect(html.match(/<tr class="ep" /g)).toHaveLength(r.endpoints.length);
    expect(html.match(/<tr class="group" /g)).toHaveLength(new Set(r.endpoints.map((e) => e.tag)).size);
    expect(html).toContain('curl -sS -X POST');
    expect(html).toContain('bad &lt;tag&gt; &amp; &quot;quote&quot;');
    expect(html).toContain('<pre id="replay">mqsim conform --target http://127.0.0.1:1 --seed 7</pre>');
    expect(html).toContain('mqsim conform --target http://127.0.0.1:1 --seed 7 --only tenants./api/cluster/tenant/create</pre>');
    expect(html).toMatch(/<svg class="chart"[^>]*>.*<rect /s);
    for (const f of [
      'data-filter="status" data-value="fail"',
      'data-filter="level" data-value="MUST"',
      'data-filter="tag" data-value="tenants"',
    ])
      expect(html).toContain(f);
    expect(html.indexOf('class="verdict')).toBeGreaterThan(0);
    // Findings first: the page opens with their count, MUST first, each a jump link to its card with the citation.
    expect(html).toMatch(/<section class="findings" id="findings"><h2>2 findings/);
    expect(html.indexOf('id="findings"')).toBeLessThan(html.indexOf('<table'));
    expect(html.indexOf('href="#finding-0"><span class="lvl-MUST">')).toBeGreaterThan(0);
    expect(html.indexOf('href="#finding-0"')).toBeLessThan(html.indexOf('href="#finding-1"'));
    expect(html).toContain('id="finding-0"');
    expect(html).toContain('<blockquote class="cite">| tenant name / description | 1-128 / at most 500 |</blockquote>');
    expect(html).toContain('Spec coverage');
  });

  it('escapes hostile response bodies and loads nothing from outside; the CSP allows only its own script', () => {
    const html = renderHtml(sampleReport());
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    // One script runs (by its hash); the other is a data block, which no browser runs.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<script type="application\/json" id="page-data">/g)).toHaveLength(1);
    const data = html.slice(html.indexOf('id="page-data">'), html.indexOf('</script>', html.indexOf('id="page-data">')));
    expect(data).toContain('\\u003cscript>alert(1)\\u003c/script>');
    expect(data).not.toContain('<');
    expect(html).not.toMatch(/<link|<iframe|src="|href="(?!#)|url\(|@import/);
    // The page's script is valid JavaScript (a template literal's escapes are easy to get wrong).
    expect(() => new Function(FILTER_SCRIPT)).not.toThrow();
    const hash = createHash('sha256').update(FILTER_SCRIPT).digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(html).toContain(`<script>${FILTER_SCRIPT}</script>`);
  });

  it('stays small with many failures: each distinct body is stored once, exchanges are loaded on demand', () => {
    const answer = JSON.stringify({ code: 0, message: 'success', data: { echo: 'y'.repeat(3000) } });
    const endpoints = Array.from({ length: 40 }, (_, i) =>
      ep(
        'POST',
        `/api/p${i}`,
        `t${i % 5}`,
        Array.from({ length: 20 }, (_, j) =>
          check(`limit.name.length-${j}`, 'fail', 'MUST', {
            assertion: 'limits.tenant',
            request: { method: 'POST', path: `/api/p${i}`, body: { name: 'x'.repeat(j) } },
            response: { status: 200, contentType: 'application/json', body: answer },
            curl: `curl -sS -X POST 'http://127.0.0.1:1/api/p${i}' --data-raw '{"name":"${'x'.repeat(j)}"}'`,
          }),
        ),
      ),
    );
    const r = reportOf(endpoints);
    const html = renderHtml(r);
    // 800 failures answered with the same 3 KB body: one copy in the data block (plus the finding's example).
    expect(html.split('y'.repeat(3000)).length - 1).toBe(2);
    expect(html.length).toBeLessThan(600_000);
    // Every failure is a collapsed line whose exchange the data block holds.
    expect(html.match(/<details class="failure" id="f-\d+-\d+"/g)).toHaveLength(800);
    const data = JSON.parse(
      html.slice(html.indexOf('id="page-data">') + 15, html.indexOf('</script>', html.indexOf('id="page-data">'))),
    ) as {
      failures: Record<string, number[]>;
      texts: string[];
    };
    expect(Object.keys(data.failures)).toHaveLength(800);
    expect(data.texts.filter((t) => t === answer)).toHaveLength(1);
  });

  it('narrows the replay command to one endpoint only when it can be derived', () => {
    const r = sampleReport({
      replay: 'mqsim conform --target sim --seed 1 --only tenants,mqtt --shard 1/2',
      selection: { only: ['tenants', 'mqtt'], skip: [], contractEndpoints: 68, selectedEndpoints: 15 },
      shard: { index: 1, count: 2 },
    });
    expect(endpointReplay(r, r.endpoints[0])).toBe(`mqsim conform --target sim --seed 1 --only tenants./api/cluster/tenant/list`);
    expect(
      endpointReplay(
        { ...r, replay: 'mqsim conform --target sim --seed 1 --only x ; mqsim conform --target sim --seed 2' },
        r.endpoints[0],
      ),
    ).toBeUndefined();
  });

  it('puts the vacuous warning before anything else', () => {
    const html = renderHtml(sampleReport({ vacuous: true, vacuousReason: '95% answered 401' }));
    const warn = html.indexOf('Vacuous run');
    expect(warn).toBeGreaterThan(0);
    expect(warn).toBeLessThan(html.indexOf('class="verdict'));
    expect(warn).toBeLessThan(html.indexOf('<table'));
  });

  it('renders well-formed JUnit XML: one testsuite per endpoint, one testcase per check, classname = tag', () => {
    const r = sampleReport();
    const xml = renderJunit(r);
    assertWellFormedXml(xml);
    // The INFO failure is a passed case with a property, not a <failure>; the inconclusive check a skipped one.
    expect(xml).toMatch(/<testsuites [^>]*tests="7" failures="1" errors="0" skipped="3"/);
    expect(xml).toMatch(
      /<testcase classname="mqtt" name="data-schema \[INFO\]">\s*<properties>[\s\S]*?<property name="mqsim.info-finding" value="bad &lt;tag&gt;[^"]*"\/>\s*<property name="mqsim.not-failing" value="below --fail-on must[^"]*"\/>\s*<\/properties>\s*<\/testcase>/,
    );
    expect(xml).toContain('<skipped message="inconclusive: list.sort.tenant_name inconclusive"/>');
    expect(xml.match(/<testsuite /g)).toHaveLength(r.endpoints.length);
    expect(xml).toMatch(
      /<testsuite name="POST \/api\/cluster\/tenant\/create" tests="2" failures="1" errors="0" skipped="0" time="[\d.]+"/,
    );
    expect(xml).toMatch(
      /<testsuite name="GET \/health\/cluster" tests="1" failures="0" errors="0" skipped="1"[^>]*>[\s\S]*?<testcase classname="health" name="untested">\s*<skipped message="no check ran for this endpoint"\/>/,
    );
    expect(xml).toMatch(
      /<testcase classname="tenants" name="happy-path \[MUST\]">\s*<properties>\s*<property name="mqsim.assertion" value="[^"]+"\/>/,
    );
    expect(xml).toMatch(/<testcase classname="mq9" name="happy-path \[MUST\]">[\s\S]*?<skipped message="happy-path skipped"\/>/);
    const failure = /<failure type="MUST" message="limit.tenant_name.length-129 fail">([^<]*)<\/failure>/.exec(xml);
    expect(failure).not.toBeNull();
    expect(failure![1]).toContain('request: POST /api/cluster/tenant/create');
    expect(failure![1]).toContain('response: HTTP 200');
    expect(failure![1]).toContain('&lt;script&gt;alert(1)');
    expect(failure![1]).toContain('curl: curl -sS -X POST');
    expect(failure![1]).toContain('replay the run: mqsim conform --target http://127.0.0.1:1 --seed 7');
    expect(xml).toContain('value="bad &lt;tag&gt; &amp; &quot;quote&quot; "');
    expect(() => assertWellFormedXml('<a><b></a>')).toThrow();
  });

  it('marks failures NEW or known when the run has a baseline', () => {
    const r = sampleReport();
    const base = reportOf(
      sampleReport().endpoints.map((e) =>
        e.tag === 'mqtt'
          ? e
          : { ...e, checks: e.checks.map((c) => ({ ...c, status: c.status === 'fail' ? ('pass' as const) : c.status })) },
      ),
    );
    r.baseline = compareWithBaseline(r, base, 'base.json');
    expect(r.baseline.newFindings.map((f) => f.id)).toEqual(['limits.tenant']);
    const xml = renderJunit(r);
    assertWellFormedXml(xml);
    expect(xml).toContain('message="NEW: limit.tenant_name.length-129 fail"');
    const html = renderHtml(r);
    expect(html).toContain('<span class="new">NEW</span>');
    expect(html).toContain('Against the baseline');
  });

  it('redacts secrets the target showed in every artifact: report.json, index.html, junit.xml', () => {
    const secret = 'S3cr3t-admin-pass';
    const leaking = reportOf([
      ep('GET', '/api/cluster/config/get', 'config', [
        check('config.secrets-not-shown', 'fail', 'INFO', {
          assertion: 'decision.secrets-hidden',
          message: 'admin.password is shown',
          response: {
            status: 200,
            body: JSON.stringify({
              code: 0,
              data: { admin: { username: 'admin', password: secret, jwt_secret: 'jwt-secret-value-123' } },
              error: null,
            }),
          },
        }),
        check('other', 'fail', 'MUST', { assertion: 'envelope.forms', message: `the text ${secret} appears here too` }),
      ]),
    ]);
    const redacted = redactReport(leaking, { keep: ['admin'] });
    const files = writeReports(redacted, join(dir, 'redacted'));
    for (const file of [files.json, files.html, files.junit]) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(secret);
      expect(text, file).not.toContain('jwt-secret-value-123');
      expect(text, file).toContain('******');
      // The user name equal to the password's owner stays readable.
      expect(text, file).toContain('admin');
    }
  });
});
