/**
 * Benchmark of the conformance suites (issue 3): a full run against the embedded simulator
 * (in-process) and against `mqsim serve` over HTTP on loopback, each compared with its budget
 * (30 s and 60 s on a 2-core machine), with the slowest endpoints of each run.
 *
 *   npx tsx scripts/bench-conform.ts [--runs 3] [--json]
 */
import { pathToFileURL } from 'node:url';
import { runConform } from '../suites/run/runner.ts';
import { UrlTarget } from '../suites/targets/url-target.ts';
import { SIM_ADMIN } from '../suites/targets/sim-target.ts';
import { startClusterServer } from '../sim/io/serve/cluster-server.ts';
import type { Report } from '../suites/conform/report-model.ts';
import { argNumber } from './bench/script-args.ts';

const BUDGET_MS = { inProcess: 30_000, served: 60_000 };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function inProcessRun(seed: number): Promise<{ ms: number; report: Report }> {
  const t0 = performance.now();
  const report = await runConform({ target: 'sim', seed });
  return { ms: performance.now() - t0, report };
}

export async function servedRun(seed: number): Promise<{ ms: number; report: Report }> {
  // The served simulator keeps its default admin rate limit (50 requests per second per path), as a
  // user's `mqsim serve` would; the suites wait out the 429 answers.
  const running = await startClusterServer({ seed, nodes: 3, workload: 'demo', port: 0, admin: { ...SIM_ADMIN } });
  try {
    const t0 = performance.now();
    const target = await UrlTarget.create({
      url: running.baseUrl,
      username: SIM_ADMIN.username,
      password: SIM_ADMIN.password,
      signingSecret: SIM_ADMIN.jwtSecret,
    });
    try {
      const report = await runConform({ target, seed });
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

async function main(): Promise<void> {
  const runs = argNumber('runs', 3);
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
