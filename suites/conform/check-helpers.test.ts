import { describe, expect, it } from 'vitest';
import type { ConformContext } from './conform-context.ts';
import { pollFor, REAL_POLL_MS } from './check-helpers.ts';

/** A context whose target is a server at a URL (no clock control), or the simulator's (advances recorded). */
function contextOf(control?: { advances: number[] }): ConformContext {
  const target = control ? { control: { advance: async (ms: number) => void control.advances.push(ms) } } : {};
  return { target } as unknown as ConformContext;
}

describe('pollFor', () => {
  it('against a server without a clock, asks every REAL_POLL_MS and stops at the first ask that shows the evidence', async () => {
    const asks: number[] = [];
    const start = performance.now();
    const got = await pollFor(contextOf(), 3000, 250, async () => {
      asks.push(performance.now() - start);
      return asks.length === 4 ? 'there' : undefined;
    });
    expect(got.value).toBe('there');
    expect(asks).toHaveLength(4);
    // Three pauses of REAL_POLL_MS, not three of the 250 ms step (timers may fire a little late, never early).
    expect(asks[3]! - asks[0]!).toBeGreaterThanOrEqual(3 * REAL_POLL_MS - 5);
    expect(got.waited).toBeLessThan(3 * 250);
  });

  it('against a server without a clock, gives up once the deadline has passed, after one last ask', async () => {
    const asks: number[] = [];
    const start = performance.now();
    const got = await pollFor(contextOf(), 350, 250, async () => {
      asks.push(performance.now() - start);
      return undefined;
    });
    expect(got.value).toBeUndefined();
    expect(got.waited).toBeGreaterThanOrEqual(350);
    // Judged by when the asks happened, not how many fit in 350 ms (timers fire late on a busy machine):
    // one ask at or after the deadline, the one before it still inside, REAL_POLL_MS apart until then.
    expect(asks.length).toBeGreaterThanOrEqual(2);
    expect(asks.at(-1)!).toBeGreaterThanOrEqual(350 - 1);
    expect(asks.at(-2)!).toBeLessThan(350);
    for (let i = 1; i < asks.length - 1; i++) expect(asks[i]! - asks[i - 1]!).toBeGreaterThanOrEqual(REAL_POLL_MS - 5);
  });

  it("with the simulator's control, advances its clock by the step between asks, as many times as the deadline allows", async () => {
    const control = { advances: [] as number[] };
    let asks = 0;
    const got = await pollFor(contextOf(control), 1000, 250, async () => (++asks === 3 ? 7 : undefined));
    expect(got).toEqual({ value: 7, waited: 500 });
    expect(control.advances).toEqual([250, 250]);
    const never = { advances: [] as number[] };
    const none = await pollFor(contextOf(never), 1000, 250, async () => undefined);
    expect(none).toEqual({ value: undefined, waited: 1000 });
    expect(never.advances).toEqual([250, 250, 250, 250]);
  });
});
