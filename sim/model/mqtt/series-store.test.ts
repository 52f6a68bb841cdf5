import { describe, expect, it } from 'vitest';
import { SeriesStore } from './series-store.ts';

describe('SeriesStore', () => {
  it('keeps the last `points` points per row, oldest first, both series sharing the dates', () => {
    const store = new SeriesStore(2, 3);
    const row = store.allocate();
    for (let i = 1; i <= 5; i++) store.append(row, 1_000 + i * 60, i, 10 * i);
    expect(store.read(row, 0)).toEqual([
      { date: 1_180, value: 3 },
      { date: 1_240, value: 4 },
      { date: 1_300, value: 5 },
    ]);
    expect(store.read(row, 1).map((p) => p.value)).toEqual([30, 40, 50]);
  });

  it('expires points dated at or before the cut and frees rows for reuse', () => {
    const store = new SeriesStore(1, 60);
    const a = store.allocate();
    const b = store.allocate();
    store.append(a, 100, 1);
    store.append(a, 160, 2);
    store.append(b, 100, 7);
    expect(store.expire(a, 100)).toBe(1);
    expect(store.read(a, 0)).toEqual([{ date: 160, value: 2 }]);
    expect(store.expire(b, 100)).toBe(0);
    store.release(b);
    expect(store.liveRows).toBe(1);
    expect(store.isUsed(b)).toBe(false);
    expect(store.allocate()).toBe(b);
  });

  it('turns cumulative totals into per-interval counts, from zero after a gap or a reset', () => {
    const store = new SeriesStore(1, 60);
    const row = store.allocate();
    const step = (sample: number, total: number): number => {
      const d = store.delta(row, 0, sample, total);
      store.markSeen(row, sample);
      return d;
    };
    expect(step(1, 5)).toBe(5);
    expect(step(2, 8)).toBe(3);
    expect(step(3, 2)).toBe(2); // went down: reset, counts from zero
    expect(step(5, 9)).toBe(9); // not seen in sample 4: no previous total
  });

  it('sums several sources of one row within a sample and starts over the next sample', () => {
    const store = new SeriesStore(2, 60);
    const row = store.allocate();
    expect(store.accumulate(row, 0, 1, 3)).toBe(true);
    expect(store.accumulate(row, 0, 1, 4)).toBe(false);
    store.accumulate(row, 1, 1, 1);
    expect([store.accumulated(row, 0), store.accumulated(row, 1)]).toEqual([7, 1]);
    store.accumulate(row, 0, 2, 1);
    expect([store.accumulated(row, 0), store.accumulated(row, 1)]).toEqual([1, 0]);
  });

  it('spreads rows over chunks without losing any', () => {
    const store = new SeriesStore(2, 2);
    const rows = Array.from({ length: 10_000 }, () => store.allocate());
    rows.forEach((r, i) => store.append(r, 60, i, i + 1));
    expect(rows.every((r, i) => store.read(r, 0)[0].value === i && store.read(r, 1)[0].value === i + 1)).toBe(true);
    expect(() => store.append(rows[0], 120, 1.5)).toThrow(/whole counts/);
  });
});
