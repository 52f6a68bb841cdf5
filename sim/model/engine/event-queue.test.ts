import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EventQueue } from './event-queue.ts';
import { SimEngine } from './sim-engine.ts';

describe('event queue and engine', () => {
  it('runs events by time, then in scheduling order, and moves the clock to each', () => {
    const engine = new SimEngine({ seed: 1, epochMs: 1000 });
    const seen: string[] = [];
    engine.after(20, 'b', () => seen.push(`b@${engine.now()}`));
    engine.after(10, 'a1', () => seen.push(`a1@${engine.now()}`));
    engine.after(10, 'a2', () => {
      seen.push(`a2@${engine.now()}`);
      engine.after(0, 'a3', () => seen.push(`a3@${engine.now()}`));
    });
    engine.runUntil(1015);
    expect(seen).toEqual(['a1@1010', 'a2@1010', 'a3@1010']);
    expect(engine.now()).toBe(1015);
    engine.advance(100);
    expect(seen.at(-1)).toBe('b@1020');
    expect(() => engine.clock.advanceTo(0)).toThrow(/backwards/);
  });

  it('repeats periodic events and draws the same numbers for the same seed', () => {
    const a = new SimEngine({ seed: 'x', epochMs: 0 });
    let ticks = 0;
    a.every(100, 'tick', () => ticks++);
    a.advance(1000);
    expect(ticks).toBe(10);
    const draws = (seed: string) => {
      const r = new SimEngine({ seed, epochMs: 0 }).random;
      return [r.int(1, 100), r.next(), r.id(), r.fork('f').int(0, 9)];
    };
    expect(draws('s')).toEqual(draws('s'));
    expect(draws('s')).not.toEqual(draws('t'));
  });
});

describe('EventQueue against a sorted array', () => {
  it('pops by (time, scheduling order) through thousands of random schedules and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(-1)), { minLength: 1, maxLength: 3_000 }), (steps) => {
        const queue = new EventQueue();
        const reference: { at: number; seq: number }[] = [];
        let seq = 0;
        for (const step of steps) {
          if (step >= 0) {
            queue.schedule(step, 'e', () => {});
            reference.push({ at: step, seq: seq++ });
            reference.sort((a, b) => a.at - b.at || a.seq - b.seq);
          } else {
            const got = queue.pop();
            const want = reference.shift();
            expect(got && { at: got.at, seq: got.seq }).toEqual(want);
          }
          expect(queue.size).toBe(reference.length);
          expect(queue.peek()?.seq).toBe(reference[0]?.seq);
        }
      }),
      { numRuns: 100 },
    );
  });
});
