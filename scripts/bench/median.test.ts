import { describe, expect, it } from 'vitest';
import { median } from './median.ts';

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones, and leaves its input as it was', () => {
    const xs = [5, 1, 3];
    expect(median(xs)).toBe(3);
    expect(xs).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
});
