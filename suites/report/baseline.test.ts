import { describe, expect, it } from 'vitest';
import { applyVerdict, exitCodeOf } from '../conform/report-model.ts';
import { baselineLines, compareWithBaseline } from './baseline.ts';
import { check, endpoint, reportOf } from './sample-report.ts';

const baseline = reportOf([
  endpoint('GET', '/api/a', 'a', [check('happy-path', 'pass'), check('list.sort.x', 'fail'), check('data-schema', 'fail', 'INFO'), check('auth.no-token', 'fail')]),
  endpoint('POST', '/api/b', 'b', [check('happy-path', 'skipped')]),
  endpoint('GET', '/api/gone', 'c', [check('happy-path', 'fail')]),
]);

describe('baseline comparison', () => {
  it('new = failing now and not failing before; fixed = failing before and passing now; the rest still failing', () => {
    const now = reportOf([
      endpoint('GET', '/api/a', 'a', [check('happy-path', 'fail'), check('list.sort.x', 'fail'), check('data-schema', 'pass', 'INFO'), check('auth.no-token', 'skipped'), check('brand-new', 'fail', 'SHOULD')]),
      endpoint('POST', '/api/b', 'b', [check('happy-path', 'fail')]),
      endpoint('GET', '/api/new', 'c', [check('happy-path', 'fail')]),
    ]);
    const b = compareWithBaseline(now, baseline, 'base/report.json');
    expect(b.newFailures.map((f) => `${f.method} ${f.path} ${f.id} ${f.level}`)).toEqual([
      'GET /api/a happy-path MUST', // passed before
      'GET /api/a brand-new SHOULD', // did not exist
      'POST /api/b happy-path MUST', // skipped before
      'GET /api/new happy-path MUST', // endpoint not in the baseline
    ]);
    expect(b.fixed.map((f) => `${f.path} ${f.id}`)).toEqual(['/api/a data-schema']);
    expect(b.stillFailing).toBe(1);
    expect(b.newMustFailures).toBe(3);
    expect(b.baselineRunId).toBe('run-1');
    // A failure of the baseline whose endpoint this run did not check is neither fixed nor new.
    expect([...b.newFailures, ...b.fixed].some((f) => f.path === '/api/gone')).toBe(false);
  });

  it('exit status counts only new MUST failures; a known failure alone passes; vacuous never passes', () => {
    const same = reportOf(baseline.endpoints);
    same.baseline = compareWithBaseline(same, baseline, 'base.json');
    applyVerdict(same);
    expect(same.summary.failedByLevel.MUST).toBe(3);
    expect(same.baseline.newFailures).toEqual([]);
    expect(exitCodeOf(same)).toBe(0);
    expect(same.verdictLine).toMatch(/^PASS — no new MUST failure against baseline base\.json: 0 new failures \(MUST 0\), 0 fixed, 4 still failing/);

    const softOnly = reportOf([endpoint('GET', '/api/a', 'a', [check('happy-path', 'fail', 'SHOULD')])]);
    softOnly.baseline = compareWithBaseline(softOnly, baseline, 'base.json');
    expect(exitCodeOf(softOnly)).toBe(0);

    const worse = reportOf([endpoint('GET', '/api/a', 'a', [check('happy-path', 'fail')])]);
    worse.baseline = compareWithBaseline(worse, baseline, 'base.json');
    applyVerdict(worse);
    expect(exitCodeOf(worse)).toBe(1);
    expect(worse.verdictLine).toMatch(/^FAIL — 1 new MUST failures against baseline/);

    expect(exitCodeOf({ ...same, vacuous: true })).toBe(1);
  });

  it('prints counts, each new failure with its message and each fixed one', () => {
    const now = reportOf([endpoint('GET', '/api/a', 'a', [check('happy-path', 'fail'), check('list.sort.x', 'pass')])]);
    const lines = baselineLines(compareWithBaseline(now, baseline, 'b.json'));
    expect(lines[0]).toBe('baseline b.json (run run-1): 1 new failures (MUST 1), 1 fixed, 0 still failing');
    expect(lines).toContain('new failures (1):');
    expect(lines).toContain('  ✗ [MUST] GET /api/a happy-path: happy-path fail');
    expect(lines).toContain('fixed (1):');
    expect(lines).toContain('  ✓ [MUST] GET /api/a list.sort.x');
  });
});
