import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/conform/report-model.ts';

/**
 * Runs split over processes as a scheduler starts them: N `mqsim` processes, each with
 * JOB_COMPLETION_INDEX=i (as a Kubernetes Indexed Job sets it) and `--shard-count N`, their outputs
 * merged (`mqsim report merge`, `mqsim chaos merge`) and compared with one unsharded run.
 */

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mqsim-job-shards-'));
const figures: string[] = [];
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  console.log(`job shards:\n  ${figures.join('\n  ')}`);
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function mqsim(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    // Without the scheduler's variable unless a test gives it: the runner's own environment must not leak in.
    const base = { ...process.env };
    delete base.JOB_COMPLETION_INDEX;
    const t0 = performance.now();
    execFile(process.execPath, [BIN, ...args], { env: { ...base, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - t0) });
    });
  });
}

/** Every check of a report as `METHOD path check-id status`, sorted. */
function checksOf(report: Report): string[] {
  return report.endpoints.flatMap((e) => e.checks.map((c) => `${e.method} ${e.path} ${c.id} ${c.status}`)).sort();
}

describe("conform split into an Indexed Job's shards (JOB_COMPLETION_INDEX + --shard-count)", () => {
  it('the shards, merged, have the checks and verdicts of one unsharded run', async () => {
    const N = 3;
    const common = ['conform', '--target', 'sim', '--only', 'tenants,users', '--property-runs', '10', '--quiet'];
    const [whole, ...shards] = await Promise.all([
      mqsim([...common, '--report-dir', join(root, 'conform-whole')]),
      ...Array.from({ length: N }, (_, i) =>
        mqsim([...common, '--shard-count', String(N), '--report-dir', join(root, `conform-${i}`)], { JOB_COMPLETION_INDEX: String(i) }),
      ),
    ]);
    expect(whole.code, whole.stderr).toBe(0);
    for (const s of shards) expect(s.code, s.stderr).toBe(0);
    const reports = Array.from(
      { length: N },
      (_, i) => JSON.parse(readFileSync(join(root, `conform-${i}`, 'report.json'), 'utf8')) as Report,
    );
    // Pod i runs shard i+1 of N, and its replay command names that shard explicitly.
    expect(reports.map((r) => r.shard)).toEqual([1, 2, 3].map((index) => ({ index, count: N })));
    expect(reports[1].replay).toContain('--shard 2/3');

    const merge = await mqsim([
      'report',
      'merge',
      ...Array.from({ length: N }, (_, i) => join(root, `conform-${i}`)),
      '--out',
      join(root, 'conform-merged'),
      '--quiet',
    ]);
    expect(merge.code, merge.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(join(root, 'conform-merged', 'report.json'), 'utf8')) as Report;
    const unsharded = JSON.parse(readFileSync(join(root, 'conform-whole', 'report.json'), 'utf8')) as Report;
    expect(checksOf(merged)).toEqual(checksOf(unsharded));
    expect(merged.summary).toEqual(unsharded.summary);
    expect(merged.findings.map((f) => f.id)).toEqual(unsharded.findings.map((f) => f.id));
    expect(merged.verdict).toBe(unsharded.verdict);
    expect(checksOf(merged).length).toBeGreaterThan(100);
    figures.push(
      `conform, 3 shards + 1 unsharded run at once: ${checksOf(merged).length} checks merged = unsharded (${merged.summary.passed} passed, ${merged.summary.failed} failed, ${merged.summary.skipped} skipped, ${merged.findings.length} findings); shard processes ${shards.map((x) => x.ms).join(' / ')} ms, unsharded ${whole.ms} ms`,
    );
  }, 120_000);

  it('a missing shard fails the merge (exit 2), and a pod index past the count is a usage error', async () => {
    const merge = await mqsim(['report', 'merge', join(root, 'conform-0'), join(root, 'conform-2'), '--out', join(root, 'never')]);
    expect(merge.code).toBe(2);
    expect(merge.stderr).toMatch(/missing shard 2\/3/);
    const past = await mqsim(['conform', '--target', 'sim', '--shard-count', '3', '--only', 'tenants'], { JOB_COMPLETION_INDEX: '3' });
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/JOB_COMPLETION_INDEX=3 is out of range for --shard-count 3 \(0 … 2\)/);
    const unset = await mqsim(['conform', '--target', 'sim', '--shard-count', '3', '--only', 'tenants']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--shard-count 3 takes this process's shard from JOB_COMPLETION_INDEX .* which is not set/);
  }, 60_000);
});

