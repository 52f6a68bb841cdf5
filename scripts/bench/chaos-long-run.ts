/**
 * The long chaos runs of bench-chaos.ts (20,000 steps on 5 nodes), in this process, from the sources
 * under `--root` (this checkout by default, or an earlier revision's extracted by before-checkout.ts).
 * Each seed runs twice (the first warms the JIT up; the second counts). Prints one JSON line.
 *
 *   node --import tsx scripts/bench/chaos-long-run.ts --root DIR [--steps 20000]
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argNumber, argText } from './script-args.ts';
import { CHECKOUT_ROOT } from './before-checkout.ts';

export interface ChaosLongRun {
  seed: string;
  allFaults: boolean;
  warmMs: number;
  /** CPU time of the warm run (user + system): steadier than wall time on a shared machine. */
  warmCpuMs: number;
  coldMs: number;
  steps: number;
  ran: number;
  events: number;
  traceHash: string;
  violations: string[];
}

interface Options {
  seed: string;
  steps: number;
  nodes: number;
  faults: string[];
  bug: null;
}
interface Outcome {
  result: { steps: number; events: number; trace_hash: string; violations: { name: string }[] };
  failingStep: number | null;
}

const root = argText('root', CHECKOUT_ROOT);
const steps = argNumber('steps', 20_000, { positive: true });
const plan = (await import(pathToFileURL(join(root, 'sim/runs/chaos/chaos-plan.ts')).href)) as {
  CHAOS_FAULT_KINDS: readonly string[];
  generatePlan(o: Options): unknown;
};
const runner = (await import(pathToFileURL(join(root, 'sim/runs/chaos/chaos-runner.ts')).href)) as {
  runPlan(o: Options, p: unknown): Promise<Outcome>;
};

async function timed(o: Options): Promise<{ ms: number; cpuMs: number; out: Outcome }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await runner.runPlan(o, plan.generatePlan(o));
  const cpu = process.cpuUsage(cpu0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, out };
}

const faults = [...plan.CHAOS_FAULT_KINDS];
const noLeave = faults.filter((f) => f !== 'leave');
const runs: ChaosLongRun[] = [];
for (const [seed, kinds] of [
  ['2', faults],
  ['3', faults],
  ['1', noLeave],
  ['5', noLeave],
] as const) {
  const o: Options = { seed, steps, nodes: 5, faults: [...kinds], bug: null };
  const cold = await timed(o);
  const { ms, cpuMs, out } = await timed(o);
  runs.push({
    seed,
    allFaults: kinds.length === faults.length,
    warmMs: ms,
    warmCpuMs: cpuMs,
    coldMs: cold.ms,
    steps: out.result.steps,
    ran: out.failingStep === null ? out.result.steps : out.failingStep + 1,
    events: out.result.events,
    traceHash: out.result.trace_hash,
    violations: out.result.violations.map((v) => v.name),
  });
}
process.stdout.write(`${JSON.stringify(runs)}\n`);
