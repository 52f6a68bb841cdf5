import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyListQuery } from './list-query.ts';
import { RecordIndex } from './record-index.ts';

interface Rec {
  k: string;
  v: number;
}

type Step = { set: [string, number] } | { delete: string } | { modify: [string, number] } | { read: string } | 'invalidate';

const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(keyArb, fc.integer({ min: 0, max: 3 })).map((set) => ({ set })),
  keyArb.map((k) => ({ delete: k })),
  fc.tuple(keyArb, fc.integer({ min: 0, max: 3 })).map((modify) => ({ modify })),
  fc.constantFrom('k', 'v').map((read) => ({ read })),
  fc.constant('invalidate' as const),
);

/** The field order a stable sort of `base` by `field` gives. */
const stableSortBy = (base: Rec[], field: 'k' | 'v'): Rec[] =>
  base.slice().sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0));

describe('RecordIndex', () => {
  for (const ordered of [false, true]) {
    it(`keeps a Map's contents, its ${ordered ? 'given' : 'insertion'} order and every field order through any writes`, () => {
      fc.assert(
        fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
          const index = new RecordIndex<Rec>(ordered ? { order: (a, b) => b.v - a.v } : {});
          const map = new Map<string, Rec>();
          const base = (): Rec[] => (ordered ? [...map.values()].sort((a, b) => b.v - a.v) : [...map.values()]);
          for (const step of steps) {
            if (step === 'invalidate') index.invalidate();
            else if ('set' in step) {
              const [k, v] = step.set;
              map.set(k, { k, v });
              index.set(k, { k, v });
            } else if ('delete' in step) expect(index.delete(step.delete)).toBe(map.delete(step.delete));
            else if ('modify' in step) {
              const [k, v] = step.modify;
              const held = map.get(k);
              if (!held) expect(() => index.modify(k, () => {})).toThrow();
              else {
                held.v = v;
                index.modify(k, (r) => (r.v = v));
              }
            } else {
              // A query by the field: builds (or reads) that field's index, kept by the writes after it.
              const list = index.listing((r) => r);
              const sorted = list.source.sorted[step.read];
              expect(sorted.slice(0).map((e) => e.record)).toEqual(stableSortBy(base(), step.read as 'k' | 'v'));
            }
            expect(index.size).toBe(map.size);
            expect(index.values()).toEqual(base());
            for (const k of ['a', 'b', 'z']) expect(index.get(k)).toEqual(map.get(k));
          }
          const list = index.listing((r) => r);
          for (const f of ['k', 'v'] as const) expect(list.source.sorted[f].slice(0).map((e) => e.record)).toEqual(stableSortBy(base(), f));
        }),
        { numRuns: 500 },
      );
    });
  }
});

describe('RecordIndex kept matches', () => {
  const spec = { defaultLimit: 100, sortFields: ['k', 'v'] };
  const fields = ['k', 'v'];
  const query = { filter_field: 'v', filter_values: ['1'], exact_match: 'true', sort_field: 'k', sort_by: 'desc' };
  const keys = (index: RecordIndex<Rec>): string[] =>
    applyListQuery(
      index.listing((r) => ({ ...r })),
      query,
      [],
      spec,
      fields,
    ).data.map((r) => r.k);

  it('are dropped by every write: set, replace, modify, delete, invalidate', () => {
    const index = new RecordIndex<Rec>({ viewsOfRecordsOnly: true });
    for (const k of ['a', 'b', 'c']) index.set(k, { k, v: 1 });
    expect(keys(index)).toEqual(['c', 'b', 'a']);
    expect(keys(index)).toEqual(['c', 'b', 'a']); // from the kept matches
    index.set('b', { k: 'b', v: 2 }); // replaced: no longer matches
    expect(keys(index)).toEqual(['c', 'a']);
    index.modify('a', (r) => (r.v = 2));
    expect(keys(index)).toEqual(['c']);
    index.delete('c');
    index.set('d', { k: 'd', v: 1 }); // same size as before
    expect(keys(index)).toEqual(['d']);
    const held = index.get('d')!;
    held.v = 3; // changed in place, then told
    index.invalidate();
    expect(keys(index)).toEqual([]);
  });

  it('are not kept for an index whose views read more than its records', () => {
    const index = new RecordIndex<Rec>();
    index.set('a', { k: 'a', v: 1 });
    expect(index.listing((r) => r).source.matches).toBeUndefined();
  });
});

describe('kept matches of a filtered query', () => {
  it('are kept per sort direction: the same filter sorted desc then asc answers each order', () => {
    const index = new RecordIndex<{ name: string }>({ viewsOfRecordsOnly: true });
    for (const i of ['000', '001', '002', '003', '004']) index.set(`pgx_${i}`, { name: `pgx_${i}` });
    const params = [{ name: 'name', type: 'string' as const, match: 'fuzzy' as const, description: 'name contains' }];
    const spec = { defaultLimit: 100, sortFields: ['name'] };
    const names = (sort_by: string): string[] =>
      applyListQuery(
        index.listing((r) => r),
        { name: 'pgx', limit: 3, sort_field: 'name', sort_by },
        params,
        spec,
        ['name'],
      ).data.map((r) => r.name);
    expect(names('desc')).toEqual(['pgx_004', 'pgx_003', 'pgx_002']);
    expect(names('asc')).toEqual(['pgx_000', 'pgx_001', 'pgx_002']);
    expect(names('desc')).toEqual(['pgx_004', 'pgx_003', 'pgx_002']);
  });
});
