import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceMissing } from '../../../fixtures/testing/required-service.ts';
import { buildFindings } from '../../conform/findings.ts';
import { applyEndpointStatuses, applyVerdict, summarize, type Report } from '../../conform/report-model.ts';
import { runConform } from '../../run/runner.ts';
import { writeReports } from './write-reports.ts';

/**
 * index.html in a real browser: Debian's Chromium driven by playwright-core (which downloads no
 * browser). Without /usr/bin/chromium the test is skipped, saying how to install it.
 */

const CHROMIUM = '/usr/bin/chromium';
const noChromium = serviceMissing(
  'Chromium',
  existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium)`,
);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const dir = mkdtempSync(join(tmpdir(), 'mqsim-html-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real run (a few families), plus one hostile SHOULD failure so the filters have something to separate. */
async function reportWithOneFailure(): Promise<Report> {
  const report = await runConform({ target: 'sim', seed: 5, nodes: 1, only: ['tenants', 'health', 'cluster-status'] });
  const victim = report.endpoints.find((e) => e.path === '/api/cluster/tenant/list')!;
  victim.checks.push({
    id: 'list.sort.hostile',
    assertion: 'errors.case.rejected-body',
    level: 'SHOULD',
    status: 'fail',
    message: 'made up for the browser test <img src=x onerror="window.__xss=1">',
    request: { method: 'GET', path: '/api/cluster/tenant/list?x=</pre><script>window.__xss=2</script>' },
    response: { status: 200, contentType: 'text/html', body: '<script>window.__xss=3;alert(3)</script><svg onload="window.__xss=4">' },
    curl: `curl -sS -X GET 'http://127.0.0.1:1/api/cluster/tenant/list'`,
  });
  // SHOULD findings fail the run (and their endpoints), so the filters have one failing endpoint to find.
  report.failOn = 'should';
  report.findings = buildFindings(report.endpoints, report.citations);
  applyEndpointStatuses(report);
  report.summary = summarize(report.endpoints, report.vacuous, report.findings);
  return applyVerdict(report);
}

describe('index.html in headless Chromium', () => {
  it.skipIf(noChromium)(
    'loads without console errors, shows one matrix row per endpoint, and its filters hide the other rows',
    async () => {
      const report = await reportWithOneFailure();
      const files = writeReports(report, join(dir, 'run'));
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('dialog', (d) => {
          problems.push(`dialog: ${d.message()}`);
          void d.dismiss();
        });
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) problems.push(`request to ${r.url()}`);
        });
        await page.goto(pathToFileURL(files.html).href);

        const rows = page.locator('#matrix tr.ep');
        const visible = page.locator('#matrix tr.ep:visible');
        await expect.poll(() => rows.count()).toBe(report.endpoints.length);
        await expect.poll(() => visible.count()).toBe(report.endpoints.length);
        for (const e of report.endpoints) expect(await page.locator('#matrix').getByText(e.path, { exact: true }).count(), e.path).toBe(1);
        expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(0);
        await expect
          .poll(() => page.locator('#shown').textContent())
          .toBe(`${report.endpoints.length} of ${report.endpoints.length} endpoints shown`);

        // Findings first: the page opens with the count and a jump link to the finding's card.
        await expect.poll(() => page.locator('#findings h2').textContent()).toMatch(/^1 finding/);
        await page.click('#findings a[href="#finding-0"]');
        await expect.poll(() => page.locator('#finding-0 blockquote.cite').textContent()).toContain('rejected request body');

        // The failing endpoint's checks are listed at once (its section is open); a passing one's when it is opened.
        const victimKey = report.endpoints.findIndex((e) => e.path === '/api/cluster/tenant/list');
        const victim = report.endpoints[victimKey];
        await expect.poll(() => page.locator(`#d-${victimKey} li.ck`).count()).toBe(victim.checks.length);
        const quietKey = report.endpoints.findIndex((e) => e.status === 'pass');
        await expect.poll(() => page.locator(`#d-${quietKey} li.ck`).count()).toBe(0);
        await page.click(`#d-${quietKey} > summary`);
        await expect.poll(() => page.locator(`#d-${quietKey} li.ck`).count()).toBe(report.endpoints[quietKey].checks.length);
        await expect
          .poll(() => page.locator(`#d-${quietKey} li.ck`).first().locator('code').textContent())
          .toBe(report.endpoints[quietKey].checks[0].id);

        // Status: only the failing endpoint stays; its failure's request, response and curl are filled in when opened.
        await page.click('button[data-filter="status"][data-value="fail"]');
        await expect.poll(() => visible.count()).toBe(1);
        await expect.poll(() => visible.first().getAttribute('data-status')).toBe('fail');
        await expect.poll(() => page.locator('#matrix tr.ep:visible code', { hasText: '/api/cluster/tenant/list' }).count()).toBe(1);
        await expect.poll(() => page.locator('details.failure pre').count()).toBe(0);
        // The check list's "details" link opens the finding's list and the failure in it.
        await page.click(`#d-${victimKey} li.ck a[href^="#f-"]`);
        await expect.poll(() => page.locator('.failure:visible').count()).toBe(1);
        await expect
          .poll(() => page.locator('.failure:visible pre').allTextContents())
          .toEqual([expect.stringContaining('<script>window.__xss=3;alert(3)</script>'), expect.stringContaining('curl -sS -X GET')]);
        await expect.poll(() => page.locator('.failure:visible').getAttribute('open')).not.toBeNull();
        await expect.poll(() => page.locator('#replay').textContent()).toBe(report.replay);
        await expect.poll(() => page.locator('tr.group:visible').count()).toBe(1);

        // Level: the failure is SHOULD, so "fail" among MUST checks shows nothing; among SHOULD it shows it again.
        await page.click('button[data-filter="level"][data-value="MUST"]');
        await expect.poll(() => visible.count()).toBe(0);
        await expect.poll(() => page.locator('.failure:visible').count()).toBe(0);
        await page.click('button[data-filter="level"][data-value="MUST"]');
        await page.click('button[data-filter="level"][data-value="SHOULD"]');
        await expect.poll(() => visible.count()).toBe(1);
        await expect.poll(() => page.locator('#matrix th.c-MUST').isVisible()).toBe(false);

        // Resource: one tag's endpoints only.
        await page.click('#reset');
        await expect.poll(() => visible.count()).toBe(report.endpoints.length);
        await page.click('button[data-filter="tag"][data-value="health"]');
        const health = report.endpoints.filter((e) => e.tag === 'health').length;
        await expect.poll(() => visible.count()).toBe(health);
        for (const tag of await visible.evaluateAll((els) => els.map((el) => el.getAttribute('data-tag')))) expect(tag).toBe('health');
        await page.click('button[data-filter="status"][data-value="pass"]');
        await expect.poll(() => visible.count()).toBe(report.endpoints.filter((e) => e.tag === 'health' && e.status === 'pass').length);

        // Opening every endpoint lists every check, and the level filter hides the others' checks.
        await page.click('#reset');
        await page.click('#open-all');
        await expect.poll(() => page.locator('li.ck').count()).toBe(report.endpoints.reduce((n, e) => n + e.checks.length, 0));
        await page.click('button[data-filter="level"][data-value="SHOULD"]');
        const shouldChecks = report.endpoints.reduce((n, e) => n + e.checks.filter((c) => c.level === 'SHOULD').length, 0);
        await expect.poll(() => page.locator('li.ck:visible').count()).toBe(shouldChecks);

        // None of the hostile markup ran.
        expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
