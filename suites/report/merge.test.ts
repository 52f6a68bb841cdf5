import { describe, expect, it } from 'vitest';
import { endpointKey, exitCodeOf, type Report } from '../conform/report-model.ts';
import { runConform } from '../run/runner.ts';
import { mergeReports, MergeError } from './merge.ts';
import { check, endpoint, reportOf } from './sample-report.ts';

const shard = (index: number, count: number, endpoints: Report['endpoints'], extra: Partial<Report> = {}) => ({
  file: `s${index}/report.json`,
  report: reportOf(endpoints, {
    shard: { index, count },
    runId: `run-s${index}`,
    replay: `mqsim conform --target http://127.0.0.1:1 --seed 7 --shard ${index}/${count}`,
    ...extra,
  }),
});

/** What a full run and a merged one must agree on: every endpoint with its checks' ids, levels and statuses. */
function outcome(r: Report): string[] {
  return r.endpoints.map((e) => `${endpointKey(e)} ${e.status} | ${e.checks.map((c) => `${c.id}:${c.level}:${c.status}`).join(' ')}`);
}

describe('mqsim report merge (model)', () => {
  it('combines shards in contract order and recomputes counts and verdict', () => {
    const a = shard(
      1,
      2,
      [
        endpoint('GET', '/api/cluster/user/list', 'users', [check('happy-path', 'pass')]),
        endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')]),
      ],
      {
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:02.000Z',
        notes: ['same note', 'only in 1'],
      },
    );
    const b = shard(
      2,
      2,
      [endpoint('GET', '/api/cluster/tenant/list', 'tenants', [check('happy-path', 'fail'), check('x', 'skipped', 'INFO')])],
      {
        startedAt: '2026-01-01T00:00:01.000Z',
        finishedAt: '2026-01-01T00:00:05.000Z',
        notes: ['same note'],
      },
    );
    const m = mergeReports([a, b]);
    expect(m.endpoints.map((e) => e.path)).toEqual(['/api/status', '/api/cluster/tenant/list', '/api/cluster/user/list']);
    expect(m.summary).toMatchObject({ checks: 4, passed: 2, failed: 1, skipped: 1, failedByLevel: { MUST: 1, SHOULD: 0, INFO: 0 } });
    expect(m.verdict).toBe('fail');
    expect(exitCodeOf(m)).toBe(1);
    expect(m.requests.total).toBe(20);
    expect(m.durationMs).toBe(5000);
    expect(m.replay).toBe('mqsim conform --target http://127.0.0.1:1 --seed 7');
    expect(m.notes).toEqual(['same note', 'only in 1']);
    expect(m.shard).toBeUndefined();
    expect(m.merged?.inputs.map((i) => i.shard)).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ]);
  });

  it('refuses different targets, an endpoint twice, and missing or repeated shards', () => {
    const e1 = [endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])];
    const e2 = [endpoint('GET', '/api/info', 'cluster-status', [check('happy-path', 'pass')])];
    expect(() => mergeReports([])).toThrow(MergeError);
    expect(() => mergeReports([shard(1, 2, e1), shard(2, 2, e2, { target: 'sim' })])).toThrow(/different targets/);
    expect(() => mergeReports([shard(1, 2, e1), shard(2, 2, e1)])).toThrow(
      /GET \/api\/status is in both s1\/report.json and s2\/report.json/,
    );
    expect(() => mergeReports([shard(1, 3, e1), shard(3, 3, e2)])).toThrow(/missing shard 2\/3/);
    expect(() => mergeReports([shard(1, 2, e1), { ...shard(1, 2, e2), file: 'again' }])).toThrow(/shard 1\/2 is given twice/);
  });

  it('combines one endpoint reported by several shards of a run (a property dealt elsewhere), never by overlapping runs', () => {
    const own = [{ ...endpoint('GET', '/api/cluster/tenant/list', 'tenants', [check('happy-path', 'pass')]), durationMs: 40 }];
    const property = [
      { ...endpoint('GET', '/api/cluster/tenant/list', 'tenants', [check('property.model.tenants', 'fail')]), durationMs: 0 },
    ];
    const m = mergeReports([shard(2, 2, property), shard(1, 2, own)]);
    expect(m.endpoints).toHaveLength(1);
    expect(m.endpoints[0]).toMatchObject({ status: 'fail', durationMs: 40 });
    expect(m.endpoints[0].checks.map((c) => c.id)).toEqual(['happy-path', 'property.model.tenants']);
    expect(m.summary).toMatchObject({ checks: 2, failed: 1 });
    // Not shards of one run: refused as before.
    expect(() =>
      mergeReports([
        { file: 'a', report: reportOf(own) },
        { file: 'b', report: reportOf(property) },
      ]),
    ).toThrow(/GET \/api\/cluster\/tenant\/list is in both a and b: merge the shards of one run/);
    const otherRun = (index: number, eps: Report['endpoints']) => ({ ...shard(index, 3, eps), file: `other/s${index}` });
    expect(() => mergeReports([shard(1, 2, own), shard(2, 2, []), otherRun(1, property), otherRun(2, []), otherRun(3, [])])).toThrow(
      /is in both s1\/report.json and other\/s1: merge the shards of one run/,
    );
    // The same check in two shards: the runs overlap.
    expect(() => mergeReports([shard(1, 2, own), shard(2, 2, own)])).toThrow(
      /is in both s1\/report.json and s2\/report.json \(check happy-path in each\)/,
    );
  });

  it('is vacuous when any input was, and combines or recomputes the baseline comparison', () => {
    const ok = [endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])];
    const bad = [endpoint('GET', '/api/info', 'cluster-status', [check('happy-path', 'fail')])];
    const vac = mergeReports([shard(1, 2, ok), shard(2, 2, bad, { vacuous: true, vacuousReason: 'all 401' })]);
    expect(vac.vacuous).toBe(true);
    expect(vac.vacuousReason).toContain('s2/report.json: all 401');
    expect(vac.verdictLine).toMatch(/^VACUOUS/);

    const base = reportOf([endpoint('GET', '/api/info', 'cluster-status', [check('happy-path', 'fail')])]);
    const recomputed = mergeReports([shard(1, 2, ok), shard(2, 2, bad)], { baseline: { file: 'base.json', report: base } });
    expect(recomputed.baseline).toMatchObject({ baselineFile: 'base.json', newFindings: [], stillFailing: 1 });
    expect(exitCodeOf(recomputed)).toBe(0);

    const withOwn = (i: number, eps: Report['endpoints'], newMust: number) =>
      shard(i, 2, eps, {
        baseline: {
          baselineFile: 'b.json',
          newFindings: newMust ? [{ id: 'envelope.forms', title: 'm', level: 'MUST', endpoints: ['GET /api/info'] }] : [],
          fixed: [],
          stillFailing: 0,
        },
      });
    const combined = mergeReports([withOwn(1, ok, 0), withOwn(2, bad, 1)]);
    expect(combined.baseline?.newFindings.length).toBe(1);
    expect(exitCodeOf(combined)).toBe(1);
  });
});

