import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedList } from './sorted-list.ts';

type Item = { k: number };
const byK = (a: Item, b: Item): number => a.k - b.k;

describe('SortedList', () => {
  it('holds what a sorted array holds through inserts and deletes, read by position, slice, bound and in reverse', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 3_000 }),
        fc.array(fc.nat(), { maxLength: 1_500 }),
        fc.nat(),
        fc.nat(),
        (keys, deletions, a, b) => {
          const list = new SortedList<Item>(byK);
          const items = keys.map((k) => ({ k }));
          for (const it of items) list.insert(it);
          const live = new Set(items);
          for (const d of deletions) {
            if (items.length === 0) break;
            const it = items[d % items.length];
            expect(list.delete(it)).toBe(live.delete(it));
          }
          const expected = [...live].sort(byK);
          expect(list.size).toBe(expected.length);
          expect(list.toArray()).toEqual(expected);
          expect([...list]).toEqual(expected);
          const reversed: typeof expected = [];
          list.forEachReversed((x) => reversed.push(x));
          expect(reversed).toEqual(expected.slice().reverse());
          const i = expected.length === 0 ? 0 : a % expected.length;
          expect(list.at(i)).toBe(expected[i]);
          const [from, to] = [a % (expected.length + 5), b % (expected.length + 5)];
          expect(list.slice(from, to)).toEqual(expected.slice(from, to));
          const cut = a % 5_001;
          expect(list.partitionPoint((x) => x.k < cut)).toBe(expected.filter((x) => x.k < cut).length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses to delete an equal-keyed item that is not the one held', () => {
    const list = new SortedList<Item>(byK);
    list.insert({ k: 1 });
    expect(list.delete({ k: 1 })).toBe(false);
    expect(list.at(5)).toBeUndefined();
  });
});
