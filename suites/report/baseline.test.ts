import { describe, expect, it } from 'vitest';
import { applyVerdict, exitCodeOf } from '../conform/report-model.ts';
import { baselineLines, compareWithBaseline } from './baseline.ts';
import { check, endpoint, reportOf } from './sample-report.ts';

/** Checks citing real assertions, so findings group by them. */
const sortLaw = (status: 'pass' | 'fail') => check('list.sort.x', status, 'MUST', { assertion: 'envelope.paged.data' });
const happy = (status: 'pass' | 'fail' | 'skipped') => check('happy-path', status, 'MUST', { assertion: 'envelope.forms' });
const auth = (status: 'pass' | 'fail' | 'skipped') => check('auth.no-token', status, 'MUST', { assertion: 'auth.rule-5-401' });
const info = (status: 'pass' | 'fail') => check('wrong-method', status, 'INFO', { assertion: 'decision.wrong-method-405' });

const baseline = reportOf([
  endpoint('GET', '/api/a', 'a', [happy('pass'), sortLaw('fail'), info('fail'), auth('fail')]),
  endpoint('POST', '/api/b', 'b', [happy('skipped')]),
  endpoint('GET', '/api/gone', 'c', [auth('fail')]),
]);

describe('baseline comparison by findings', () => {
  it('new = a finding the baseline lacks, or one that now shows on more endpoints; fixed = a finding gone on the endpoints checked', () => {
    const now = reportOf([
      endpoint('GET', '/api/a', 'a', [happy('fail'), sortLaw('fail'), info('pass'), auth('skipped')]),
      endpoint('POST', '/api/b', 'b', [sortLaw('fail')]),
      endpoint('GET', '/api/new', 'c', [happy('fail')]),
    ]);
    const b = compareWithBaseline(now, baseline, 'base/report.json');
    expect(b.newFindings.map((f) => `${f.id} ${f.level} ${f.endpoints.join(',')}`)).toEqual([
      'envelope.forms MUST GET /api/a,GET /api/new', // no such finding before
      'envelope.paged.data MUST POST /api/b', // known, but now also on /api/b
    ]);
    expect(b.fixed.map((f) => `${f.id} ${f.endpoints.join(',')}`)).toEqual([
      'auth.rule-5-401 GET /api/a',
      'decision.wrong-method-405 GET /api/a',
    ]);
    expect(b.stillFailing).toBe(0);
    expect(b.baselineRunId).toBe('run-1');
    // A finding of the baseline on an endpoint this run did not check is neither fixed nor new.
    expect([...b.newFindings, ...b.fixed].some((f) => f.endpoints.includes('GET /api/gone'))).toBe(false);
  });

  it('exit status counts only new findings at the --fail-on level; a known finding alone passes; vacuous never passes', () => {
    const same = reportOf(baseline.endpoints);
    same.baseline = compareWithBaseline(same, baseline, 'base.json');
    applyVerdict(same);
    expect(same.summary.findingsByLevel).toEqual({ MUST: 2, SHOULD: 0, INFO: 1 });
    expect(same.baseline.newFindings).toEqual([]);
    expect(exitCodeOf(same)).toBe(0);
    expect(same.verdictLine).toMatch(
      /^PASS — no new MUST finding against baseline base\.json: 0 new findings \(0 MUST\), 0 fixed, 3 still present/,
    );

    const infoOnly = reportOf([endpoint('GET', '/api/z', 'a', [check('x', 'fail', 'INFO', { assertion: 'decision.secrets-hidden' })])]);
    infoOnly.baseline = compareWithBaseline(infoOnly, baseline, 'base.json');
    expect(exitCodeOf(infoOnly)).toBe(0);
    expect(exitCodeOf({ ...infoOnly, failOn: 'info' })).toBe(1);

    const worse = reportOf([endpoint('GET', '/api/a', 'a', [happy('fail')])]);
    worse.baseline = compareWithBaseline(worse, baseline, 'base.json');
    applyVerdict(worse);
    expect(exitCodeOf(worse)).toBe(1);
    expect(worse.verdictLine).toMatch(/^FAIL — 1 new MUST finding against baseline/);

    expect(exitCodeOf({ ...same, vacuous: true })).toBe(1);
  });

  it('prints counts, each new finding with its title and each fixed one', () => {
    const now = reportOf([endpoint('GET', '/api/a', 'a', [happy('fail'), sortLaw('pass'), auth('fail'), info('fail')])]);
    const lines = baselineLines(compareWithBaseline(now, baseline, 'b.json'));
    expect(lines[0]).toBe('baseline b.json (run run-1): 1 new findings, 1 fixed, 2 still present');
    expect(lines).toContain('new findings (1):');
    expect(lines.some((l) => l.startsWith('  ✗ [MUST] envelope.forms on GET /api/a: happy-path fail'))).toBe(true);
    expect(lines).toContain('fixed (1):');
    expect(lines).toContain('  ✓ [MUST] envelope.paged.data on GET /api/a');
  });
});
