import { describe, expect, it } from 'vitest';
import { localTimeString, unixSeconds } from './time-format.ts';

describe('time forms', () => {
  it('formats local time as YYYY-MM-DD HH:MM:SS in UTC', () => {
    expect(localTimeString(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05');
  });
  it('floors milliseconds to Unix seconds', () => {
    expect(unixSeconds(1_767_225_600_999)).toBe(1_767_225_600);
  });
});
