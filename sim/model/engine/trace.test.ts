import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, detailJson, Trace, TRACE_BLOCK } from './trace.ts';

/** The first canonical form (sort every object's keys, map + join): the faster one must equal it. */
function referenceCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value === undefined ? null : value);
  if (Array.isArray(value)) return `[${value.map(referenceCanonicalJson).join(',')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(value as Record<string, unknown>).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${referenceCanonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

describe('trace', () => {
  it('hashes the same entries to the same value regardless of key order', () => {
    const a = new Trace();
    const b = new Trace();
    a.append(1, 'k', { x: 1, y: [1, { b: 2, a: 1 }] });
    b.append(1, 'k', { y: [1, { a: 1, b: 2 }], x: 1 });
    expect(a.hash).toBe(b.hash);
    a.append(2, 'k', {});
    expect(a.hash).not.toBe(b.hash);
    expect(canonicalJson({ b: 1, a: undefined, c: null })).toBe('{"b":1,"c":null}');
  });

  it('serialises like the reference canonical form (keys sorted, undefined left out)', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 5 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
      }),
      { numRuns: 1000 },
    );
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalJson([1, , 3])).toBe(referenceCanonicalJson([1, , 3]));
    // The flat fast path (JSON.stringify) must not take what JSON.stringify writes differently.
    const dated = { a: 1, b: new Date(0) };
    const withToJson = Object.assign(Object.create({ toJSON: () => 'x' }) as object, { a: 1 });
    const nullProto = Object.assign(Object.create(null) as object, { a: 1, b: 'x', c: undefined, d: NaN });
    for (const v of [dated, withToJson, nullProto, { '9': 1, '10': 2 }, { a: -0, b: Infinity }]) {
      expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
    }
  });

  it("writes a detail with its kind's key plan as canonicalJson does, whatever the kinds' details look like", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.constantFrom('', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\uD800', '\uDC00x', '😀', 'é'),
    );
    const leaf = fc.oneof(
      text,
      fc.integer(),
      fc.double(),
      fc.constantFrom(-0, NaN, Infinity, -Infinity, 1e21, true, false, null, undefined),
      fc.constant(new Date(0)),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(text, tie('v'), { maxKeys: 3 })),
    })).v;
    // Few key names and kinds, so plans are reused, and replaced when a kind's keys come in another order.
    const key = fc.constantFrom('a', 'b', 'c', 'node', 'term', '9', '10', '__x');
    const detail = fc.oneof(
      fc.dictionary(key, value, { maxKeys: 5 }),
      fc.dictionary(key, value, { maxKeys: 3 }).map((d) => Object.assign(Object.create(null) as object, d)),
      value,
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('k1', 'k2', 'k3'), detail), { maxLength: 30 }), (entries) => {
        for (const [kind, d] of entries) {
          expect(detailJson(kind, d)).toBe(canonicalJson(d));
          expect(detailJson(kind, d)).toBe(referenceCanonicalJson(d));
        }
      }),
      { numRuns: 3_000 },
    );
    const withToJson = Object.assign(Object.create({ toJSON: () => 'x' }) as object, { a: 1 });
    for (const d of [withToJson, { toJSON: () => 'y', a: 1 }, [1, { b: 1, a: 2 }], 'x', 5, null, undefined]) {
      expect(detailJson('k1', d)).toBe(canonicalJson(d));
    }
  });

  it('chains sha256 over blocks of entry bytes, from 64 zeros, as the trace format says', () => {
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const t = new Trace();
    expect(t.hash).toBe('0'.repeat(64));
    t.append(5, 'k', { b: 1, a: 'x' });
    expect(t.hash).toBe(sha(`${'0'.repeat(64)}5"k"{"a":"x","b":1}\n`));
    const long = new Trace();
    let block = '';
    for (let i = 0; i < TRACE_BLOCK + 2; i++) {
      long.append(i, 'e', { i });
      if (i < TRACE_BLOCK) block += `${i}"e"{"i":${i}}\n`;
    }
    const chain = sha('0'.repeat(64) + block);
    expect(long.hash).toBe(sha(`${chain}${TRACE_BLOCK}"e"{"i":${TRACE_BLOCK}}\n${TRACE_BLOCK + 1}"e"{"i":${TRACE_BLOCK + 1}}\n`));
  });

  it('keeps the last entries in order while the hash covers all of them', () => {
    const t = new Trace(3);
    for (let i = 0; i < 7; i++) t.append(i, 'e', { i });
    expect(t.length).toBe(7);
    expect(t.tail(10).map((e) => e.index)).toEqual([4, 5, 6]);
    expect(t.tail(2).map((e) => e.index)).toEqual([5, 6]);
  });
});
