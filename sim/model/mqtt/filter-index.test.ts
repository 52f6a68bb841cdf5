import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterIndex } from './filter-index.ts';
import { topicMatches } from '../topic-filter/topic-filter.ts';

// Small alphabets so that random filters and topics often meet (empty levels and `$` included).
const level = fc.constantFrom('a', 'b', 'c', '', '$SYS', '$x');
const topic = fc
  .array(level, { minLength: 1, maxLength: 5 })
  .map((ls) => ls.join('/'))
  .filter((t) => t.length > 0);
const filter = fc
  .tuple(fc.array(fc.oneof(level, fc.constant('+')), { minLength: 0, maxLength: 4 }), fc.boolean())
  .map(([ls, hash]) => (hash ? [...ls, '#'] : ls).join('/'))
  .filter((f) => f.length > 0);

const naive = (filters: readonly (string | null)[], t: string): number[] =>
  filters.flatMap((f, i) => (f !== null && topicMatches(f, t) ? [i] : []));

const indexed = <V>(index: FilterIndex<V>, t: string): V[] => {
  const out: V[] = [];
  index.match(t, (v) => out.push(v));
  return out;
};

describe('FilterIndex', () => {
  it('finds exactly the filters topicMatches accepts, through adds and removes', () => {
    fc.assert(
      fc.property(
        fc.array(filter, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 15 }),
        fc.array(topic, { minLength: 1, maxLength: 20 }),
        (filters, removals, topics) => {
          const index = new FilterIndex<number>();
          const live: (string | null)[] = filters.slice();
          filters.forEach((f, i) => index.add(f, i));
          for (const r of removals) {
            const i = r % filters.length;
            expect(index.remove(filters[i], i)).toBe(live[i] !== null);
            live[i] = null;
          }
          expect(index.size).toBe(live.filter((f) => f !== null).length);
          for (const t of topics) expect(indexed(index, t).sort((a, b) => a - b)).toEqual(naive(live, t));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('matches the MQTT cases: # covers its parent, $ topics skip leading wildcards', () => {
    const index = new FilterIndex<string>();
    for (const f of ['#', '+/b', 'a/#', '$SYS/#', 'a/+/c', 'a']) index.add(f, f);
    const m = (t: string): string[] => indexed(index, t);
    expect(m('a').sort()).toEqual(['#', 'a', 'a/#']);
    expect(m('$SYS/x').sort()).toEqual(['$SYS/#']);
    expect(m('a/x/c').sort()).toEqual(['#', 'a/#', 'a/+/c']);
    index.remove('a/#', 'a/#');
    expect(m('a/b').sort()).toEqual(['#', '+/b']);
  });
});
