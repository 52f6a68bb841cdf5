import { Worker } from 'node:worker_threads';
import type { ChaosOptions } from '../../sim/runs/chaos/chaos-plan.ts';
import { runSeed, type SeedOutcome } from '../../sim/runs/chaos/seed-sweep.ts';

export interface SweepProgress {
  done: number;
  total: number;
  failed: number;
}

export interface SweepRun {
  /** Outcomes in the order of `seeds`, whatever order the workers finished in. */
  outcomes: SeedOutcome[];
  elapsedMs: number;
}

/**
 * A worker's script. Compiled (dist/, the installed package) it is the worker's own JavaScript. From
 * the sources (a checkout: `npx mqsim` through tsx, vitest) a worker does not inherit the main
 * thread's tsx loader, so it starts with a bootstrap that registers tsx and then imports the entry.
 */
function workerOf(data: Record<string, unknown>): Worker {
  if (import.meta.url.endsWith('.js'))
    return new Worker(new URL('./chaos-sweep-worker.js', import.meta.url), { workerData: data, execArgv: [] });
  return new Worker(new URL('./tsx-worker.mjs', import.meta.url), {
    workerData: { ...data, entry: new URL('./chaos-sweep-worker.ts', import.meta.url).href },
    execArgv: [],
  });
}

/**
 * Runs every seed with the same options. One worker runs in this thread; more run on
 * node:worker_threads, each taking the next seed when it finishes one (the runs are independent,
 * so the outcomes do not depend on which worker ran which seed). Wall time here is only measured.
 */
export async function runSweep(
  template: Omit<ChaosOptions, 'seed'>,
  seeds: readonly string[],
  workers: number,
  onProgress: (p: SweepProgress) => void = () => {},
): Promise<SweepRun> {
  const t0 = performance.now();
  const outcomes = new Array<SeedOutcome>(seeds.length);
  let done = 0;
  let failed = 0;
  const finish = (i: number, o: SeedOutcome): void => {
    outcomes[i] = o;
    done++;
    if (!o.passed) failed++;
    onProgress({ done, total: seeds.length, failed });
  };
  if (workers <= 1 || seeds.length <= 1) {
    for (let i = 0; i < seeds.length; i++) finish(i, await runSeed(template, seeds[i]));
  } else {
    let next = 0;
    const one = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const worker = workerOf({ template });
        let current = -1;
        const feed = (): void => {
          if (next >= seeds.length) {
            worker.postMessage(null);
            return;
          }
          current = next++;
          worker.postMessage({ seed: seeds[current] });
        };
        worker.on('message', (msg: { outcome?: SeedOutcome; error?: string }) => {
          if (msg.error !== undefined) {
            reject(new Error(msg.error));
            void worker.terminate();
            return;
          }
          finish(current, msg.outcome!);
          feed();
        });
        worker.on('error', reject);
        worker.on('exit', () => resolve());
        feed();
      });
    await Promise.all(Array.from({ length: Math.min(workers, seeds.length) }, one));
    if (done < seeds.length) throw new Error(`sweep: a worker ended early; ${seeds.length - done} seeds did not run`);
  }
  return { outcomes, elapsedMs: performance.now() - t0 };
}