describe("a chaos sweep split into an Indexed Job's shards", () => {
  // grantVoteTwice makes some seeds fail (2 and 5 of 1..6 at these options), so the merge has failures to order and replay files to find.
  const sweep = [
    'chaos',
    '--seeds',
    '1..6',
    '--steps',
    '600',
    '--nodes',
    '5',
    '--faults',
    'crash,partition,loss',
    '--bug',
    'grantVoteTwice',
    '--workers',
    '1',
    '--no-shrink',
    '--json',
  ];

  it("the shards' summary files, merged, give the seeds, verdicts and coverage of one unsharded sweep", async () => {
    const N = 4;
    // The pods share one volume, as the Indexed Job example mounts it.
    const volume = join(root, 'sweep-volume');
    const [whole, ...shards] = await Promise.all([
      mqsim([...sweep, '--out-dir', join(root, 'sweep-whole')]),
      ...Array.from({ length: N }, (_, i) =>
        mqsim([...sweep, '--shard-count', String(N), '--out-dir', volume], { JOB_COMPLETION_INDEX: String(i) }),
      ),
    ]);
    const unsharded = JSON.parse(whole.stdout);
    expect(unsharded.failed.map((f: { seed: string }) => f.seed)).toEqual(['2', '5']);
    expect(whole.code).toBe(1);
    expect(shards.map((s) => JSON.parse(s.stdout).shard)).toEqual(['1/4', '2/4', '3/4', '4/4']);
    for (const i of [1, 2, 3, 4]) expect(existsSync(join(volume, `sweep-${i}-of-4.json`))).toBe(true);

    const merge = await mqsim(['chaos', 'merge', volume, '--json', '--out', join(root, 'merged-sweep.json')]);
    expect(merge.code, merge.stderr).toBe(1);
    const merged = JSON.parse(merge.stdout);
    for (const key of ['seeds_run', 'passed', 'events', 'coverage', 'violations_by_invariant'])
      expect(merged[key], key).toEqual(unsharded[key]);
    // The failing seeds in seed order, with their first violation, though shards 1 and 2 found them.
    expect(merged.failed.map((f: { seed: string; first_violation: string }) => [f.seed, f.first_violation])).toEqual(
      unsharded.failed.map((f: { seed: string; first_violation: string }) => [f.seed, f.first_violation]),
    );
    for (const f of merged.failed) {
      expect(f.replay_file).toBe(join(volume, `chaos-seed-${f.seed}.json`));
      expect(JSON.parse(readFileSync(f.replay_file, 'utf8')).format).toBe('mqsim-chaos-replay/1');
    }
    expect(merged.shards.map((s: { seeds_run: number }) => s.seeds_run)).toEqual([2, 2, 1, 1]);
    expect(JSON.parse(readFileSync(join(root, 'merged-sweep.json'), 'utf8'))).toMatchObject({
      format: 'mqsim-chaos-sweep/1',
      shard: null,
      seeds: '1..6',
      summary: { seeds_run: 6, passed: 4 },
    });
    figures.push(
      `chaos sweep, 4 shards + 1 unsharded run at once: merged = unsharded (${merged.seeds_run} seeds, ${merged.passed} passed, failed ${merged.failed.map((f: { seed: string }) => f.seed).join(', ')}, ${merged.events} events, coverage equal); shard processes ${shards.map((x) => x.ms).join(' / ')} ms`,
    );
  }, 120_000);

  it('refuses a missing shard, a shard given twice and shards of another sweep (exit 2)', async () => {
    const volume = join(root, 'sweep-volume');
    for (const [paths, message] of [
      [
        [join(volume, 'sweep-1-of-4.json'), join(volume, 'sweep-2-of-4.json'), join(volume, 'sweep-4-of-4.json')],
        /missing shard 3\/4 of the sweep/,
      ],
      [[volume, join(volume, 'sweep-3-of-4.json')], /shard 3\/4 is given twice/],
      [[volume, join(root, 'sweep-whole')], /is a whole sweep \(no shard\); with other inputs it overlaps them/],
    ] as const) {
      const r = await mqsim(['chaos', 'merge', ...paths]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const other = join(root, 'other-sweep');
    await mqsim([
      'chaos',
      '--seeds',
      '1..6',
      '--steps',
      '50',
      '--nodes',
      '3',
      '--faults',
      'crash',
      '--workers',
      '1',
      '--shard',
      '3/4',
      '--out-dir',
      other,
    ]);
    const r = await mqsim([
      'chaos',
      'merge',
      join(volume, 'sweep-1-of-4.json'),
      join(volume, 'sweep-2-of-4.json'),
      join(other, 'sweep-3-of-4.json'),
      join(volume, 'sweep-4-of-4.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/are not shards of one sweep/);
  }, 60_000);
});
