/**
 * One worker of a seed sweep: receives `{seed}` messages, answers each with the seed's outcome, and
 * ends on `null`. The run options come once, in workerData.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ChaosOptions } from '../../sim/runs/chaos/chaos-plan.ts';
import { runSeed } from '../../sim/runs/chaos/seed-sweep.ts';

const template = (workerData as { template: Omit<ChaosOptions, 'seed'> }).template;
const port = parentPort!;
port.on('message', (msg: { seed: string } | null) => {
  if (msg === null) {
    port.close();
    return;
  }
  runSeed(template, msg.seed).then(
    (outcome) => port.postMessage({ outcome }),
    (e: unknown) => port.postMessage({ error: `seed ${msg.seed}: ${(e as Error)?.stack ?? e}` }),
  );
});
