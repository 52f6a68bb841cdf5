import { canonicalJson } from '../../model/engine/trace.ts';
import { generatePlan, type ChaosOptions, type ChaosStep } from './chaos-plan.ts';
import { runPlan, type ChaosResult } from './chaos-runner.ts';
import type { ReplayFile } from './replay-file.ts';

/** The command line that regenerates a seeded run (what `replay` says when no file was written). */
export function chaosCommandOf(o: ChaosOptions): string {
  return `mqsim chaos --seed ${o.seed} --steps ${o.steps} --nodes ${o.nodes} --faults ${o.faults.join(',') || 'none'}${o.bug ? ` --bug ${o.bug}` : ''}`;
}

/** The one JSON line of `chaos --json` and `replay --json` (key order fixed, so lines compare equal). */
export function resultLine(r: ChaosResult): string {
  return JSON.stringify({
    seed: r.seed,
    steps: r.steps,
    events: r.events,
    trace_hash: r.trace_hash,
    invariants: r.invariants,
    violations: r.violations,
    coverage: r.coverage,
    unexercised: r.unexercised,
    replay: r.replay,
  });
}

/** A run fails on a violation, and also when a requested fault kind never happened (it proved nothing). */
export function runFailed(r: ChaosResult): boolean {
  return r.violations.length > 0 || r.unexercised.length > 0;
}

export function replayFileOf(options: ChaosOptions, plan: ChaosStep[], result: ChaosResult, shrunkFrom?: number): ReplayFile {
  return {
    format: 'mqsim-chaos-replay/1',
    options,
    plan,
    expect: { trace_hash: result.trace_hash, events: result.events, violations: result.violations.map((v) => v.name) },
    ...(shrunkFrom !== undefined ? { shrunk_from: shrunkFrom } : {}),
  };
}

/** Runs the same seeded options twice from scratch; equal when the hash and the whole result agree. */
export async function checkDeterminism(options: ChaosOptions): Promise<{ same: boolean; hashes: [string, string] }> {
  const a = (await runPlan(options, generatePlan(options))).result;
  const b = (await runPlan(options, generatePlan(options))).result;
  return { same: a.trace_hash === b.trace_hash && canonicalJson(a) === canonicalJson(b), hashes: [a.trace_hash, b.trace_hash] };
}
