/**
 * Chaos benchmark: one long run (the issue asks for 20,000 steps on 5 nodes in at most 2 s) and a
 * seed sweep for seeds per minute on one core. Prints figures; asserts nothing (timings vary).
 *   npx tsx scripts/bench-chaos.ts [--steps 20000] [--seeds 30] [--sweep-steps 1000]
 */
import { CHAOS_FAULT_KINDS, generatePlan, type ChaosOptions } from '../sim/chaos/chaos-plan.ts';
import { runPlan } from '../sim/chaos/chaos-runner.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const steps = arg('--steps', 20_000);
const seeds = arg('--seeds', 30);
const sweepSteps = arg('--sweep-steps', 1_000);
const faults = [...CHAOS_FAULT_KINDS];

async function timed(o: ChaosOptions) {
  const t0 = performance.now();
  const { result, failingStep } = await runPlan(o, generatePlan(o));
  return { ms: performance.now() - t0, result, ran: failingStep === null ? result.steps : failingStep + 1 };
}

// Long runs of a few seeds: a run stops at its first violation, so report the steps actually run.
const noLeave = faults.filter((f) => f !== 'leave');
for (const [seed, kinds] of [['2', faults], ['3', faults], ['1', noLeave], ['5', noLeave]] as const) {
  const { ms, result, ran } = await timed({ seed, steps, nodes: 5, faults: [...kinds], bug: null });
  const perStep = ms / ran;
  console.log(
    `long run seed ${seed} (${kinds.length === faults.length ? 'all faults' : 'no leave'}): ${ran}/${result.steps} steps, ${result.events} events, ${ms.toFixed(0)} ms (${(perStep * 1000).toFixed(1)} us/step, ` +
      `${((result.events / ms) * 1000).toFixed(0)} events/s), violations: ${result.violations.map((v) => v.name).join(',') || 'none'}`,
  );
}

const t0 = performance.now();
let failed = 0;
for (let s = 1; s <= seeds; s++) {
  const { result } = await timed({ seed: String(s), steps: sweepSteps, nodes: 5, faults, bug: null });
  if (result.violations.length > 0) failed++;
}
const total = performance.now() - t0;
console.log(`sweep: ${seeds} seeds x ${sweepSteps} steps in ${(total / 1000).toFixed(1)} s = ${((seeds / total) * 60_000).toFixed(0)} seeds/min on one core (${failed} with a violation)`);
