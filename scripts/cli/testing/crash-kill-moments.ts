/**
 * Test support for the crash torture (crash-torture.ts): when, in one life of the server, the kill
 * comes. Every choice is drawn from the seeded generator, so a seed names its sequence of moments
 * (the wall clock still decides what the writers got done by then).
 *
 * - `timed`: after a random time of writing.
 * - `after-answer`: synchronously as a writer receives an answer, after a random time of writing:
 *   the server has just answered, and is then in the middle of the next records (their fsync).
 * - `mid-burst`: the writers are held, released all at once, and the kill follows within 0-3 ms:
 *   eight writes arrive together (one group commit) and the kill lands among them.
 * - `checkpoint` (only with the checkpoint hook): a checkpoint is asked for, and the kill follows
 *   within 0-20 ms, while the server starts building it (a child process, a temporary snapshot file).
 */
import type { SeededRandom } from '../../../sim/model/engine/seeded-random.ts';
import type { Gate } from './crash-torture.ts';

export type KillMode = 'timed' | 'after-answer' | 'mid-burst' | 'checkpoint';

export interface KillControls {
  kill(): void;
  gate: Gate;
  /** Calls `f` synchronously inside the handler of the next answer a writer receives. */
  onNextAnswer(f: () => void): void;
  checkpoint(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves once the kill of this life has been sent (the caller kills again, harmlessly, after). */
export async function pickKillMoment(mode: KillMode, rng: SeededRandom, o: { lifeMs: [number, number] }, c: KillControls): Promise<void> {
  await sleep(rng.int(o.lifeMs[0], o.lifeMs[1]));
  switch (mode) {
    case 'timed':
      return c.kill();
    case 'after-answer':
      // No answer within 5 s would mean every writer is stuck: kill anyway, the check will tell.
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => (c.kill(), resolve()), 5_000);
        c.onNextAnswer(() => {
          c.kill();
          clearTimeout(timer);
          resolve();
        });
      });
    case 'mid-burst': {
      const delay = rng.int(0, 3);
      await c.gate.hold(2_000);
      c.gate.open();
      if (delay > 0) await sleep(delay);
      return c.kill();
    }
    case 'checkpoint': {
      const delay = rng.int(0, 20);
      const asked = c.checkpoint();
      if (delay > 0) await sleep(delay);
      c.kill();
      await asked.catch(() => {});
      return;
    }
  }
}
