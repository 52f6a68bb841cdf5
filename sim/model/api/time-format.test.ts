import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTimeString, localTimeStringByDate, unixSeconds } from './time-format.ts';

describe('time forms', () => {
  it('formats local time as YYYY-MM-DD HH:MM:SS in UTC', () => {
    expect(localTimeString(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05');
  });
  it('formats every time exactly as the Date-based form does (cached days, edges, invalid times)', () => {
    const edges = [0, -1, 999, 1000, -1000, -86_400_000, 86_399_999, 8.64e15, -8.64e15, 8.64e15 + 1, 1.5, -0.5, NaN, Infinity];
    for (const ms of edges) expect(localTimeString(ms)).toBe(localTimeStringByDate(ms));
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.double({ min: -1e13, max: 1e13, noNaN: true })), (ms) => {
        expect(localTimeString(ms)).toBe(localTimeStringByDate(ms));
      }),
      { numRuns: 20_000 },
    );
  });
  it('floors milliseconds to Unix seconds', () => {
    expect(unixSeconds(1_767_225_600_999)).toBe(1_767_225_600);
  });
});
