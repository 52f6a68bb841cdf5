import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCopy } from './json-copy.ts';

/** The reference: what the app gets by parsing the text a caller wrote with JSON.stringify. */
const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null');

/** Values of every kind JSON.stringify meets: -0, NaN, undefined, holes, Dates, class instances, toJSON, __proto__ keys, deep nesting. */
const odd = fc.oneof(
  fc.constantFrom(-0, NaN, Infinity, -Infinity, undefined, null, 1e21, 5e-324, '\uD800', '\u2028'),
  fc.constant(new Date(0)),
  fc.constant(new Map([[1, 2]])),
  fc.constant({ toJSON: () => 'x' }),
  fc.constant(JSON.parse('{"__proto__": {"a": 1}}') as unknown),
  fc.constant([1, , 3]), // eslint-disable-line no-sparse-arrays -- a hole, which JSON writes as null
  fc.constant(Object.create(null) as unknown),
  fc.constant(JSON.parse('['.repeat(70) + ']'.repeat(70)) as unknown),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    odd,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('0', '10', '-1', 'a')), tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('jsonCopy', () => {
  it('equals the JSON round trip, key order and -0 included, or declines', () => {
    let copied = 0;
    fc.assert(
      fc.property(value, (v) => {
        const c = jsonCopy(v);
        if (c === undefined) return;
        copied++;
        expect(c).toStrictEqual(roundTrip(v));
        expect(JSON.stringify(c)).toBe(JSON.stringify(v));
        expect(Object.is(c, 0) || c !== v || typeof c !== 'object' || c === null).toBe(true); // a fresh copy, never the value itself
      }),
      { numRuns: 10_000 },
    );
    expect(copied).toBeGreaterThan(3_000);
  });

  it('copies every parsed JSON value without a __proto__ key (what a client sends is plain data)', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), (text) => {
        if (text.includes('"__proto__"')) return;
        const parsed = JSON.parse(text) as unknown;
        expect(jsonCopy(parsed)).toStrictEqual(parsed);
      }),
      { numRuns: 5_000 },
    );
  });

  it('declines what JSON writes differently from its own properties, and nesting the app refuses', () => {
    expect(jsonCopy({ at: new Date(0) })).toBeUndefined();
    expect(jsonCopy({ toJSON: () => 1 })).toBeUndefined();
    expect(jsonCopy(JSON.parse('{"__proto__": 1}'))).toBeUndefined();
    expect(jsonCopy({ f: () => 1 })).toBeUndefined();
    expect(jsonCopy(JSON.parse('['.repeat(64) + ']'.repeat(64)))).toBeDefined();
    expect(jsonCopy(JSON.parse('['.repeat(65) + ']'.repeat(65)))).toBeUndefined();
    expect(jsonCopy({ a: undefined, b: [undefined, -0, NaN] })).toStrictEqual({ b: [null, 0, null] });
  });
});
