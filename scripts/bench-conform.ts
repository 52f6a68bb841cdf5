/**
 * Benchmark of the conformance suites (issue 3): a full run against the embedded simulator
 * (in-process) and against `mqsim serve` over HTTP on loopback, each compared with its budget
 * (30 s and 60 s on a 2-core machine), with the slowest endpoints of each run.
 *
 *   npx tsx scripts/bench-conform.ts [--runs 3] [--json]
 *   npx tsx scripts/bench-conform.ts --concurrency [--runs 3] [--port 0]
 *
 * `--concurrency`: conform over HTTP against a fresh `mqsim serve --seed 1` process per run (its own
 * process, as in CI; demo workload, default admin rate limit; no credentials, as `mqsim conform
 * --target URL`), three ways in the same run, interleaved: as before the per-path budget (no client
 * budget, 429s waited out, properties paced at 40/s, endpoints one after another), `--concurrency 1`,
 * and the default concurrency; medians and ratios. `--port P`: the cluster listens on P, P+1, P+2
 * (default 0: any free ports).
 */
import { execSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runConform } from '../suites/run/runner.ts';
import { UrlTarget } from '../suites/targets/url-target.ts';
import { SIM_ADMIN } from '../suites/targets/sim-target.ts';
import { startClusterServer } from '../sim/io/serve/cluster-server.ts';
import type { Report } from '../suites/conform/report-model.ts';
import { argNumber, argText } from './bench/script-args.ts';
import { DEFAULT_CONCURRENCY } from '../suites/conform/endpoint-lanes.ts';

const BUDGET_MS = { inProcess: 30_000, served: 60_000 };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function inProcessRun(seed: number): Promise<{ ms: number; report: Report }> {
  const t0 = performance.now();
  const report = await runConform({ target: 'sim', seed });
  return { ms: performance.now() - t0, report };
}

/** How a served run reaches its target: the per-path budget (0: none) and the endpoints checked at once. */
export interface ServedRunOptions {
  pathRate?: number;
  concurrency?: number;
  /** Log in as the administrator (default true); `mqsim conform --target URL` without credentials does not. */
  login?: boolean;
}

export async function servedRun(seed: number, how: ServedRunOptions = {}): Promise<{ ms: number; report: Report }> {
  // The served simulator keeps its default admin rate limit (50 requests per second per path), as a
  // user's `mqsim serve` would; the suites wait out the 429 answers.
  const running = await startClusterServer({ seed, nodes: 3, workload: 'demo', port: 0, admin: { ...SIM_ADMIN } });
  try {
    const t0 = performance.now();
    const target = await UrlTarget.create({
      url: running.baseUrl,
      ...(how.login === false ? {} : { username: SIM_ADMIN.username, password: SIM_ADMIN.password, signingSecret: SIM_ADMIN.jwtSecret }),
      ...(how.pathRate !== undefined ? { pathRate: how.pathRate } : {}),
    });
    try {
      const report = await runConform({ target, seed, ...(how.concurrency !== undefined ? { concurrency: how.concurrency } : {}) });
      return { ms: performance.now() - t0, report };
    } finally {
      await target.close();
    }
  } finally {
    await running.close();
  }
}

function slowest(report: Report, n = 5): string {
  return [...report.endpoints]
    .sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0))
    .slice(0, n)
    .map((e) => `${e.method} ${e.path} ${e.durationMs ?? 0} ms`)
    .join('; ');
}

export interface ConformBenchResult {
  medianMs: number;
  budgetMs: number;
  ratioToBudget: number;
  checks: number;
  failed: number;
  slowest: string;
  perEndpointMs: Record<string, number>;
}

const RUNS = {
  'in-process': [inProcessRun, BUDGET_MS.inProcess],
  'served over HTTP': [servedRun, BUDGET_MS.served],
} as const;

/** Median time of `runs` full conformance runs per target kind (importable: `npm run bench` calls it). */
export async function benchConform(
  runs: number,
  kinds: (keyof typeof RUNS)[] = ['in-process', 'served over HTTP'],
): Promise<Record<string, ConformBenchResult>> {
  const results: Record<string, ConformBenchResult> = {};
  for (const name of kinds) {
    const [fn, budget] = RUNS[name];
    const times: number[] = [];
    let last: Report | undefined;
    for (let i = 0; i < runs; i++) {
      const { ms, report } = await fn(1);
      times.push(ms);
      last = report;
    }
    const m = median(times);
    results[name] = {
      medianMs: Math.round(m),
      budgetMs: budget,
      ratioToBudget: Number((m / budget).toFixed(3)),
      checks: last!.summary.checks,
      failed: last!.summary.failed,
      slowest: slowest(last!),
      perEndpointMs: Object.fromEntries(last!.endpoints.map((e) => [`${e.method} ${e.path}`, e.durationMs ?? 0])),
    };
  }
  return results;
}

const CONCURRENCY_WAYS = {
  'before (no budget, 429s)': { pathRate: 0, concurrency: 1 },
  '--concurrency 1': { concurrency: 1 },
  [`--concurrency ${DEFAULT_CONCURRENCY} (default)`]: {},
} satisfies Record<string, ServedRunOptions>;