describe('shards of a real run', () => {
  it('merged shards give the same endpoints and checks as one full run', async () => {
    const only = ['tenants', 'users', '/api/cluster/acl/*'];
    const full = await runConform({ target: 'sim', seed: 4, only, nodes: 1, properties: false });
    const s1 = await runConform({ target: 'sim', seed: 4, only, nodes: 1, properties: false, shard: { index: 1, count: 2 } });
    const s2 = await runConform({ target: 'sim', seed: 4, only, nodes: 1, properties: false, shard: { index: 2, count: 2 } });
    expect(s1.endpoints.length + s2.endpoints.length).toBe(full.endpoints.length);
    expect(s1.shard).toEqual({ index: 1, count: 2 });
    expect(s1.selection).toEqual({ only, skip: [], contractEndpoints: expect.any(Number), selectedEndpoints: full.endpoints.length });
    expect(s1.replay).toBe(`mqsim conform --target sim --seed 4 --nodes 1 --only 'tenants,users,/api/cluster/acl/*' --shard 1/2`);
    const merged = mergeReports([
      { file: 's2', report: s2 },
      { file: 's1', report: s1 },
    ]);
    expect(outcome(merged)).toEqual(outcome(full));
    expect(merged.summary).toEqual(full.summary);
    expect(merged.verdict).toBe(full.verdict);
    expect(merged.replay).toBe(full.replay);
  }, 60_000);

  // Every check, its status and the findings are the same: a shard makes what its checks need (list
  // populations, the message checks' own topic with a first record) whatever ran before it elsewhere.
  it('with the property suites: every check of the unsharded run is in exactly one of 2 (and of 3) shards', async () => {
    /** The multiset of (endpoint, check id, status), as sorted lines. */
    const outcomes = (r: Report) => r.endpoints.flatMap((e) => e.checks.map((c) => `${endpointKey(e)} ${c.id} ${c.status}`)).sort();
    const full = await runConform({ target: 'sim', seed: 6 });
    expect(full.endpoints.flatMap((e) => e.checks).filter((c) => c.id.startsWith('property.model.')).length).toBeGreaterThan(0);
    for (const count of [2, 3]) {
      const shards = [];
      for (let index = 1; index <= count; index++)
        shards.push({ file: `s${index}`, report: await runConform({ target: 'sim', seed: 6, shard: { index, count } }) });
      const merged = mergeReports(shards);
      expect(outcomes(merged), `${count} shards`).toEqual(outcomes(full));
      expect(merged.summary, `${count} shards`).toEqual(full.summary);
      expect(merged.findings, `${count} shards`).toEqual(full.findings);
    }
  }, 120_000);
});
