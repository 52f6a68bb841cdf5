import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ASSERTIONS, assertionById, hasAssertion } from '../../contract/assertions/index.ts';
import { CONTRACT } from '../../contract/index.ts';
import { SimTarget } from '../targets/sim-target.ts';
import { exitCodeOf, type Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';

/** The whole conformance run against the embedded simulator, over real HTTP on loopback. */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-conform-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mustFailures(report: Report): string[] {
  return report.endpoints.flatMap((e) =>
    e.checks.filter((c) => c.status === 'fail' && c.level === 'MUST').map((c) => `${e.method} ${e.path} ${c.id}: ${c.message}`),
  );
}

describe('mqsim conform --target sim', () => {
  it('passes every MUST check, checks every contract endpoint and writes the reports (envelope A)', async () => {
    const reportDir = join(dir, 'a');
    const report = await runConform({ target: 'sim', seed: 1, reportDir });
    expect(mustFailures(report)).toEqual([]);
    expect(report.vacuous).toBe(false);
    expect(exitCodeOf(report)).toBe(0);
    expect(report.endpoints.map((e) => `${e.method} ${e.path}`).sort()).toEqual(CONTRACT.map((e) => `${e.method} ${e.path}`).sort());
    for (const e of report.endpoints) expect(e.checks.length, `${e.method} ${e.path} has no check`).toBeGreaterThan(0);
    expect(report.summary.untested).toBe(0);
    expect(report.notes.filter((n) => /harness error|could not delete/.test(n))).toEqual([]);
    // The auth checks ran for real: the simulator is on loopback, the run sends from 127.0.0.2.
    const noToken = report.endpoints.flatMap((e) => e.checks.filter((c) => c.id === 'auth.no-token'));
    expect(noToken.length).toBeGreaterThan(0);
    if (!report.notes.some((n) => n.startsWith('auth checks skipped'))) expect(noToken.every((c) => c.status === 'pass')).toBe(true);
    for (const file of ['report.json', 'index.html', 'junit.xml']) expect(existsSync(join(reportDir, file)), file).toBe(true);
    expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).summary.checks).toBe(report.summary.checks);
  });

  it('every check cites one assertion of the contract and takes its level; the clean simulator has no finding at all', async () => {
    const report = await runConform({ target: 'sim', seed: 3 });
    const checks = report.endpoints.flatMap((e) => e.checks.map((c) => ({ e, c })));
    expect(checks.filter(({ c }) => !hasAssertion(c.assertion)).map(({ e, c }) => `${e.id} ${c.id} cites ${c.assertion}`)).toEqual([]);
    // One rule, one level: every check citing an assertion has the assertion's level.
    const levels = new Map<string, Set<string>>();
    for (const { c } of checks) levels.set(c.assertion, (levels.get(c.assertion) ?? new Set()).add(c.level));
    expect(
      [...levels].filter(([id, l]) => l.size !== 1 || !l.has(assertionById(id).level)).map(([id, l]) => `${id}: ${[...l].join('/')}`),
    ).toEqual([]);
    expect(report.findings.map((f) => `${f.level} ${f.id}: ${f.title}`)).toEqual([]);
    expect(report.notes.filter((n) => /harness error/.test(n))).toEqual([]);
    // Spec coverage: tested + untested = testable, each untested one with its reason.
    const c = report.coverage!;
    expect(c.assertions).toBe(ASSERTIONS.length);
    expect(c.tested + c.untested.length).toBe(c.testable);
    expect(c.untested.every((u) => u.reason.length > 0)).toBe(true);
    // A full run leaves nothing untested without saying why: a check cites it, or its `gap` says why none does yet.
    expect(c.untested.filter((u) => u.reason === 'no check of this run cites it').map((u) => u.id)).toEqual([]);
    console.log(
      `spec coverage of the simulator run: ${c.tested} of ${c.testable} testable assertions tested (${Math.round((100 * c.tested) / c.testable)}%)`,
    );
  });

  it('passes with envelope form B too (the spec allows both)', async () => {
    const target = await SimTarget.start({ seed: 2, envelope: 'B' });
    try {
      const report = await runConform({ target, seed: 2 });
      expect(mustFailures(report)).toEqual([]);
      expect(exitCodeOf(report)).toBe(0);
      const envelope = report.endpoints.find((e) => e.path === '/api/cluster/tenant/list')!.checks.find((c) => c.id === 'success-envelope');
      expect(envelope?.message).toBe('envelope form B');
    } finally {
      await target.close();
    }
  });
});
