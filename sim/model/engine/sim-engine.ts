import { EventQueue, type ScheduledEvent } from './event-queue.ts';
import { SeededRandom } from './seeded-random.ts';
import { Trace } from './trace.ts';
import { VirtualClock } from './virtual-clock.ts';

export interface SimEngineOptions {
  /** Seed of every random choice of the run. */
  seed: string | number;
  /** Virtual time at the start of the run, Unix milliseconds. */
  epochMs: number;
}

/**
 * Clock, randomness, event order and trace of one run, bundled so every part of the model shares
 * the same notion of "now" and "what happened".
 */
export class SimEngine {
  readonly clock: VirtualClock;
  readonly random: SeededRandom;
  readonly queue = new EventQueue();
  readonly trace = new Trace();
  private eventsRun = 0;
  /** Optional observer called after every event runs (chaos runs check invariants here). */
  onEvent: ((event: ScheduledEvent) => void) | null = null;

  constructor(readonly options: SimEngineOptions) {
    this.clock = new VirtualClock(options.epochMs);
    this.random = new SeededRandom(String(options.seed));
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs `run` at virtual time `now + delayMs` (after every event already scheduled for that instant). */
  after(delayMs: number, kind: string, run: () => void): ScheduledEvent {
    if (!(delayMs >= 0)) throw new Error(`event delay must be >= 0 ms, got ${delayMs}`);
    return this.queue.schedule(this.clock.now() + delayMs, kind, run);
  }

  /** Runs `run` every `periodMs`, first at `now + periodMs`, for as long as the run goes on. */
  every(periodMs: number, kind: string, run: () => void): void {
    const tick = (): void => {
      run();
      this.after(periodMs, kind, tick);
    };
    this.after(periodMs, kind, tick);
  }

  /** Records a state change in the trace at the current virtual time. */
  record(kind: string, detail: unknown): void {
    this.trace.append(this.clock.now(), kind, detail);
  }

  /** Runs every event due at or before `targetMs`, then sets the clock to `targetMs`. */
  runUntil(targetMs: number): number {
    let ran = 0;
    for (;;) {
      const next = this.queue.peek();
      if (!next || next.at > targetMs) break;
      this.queue.pop();
      this.clock.advanceTo(next.at);
      next.run();
      ran++;
      this.onEvent?.(next);
    }
    this.clock.advanceTo(Math.max(targetMs, this.clock.now()));
    this.eventsRun += ran;
    return ran;
  }

  /** Advances by `ms` of virtual time, running what falls due. */
  advance(ms: number): number {
    return this.runUntil(this.clock.now() + ms);
  }

  get eventsProcessed(): number {
    return this.eventsRun;
  }
}