/** Starts `mqsim serve` in a process of its own; resolves with its URL and a way to stop it. */
async function spawnServe(port: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../bin/mqsim.js', import.meta.url)), 'serve', '--port', String(port), '--seed', '1'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => /^https?:\/\//.test(l));
      if (line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`mqsim serve exited (${code}) before printing its URL: ${out}`)));
  });
  return { url, stop };
}

/** One conform run over HTTP against a fresh `mqsim serve` process. */
async function spawnedRun(port: number, how: ServedRunOptions): Promise<{ ms: number; report: Report }> {
  const served = await spawnServe(port);
  try {
    const target = await UrlTarget.create({ url: served.url, ...(how.pathRate !== undefined ? { pathRate: how.pathRate } : {}) });
    const t0 = performance.now();
    try {
      const report = await runConform({ target, seed: 1, ...(how.concurrency !== undefined ? { concurrency: how.concurrency } : {}) });
      return { ms: performance.now() - t0, report };
    } finally {
      await target.close();
    }
  } finally {
    await served.stop();
  }
}

/** Conform over HTTP, sequential against concurrent (and as before the budget), interleaved run by run. */
export async function benchConcurrency(
  runs: number,
  port = 0,
): Promise<Record<string, { medianMs: number; times: number[]; verdict: string }>> {
  const times: Record<string, number[]> = {};
  const verdicts: Record<string, string> = {};
  for (let i = 0; i < runs; i++)
    for (const [name, how] of Object.entries(CONCURRENCY_WAYS)) {
      const { ms, report } = await spawnedRun(port, how);
      (times[name] ??= []).push(Math.round(ms));
      verdicts[name] = report.verdictLine;
    }
  return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, { medianMs: median(t), times: t, verdict: verdicts[name]! }]));
}

async function mainConcurrency(runs: number): Promise<void> {
  const results = await benchConcurrency(runs, argNumber('port', 0));
  const sequential = results['--concurrency 1']!.medianMs;
  for (const [name, r] of Object.entries(results))
    process.stdout.write(
      `${name.padEnd(28)} median ${(r.medianMs / 1000).toFixed(2)} s of ${runs} (${r.times.map((t) => (t / 1000).toFixed(1)).join(', ')}); ratio to --concurrency 1: ${(r.medianMs / sequential).toFixed(2)}\n${''.padEnd(28)} ${r.verdict}\n`,
    );
}

/** One `mqsim conform --target URL --quiet` process of the checkout at `root` against a fresh `mqsim serve`: its wall time and verdict line. */
async function cliRun(root: string, port: number): Promise<{ ms: number; verdict: string }> {
  const served = await spawnServe(port);
  try {
    const t0 = performance.now();
    const child = spawn(process.execPath, [join(root, 'bin', 'mqsim.js'), 'conform', '--target', served.url, '--quiet'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { ms: performance.now() - t0, verdict: out.split('\n').find((l) => /^(PASS|FAIL)/.test(l)) ?? out.trim().slice(0, 200) };
  } finally {
    await served.stop();
  }
}

/** Conform over HTTP from the sources of `rev` against this checkout's, in turns. */
async function mainBeforeRev(runs: number, rev: string): Promise<void> {
  const here = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'mqsim-bench-conform-before-'));
  try {
    execSync(`git archive ${rev} | tar -x -C ${JSON.stringify(dir)}`, { cwd: here, stdio: ['ignore', 'ignore', 'inherit'] });
    symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
    const ways: [string, string][] = [
      [`before: ${rev}`, dir],
      ['this checkout', here],
    ];
    const times = new Map<string, number[]>();
    const verdicts = new Map<string, string>();
    for (let i = 0; i < runs; i++)
      for (const [name, root] of ways) {
        const r = await cliRun(root, argNumber('port', 0));
        times.set(name, [...(times.get(name) ?? []), Math.round(r.ms)]);
        verdicts.set(name, r.verdict);
      }
    const before = median(times.get(ways[0]![0])!);
    for (const [name] of ways) {
      const t = times.get(name)!;
      process.stdout.write(
        `${name.padEnd(28)} median ${(median(t) / 1000).toFixed(2)} s of ${runs} (${t.map((x) => (x / 1000).toFixed(1)).join(', ')}); ratio to before: ${(median(t) / before).toFixed(2)}\n${''.padEnd(28)} ${verdicts.get(name)}\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const runs = argNumber('runs', 3);
  const beforeRev = argText('before-rev', '');
  if (beforeRev) return mainBeforeRev(runs, beforeRev);
  if (process.argv.includes('--concurrency')) return mainConcurrency(runs);
  const results = await benchConform(runs);
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  for (const [name, r] of Object.entries(results)) {
    process.stdout.write(
      `${name.padEnd(18)} median ${(r.medianMs / 1000).toFixed(2)} s of ${runs} runs; budget ${r.budgetMs / 1000} s (ratio ${r.ratioToBudget}); ${r.checks} checks, ${r.failed} failed\n`,
    );
    process.stdout.write(`${''.padEnd(18)} slowest endpoints: ${r.slowest}\n`);
  }
  process.stdout.write('per-endpoint times (ms), in-process | served:\n');
  const a = results['in-process'].perEndpointMs;
  const b = results['served over HTTP'].perEndpointMs;
  for (const key of Object.keys(a))
    process.stdout.write(`  ${key.padEnd(52)} ${String(a[key]).padStart(6)} | ${String(b[key] ?? '-').padStart(6)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
