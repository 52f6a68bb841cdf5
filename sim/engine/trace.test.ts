import { describe, expect, it } from 'vitest';
import { canonicalJson, Trace } from './trace.ts';

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

  it('keeps the last entries in order while the hash covers all of them', () => {
    const t = new Trace(3);
    for (let i = 0; i < 7; i++) t.append(i, 'e', { i });
    expect(t.length).toBe(7);
    expect(t.tail(10).map((e) => e.index)).toEqual([4, 5, 6]);
    expect(t.tail(2).map((e) => e.index)).toEqual([5, 6]);
  });
});
