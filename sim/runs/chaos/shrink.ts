import type { ChaosOptions, ChaosStep } from './chaos-plan.ts';
import { runPlan, type RunExtras } from './chaos-runner.ts';

export interface ShrinkResult {
  plan: ChaosStep[];
  /** Name of the invariant the minimal plan still breaks. */
  violation: string;
  runs: number;
  /** False when the run budget ran out before the plan was 1-minimal. */
  minimal: boolean;
}

/**
 * Delta debugging (Zeller's ddmin, complement removal) over the steps of a failing plan. A candidate
 * "still fails" when it breaks the same invariant as the original run. Steps keep their original
 * times, so the steps that remain happen when they happened before. After each success the plan is
 * cut after the step in which the violation appeared, which shrinks the tail for free. `prepare` is
 * given to every run (see runPlan).
 */
export async function shrinkPlan(
  options: ChaosOptions,
  plan: readonly ChaosStep[],
  maxRuns = 300,
  prepare?: RunExtras['prepare'],
): Promise<ShrinkResult> {
  let runs = 0;
  const extras: RunExtras = prepare ? { prepare } : {};
  const first = await runPlan(options, plan, extras);
  runs++;
  if (first.failingStep === null) throw new Error('shrinkPlan: the plan does not fail');
  const target = first.result.violations[0].name;
  let current = plan.slice(0, first.failingStep + 1);

  /** The candidate cut after its failing step when it breaks `target`, else null. */
  const failing = async (candidate: ChaosStep[]): Promise<ChaosStep[] | null> => {
    runs++;
    const out = await runPlan(options, candidate, extras);
    if (out.failingStep === null || !out.result.violations.some((v) => v.name === target)) return null;
    return candidate.slice(0, out.failingStep + 1);
  };

  let n = 2;
  let minimal = false;
  while (runs < maxRuns) {
    if (current.length < 2) {
      minimal = true;
      break;
    }
    const chunk = Math.ceil(current.length / n);
    let reduced = false;
    for (let i = 0; i < n && runs < maxRuns; i++) {
      const complement = [...current.slice(0, i * chunk), ...current.slice((i + 1) * chunk)];
      if (complement.length === current.length) continue;
      const kept = await failing(complement);
      if (kept) {
        current = kept;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) {
        minimal = true;
        break;
      }
      n = Math.min(current.length, n * 2);
    }
  }
  return { plan: current, violation: target, runs, minimal };
}
