import { describe, expect, it } from 'vitest';
import { fnv1a } from './fnv1a.ts';

describe('fnv1a', () => {
  it('matches the reference FNV-1a 32-bit test vectors', () => {
    // Vectors from the FNV reference test suite (Fowler, Noll, Vo; draft-eastlake-fnv, FNV-1a 32-bit).
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('is an unsigned 32-bit integer for long text', () => {
    const h = fnv1a('tenant/group/'.repeat(1000));
    expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
  });
});
