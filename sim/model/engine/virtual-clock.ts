/**
 * The only source of time inside the model. It moves forward only when the event loop or the
 * HTTP layer advances it, so a run's timeline is a function of its inputs, never of the wall clock.
 */
export class VirtualClock {
  private nowMs: number;

  constructor(readonly epochMs: number) {
    if (!Number.isFinite(epochMs) || epochMs < 0) {
      throw new Error(`virtual clock epoch must be a non-negative number of milliseconds, got ${epochMs}`);
    }
    this.nowMs = Math.floor(epochMs);
  }

  /** Current virtual time in Unix milliseconds. */
  now(): number {
    return this.nowMs;
  }

  /** Current virtual time in whole Unix seconds. */
  nowSeconds(): number {
    return Math.floor(this.nowMs / 1000);
  }

  /** Milliseconds since the epoch of this run. */
  elapsed(): number {
    return this.nowMs - this.epochMs;
  }

  /** Moves time forward; moving backwards is refused because every checker assumes monotonic time. */
  advanceTo(targetMs: number): void {
    if (targetMs < this.nowMs) {
      throw new Error(`virtual time cannot move backwards (now ${this.nowMs}, asked ${targetMs})`);
    }
    this.nowMs = Math.floor(targetMs);
  }
}
