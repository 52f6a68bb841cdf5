import { generatePlan, type ChaosOptions } from './chaos-plan.ts';
import { runPlan, type ChaosCoverage } from './chaos-runner.ts';
import { replayFileOf, runFailed } from './chaos.ts';
import type { ReplayFile } from './replay-file.ts';

/** What one seed of a sweep produced; everything but the replay file is small enough to post between threads. */
export interface SeedOutcome {
  seed: string;
  passed: boolean;
  events: number;
  trace_hash: string;
  /** First invariant broken ("name: message"), or the unexercised fault kinds, or null when it passed. */
  first_violation: string | null;
  coverage: ChaosCoverage;
  /** Set for a failing seed: the run to replay. */
  replay: ReplayFile | null;
}

/** The most seeds one sweep takes (a range is expanded into a list). */
const MAX_SWEEP_SEEDS = 1_000_000;

/**
 * Seeds from `1..1000` (inclusive range of non-negative integers), a comma list (`3,7,11`), or both
 * (`1..10,42`). Duplicates are dropped, order kept. Throws a message naming the problem.
 */
export function parseSeedList(spec: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (s: string): void => {
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  };
  for (const part of spec.split(',').map((p) => p.trim())) {
    if (part === '') throw new Error(`--seeds: empty item in ${JSON.stringify(spec)}`);
    const range = /^(\d+)\.\.(\d+)$/.exec(part);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      if (to < from) throw new Error(`--seeds: range ${part} ends before it starts`);
      if (to - from + 1 + out.length > MAX_SWEEP_SEEDS) throw new Error(`--seeds: at most ${MAX_SWEEP_SEEDS} seeds per sweep`);
      for (let s = from; s <= to; s++) add(String(s));
    } else if (/^[A-Za-z0-9_.-]{1,64}$/.test(part) && !part.includes('..')) add(part);
    else throw new Error(`--seeds: ${JSON.stringify(part)} is neither a seed nor a range FROM..TO (e.g. 1..1000)`);
  }
  return out;
}

/**
 * The inverse of parseSeedList: runs of consecutive integers as ranges (`1..1000,42,abc`), so a sweep of
 * a million seeds is recorded in a few bytes. `parseSeedList(formatSeedList(s))` is `s` for any list
 * parseSeedList returns (no duplicates).
 */
export function formatSeedList(seeds: readonly string[]): string {
  const parts: string[] = [];
  const integer = (s: string) => /^(0|[1-9]\d*)$/.test(s) && Number(s) <= Number.MAX_SAFE_INTEGER;
  for (let i = 0; i < seeds.length;) {
    let j = i;
    if (integer(seeds[i])) while (j + 1 < seeds.length && integer(seeds[j + 1]) && Number(seeds[j + 1]) === Number(seeds[j]) + 1) j++;
    parts.push(j > i ? `${seeds[i]}..${seeds[j]}` : seeds[i]);
    i = j + 1;
  }
  return parts.join(',');
}

/** Runs one seed of a sweep: the same run `mqsim chaos --seed S` makes. */
export async function runSeed(template: Omit<ChaosOptions, 'seed'>, seed: string): Promise<SeedOutcome> {
  const options: ChaosOptions = { ...template, seed };
  const plan = generatePlan(options);
  const { result } = await runPlan(options, plan);
  const failed = runFailed(result);
  const v = result.violations[0];
  return {
    seed,
    passed: !failed,
    events: result.events,
    trace_hash: result.trace_hash,
    first_violation: v ? `${v.name}: ${v.message}` : failed ? `unexercised fault kinds: ${result.unexercised.join(', ')}` : null,
    coverage: result.coverage,
    replay: failed ? replayFileOf(options, plan, result) : null,
  };
}

export interface SweepSummary {
  seeds_run: number;
  passed: number;
  failed: { seed: string; first_violation: string; replay_file: string | null }[];
  events: number;
  /** Sum of every seed's coverage counters (faults by kind summed too). */
  coverage: ChaosCoverage;
  /** Per failing invariant name: how many seeds broke it first. */
  violations_by_invariant: Record<string, number>;
}

const emptyCoverage = (): ChaosCoverage => ({
  leader_changes: 0,
  node_crashes: 0,
  partitions: 0,
  connector_failures: 0,
  bans: 0,
  bans_lifted: 0,
  api_ok: 0,
  api_refused: 0,
  faults: {},
});

/** Adds `c` into `into` (faults by kind too). */
function addCoverage(into: ChaosCoverage, c: ChaosCoverage): void {
  for (const [k, v] of Object.entries(c) as [keyof ChaosCoverage, unknown][]) {
    if (k === 'faults') for (const [f, n] of Object.entries(v as Record<string, number>)) into.faults[f] = (into.faults[f] ?? 0) + n;
    else into[k] += v as number;
  }
}

/** Adds up the outcomes of a sweep, in seed order (so the summary does not depend on the worker count). */
export function summarize(outcomes: readonly SeedOutcome[], replayFiles: ReadonlyMap<string, string> = new Map()): SweepSummary {
  const coverage = emptyCoverage();
  const byInvariant: Record<string, number> = {};
  let events = 0;
  for (const o of outcomes) {
    events += o.events;
    addCoverage(coverage, o.coverage);
    if (!o.passed && o.first_violation) {
      const name = o.first_violation.split(':')[0];
      byInvariant[name] = (byInvariant[name] ?? 0) + 1;
    }
  }
  return {
    seeds_run: outcomes.length,
    passed: outcomes.filter((o) => o.passed).length,
    failed: outcomes
      .filter((o) => !o.passed)
      .map((o) => ({ seed: o.seed, first_violation: o.first_violation ?? '', replay_file: replayFiles.get(o.seed) ?? null })),
    events,
    coverage,
    violations_by_invariant: byInvariant,
  };
}

/**
 * The summary of a sweep from the summaries of its parts (its shards): counts and coverage added up,
 * the failing seeds in `order` (the sweep's seed list, as one run of it would list them).
 */
export function combineSummaries(parts: readonly SweepSummary[], order: ReadonlyMap<string, number>): SweepSummary {
  const coverage = emptyCoverage();
  const byInvariant: Record<string, number> = {};
  for (const p of parts) {
    addCoverage(coverage, p.coverage);
    for (const [name, n] of Object.entries(p.violations_by_invariant)) byInvariant[name] = (byInvariant[name] ?? 0) + n;
  }
  const failed = parts.flatMap((p) => p.failed).sort((a, b) => (order.get(a.seed) ?? Infinity) - (order.get(b.seed) ?? Infinity));
  // Invariants in the order one run would first meet them.
  const violations_by_invariant: Record<string, number> = {};
  for (const f of failed) {
    const name = f.first_violation.split(':')[0];
    if (name in byInvariant) violations_by_invariant[name] = byInvariant[name];
  }
  for (const [name, n] of Object.entries(byInvariant)) violations_by_invariant[name] ??= n;
  return {
    seeds_run: parts.reduce((n, p) => n + p.seeds_run, 0),
    passed: parts.reduce((n, p) => n + p.passed, 0),
    failed,
    events: parts.reduce((n, p) => n + p.events, 0),
    coverage,
    violations_by_invariant,
  };
}
