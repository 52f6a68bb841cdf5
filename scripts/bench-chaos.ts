/**
 * Chaos benchmark: long runs (20,000 steps on 5 nodes; target at most 0.5 s each, warm), a seed
 * sweep on one core (the issue asks for at least 100 seeds per minute per core) and the same sweep on
 * worker threads, with its speed-up over one core measured in the same run. Prints figures; asserts
 * nothing (timings vary with the machine and its load).
 * The long runs go in a child process; with `--before-rev REV` the same runs on the sources of an
 * earlier revision (extracted beside this checkout) run in turns with this checkout's, `--rounds`
 * times, and the ratio of the median totals is printed with whether each trace hash is unchanged.
 *   npx tsx scripts/bench-chaos.ts [--steps 20000] [--seeds 30] [--sweep-steps 1000] [--workers N] [--before-rev main] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CHAOS_FAULT_KINDS } from '../sim/runs/chaos/chaos-plan.ts';
import { runSweep } from './cli/chaos-sweep.ts';
import { argNumber, argText } from './bench/script-args.ts';
import { CHECKOUT_ROOT, checkoutBefore } from './bench/before-checkout.ts';
import type { ChaosLongRun } from './bench/chaos-long-run.ts';

const steps = argNumber('steps', 20_000);
const seeds = argNumber('seeds', 30);
const sweepSteps = argNumber('sweep-steps', 1_000);
const workers = argNumber('workers', availableParallelism());
const beforeRev = argText('before-rev', '');
const roundsWanted = argNumber('rounds', 1, { positive: true });
const faults = [...CHAOS_FAULT_KINDS];
const TARGET_MS = 500;

/** The long runs in a child process, from the sources under `root`. */
function longRuns(root: string): ChaosLongRun[] {
  const script = fileURLToPath(new URL('./bench/chaos-long-run.ts', import.meta.url));
  const res = spawnSync(process.execPath, ['--import', 'tsx', script, '--root', root, '--steps', String(steps)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (res.status !== 0) throw new Error(`long chaos runs failed (exit ${res.status}):\n${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as ChaosLongRun[];
}

const total = (runs: ChaosLongRun[]): number => runs.reduce((t, r) => t + r.warmMs, 0);
const totalCpu = (runs: ChaosLongRun[]): number => runs.reduce((t, r) => t + r.warmCpuMs, 0);
const before = beforeRev ? checkoutBefore(beforeRev) : undefined;
try {
  const rounds: { now: ChaosLongRun[]; was?: ChaosLongRun[] }[] = [];
  for (let i = 0; i < roundsWanted; i++) {
    // In turns, so a busy moment of the shared machine touches both alike.
    const was = before ? longRuns(before.dir) : undefined;
    rounds.push({ now: longRuns(CHECKOUT_ROOT), ...(was ? { was } : {}) });
  }
  // The round whose total is the median one is shown in full.
  const shown = [...rounds].sort((a, b) => total(a.now) - total(b.now))[Math.floor(rounds.length / 2)];
  shown.now.forEach((r, i) => {
    const was = shown.was?.[i];
    console.log(
      `long run seed ${r.seed} (${r.allFaults ? 'all faults' : 'no leave'}): ${r.ran}/${r.steps} steps, ${r.events} events, ${r.warmMs.toFixed(0)} ms warm (${r.warmCpuMs.toFixed(0)} ms CPU; ${r.coldMs.toFixed(0)} cold), ` +
        `${(r.warmMs / TARGET_MS).toFixed(2)} of the ${TARGET_MS} ms target, ${((r.events / r.warmMs) * 1000).toFixed(0)} events/s, violations: ${r.violations.join(',') || 'none'}` +
        (was
          ? `; before (${beforeRev}) ${was.warmMs.toFixed(0)} ms warm (${was.warmCpuMs.toFixed(0)} CPU), ratio ${(r.warmMs / was.warmMs).toFixed(2)}, trace ${was.traceHash === r.traceHash ? 'equal' : 'DIFFERS'}`
          : ''),
    );
  });
  if (before) {
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const now = median(rounds.map((r) => total(r.now)));
    const was = median(rounds.map((r) => total(r.was!)));
    const nowCpu = median(rounds.map((r) => totalCpu(r.now)));
    const wasCpu = median(rounds.map((r) => totalCpu(r.was!)));
    console.log(
      `four long runs, median of ${roundsWanted} round(s): ${now.toFixed(0)} ms wall (${nowCpu.toFixed(0)} ms CPU), before (${beforeRev}) ${was.toFixed(0)} ms (${wasCpu.toFixed(0)} ms CPU): ratio ${(now / was).toFixed(2)} wall, ${(nowCpu / wasCpu).toFixed(2)} CPU`,
    );
  }
} finally {
  before?.remove();
}

// --seeds 0: the long runs only.
if (seeds > 0) {
  const list = Array.from({ length: seeds }, (_, i) => String(i + 1));
  const template = { steps: sweepSteps, nodes: 5, faults, bug: null };
  const one = await runSweep(template, list, 1);
  const perMin = (seeds / one.elapsedMs) * 60_000;
  console.log(
    `sweep: ${seeds} seeds x ${sweepSteps} steps in ${(one.elapsedMs / 1000).toFixed(1)} s = ${perMin.toFixed(0)} seeds/min on one core (${(perMin / 100).toFixed(1)}x the 100/min target; ${one.outcomes.filter((o) => !o.passed).length} failed)`,
  );
  if (workers > 1) {
    const many = await runSweep(template, list, workers);
    console.log(
      `sweep on ${workers} worker threads: ${(many.elapsedMs / 1000).toFixed(1)} s = ${((seeds / many.elapsedMs) * 60_000).toFixed(0)} seeds/min, ${(one.elapsedMs / many.elapsedMs).toFixed(2)}x one core (same outcomes: ${many.outcomes.every((o, i) => o.trace_hash === one.outcomes[i].trace_hash)})`,
    );
  }
}
