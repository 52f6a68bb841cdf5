import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type History, HistoryArbitrary, parseReplayPath } from './history-arbitrary.ts';

/** Two sources of steps: letters and digits, so a burst shows which source made it. */
const SOURCES = [fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 9 }).map(String)];

/**
 * Runs a history the way the list histories do: step by step, recording how many ran, failing at
 * the first step after which `fails` holds for the steps so far.
 */
function runUntil(h: History<string>, fails: (seen: readonly string[]) => boolean): void {
  const seen: string[] = [];
  for (const [i, s] of h.steps.entries()) {
    h.ran = i + 1;
    seen.push(s);
    if (fails(seen)) throw new Error(`failed at step ${i + 1}`);
  }
}

/** A b, later a 7 (a fault that needs two writes in order). */
const bThen7 = (seen: readonly string[]) => seen.includes('b') && seen.lastIndexOf('7') > seen.indexOf('b');

describe('histories of a fixed depth that shrink like fc.commands', () => {
  it('generates exactly `depth` steps, in bursts of one source', () => {
    for (const h of fc.sample(new HistoryArbitrary(SOURCES, 40), { seed: 3, numRuns: 10 })) {
      expect(h.steps).toHaveLength(40);
      const switches = h.steps.filter((s, i) => i > 0 && /\d/.test(s) !== /\d/.test(h.steps[i - 1])).length;
      expect(switches).toBeLessThan(39);
    }
  });

  it('shrinks a failure to the steps that show it, keeping the order they need', async () => {
    const details = await fc.check(
      fc.property(new HistoryArbitrary(SOURCES, 200), (h) => runUntil(h, bThen7)),
      { seed: 7, numRuns: 50 },
    );
    expect(details.failed).toBe(true);
    const cex = details.counterexample![0];
    expect(cex.steps.slice(0, cex.ran)).toEqual(['b', '7']);
  });

  it('replays the shrunk case from seed, path and replay path alone', async () => {
    const property = (replay?: string) =>
      fc.property(new HistoryArbitrary(SOURCES, 200, parseReplayPath(replay)), (h) => runUntil(h, bThen7));
    const first = await fc.check(property(), { seed: 11, numRuns: 50 });
    const cex = first.counterexample![0];
    const replayPath = /replayPath="([^"]*)"/.exec(cex.metadataForReplay())![1];
    expect(replayPath).toMatch(/^\d+(\.\d+)*$/);
    const again = await fc.check(property(replayPath), { seed: 11, path: first.counterexamplePath!, endOnFailure: true });
    expect(again.failed).toBe(true);
    expect(again.counterexample![0].steps.slice(0, again.counterexample![0].ran)).toEqual(cex.steps.slice(0, cex.ran));
  });

  it('tries the failing source alone first, and replays that too', async () => {
    // Three b's make it fail, whatever digits come between: the letters' source is the one to keep.
    const threeBs = (h: History<string>) => {
      runUntil(h, (seen) => seen.filter((x) => x === 'b').length === 3);
    };
    const property = (replay?: string) =>
      fc.property(new HistoryArbitrary(SOURCES, 300, parseReplayPath(replay)), (h) => {
        try {
          threeBs(h);
        } catch (e) {
          h.focus = 0;
          throw e;
        }
      });
    const first = await fc.check(property(), { seed: 5, numRuns: 20 });
    const cex = first.counterexample![0];
    expect(cex.steps.slice(0, cex.ran)).toEqual(['b', 'b', 'b']);
    const replayPath = /replayPath="([^"]*)"/.exec(cex.metadataForReplay())![1];
    expect(replayPath).toMatch(/f0/);
    const again = await fc.check(property(replayPath), { seed: 5, path: first.counterexamplePath!, endOnFailure: true });
    expect(again.counterexample![0].steps.slice(0, 3)).toEqual(['b', 'b', 'b']);
  });

  it('refuses a malformed replay path', () => {
    expect(() => parseReplayPath('12:3')).toThrow(/step counts joined by dots/);
    expect(() => parseReplayPath('12f')).toThrow(/step counts joined by dots/);
    expect(parseReplayPath('')).toBeUndefined();
    expect(parseReplayPath('12f3.4.5a.6f1a')).toEqual([
      { ran: 12, focus: 3 },
      { ran: 4 },
      { ran: 5, after: true },
      { ran: 6, focus: 1, after: true },
    ]);
  });
});
