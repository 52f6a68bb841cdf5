import { describe, expect, it } from 'vitest';
import { cannedSeriesReason } from './behaviour-checks.ts';

const NOW = 1_767_225_600;
const series = (entries: [string, { date: number; value: number }[]][]) => new Map(entries);

describe('cannedSeriesReason: monitor series shown to be the server’s own', () => {
  it('takes series that differ between data types and reach into the last hour of the server clock', () => {
    const real = series([
      [
        'connection_num',
        [
          { date: NOW - 120, value: 3 },
          { date: NOW - 60, value: 4 },
        ],
      ],
      [
        'topic_num',
        [
          { date: NOW - 120, value: 9 },
          { date: NOW - 60, value: 9 },
        ],
      ],
      ['topic_in_num', []],
    ]);
    expect(cannedSeriesReason(real, NOW)).toBeUndefined();
    expect(cannedSeriesReason(real, undefined)).toBeUndefined();
  });

  it('does not take one canned example answered to every data type (a mock of the API document)', () => {
    const point = [{ date: NOW - 60, value: 0 }];
    expect(
      cannedSeriesReason(
        series([
          ['connection_num', point],
          ['topic_num', point],
          ['message_in_num', point],
        ]),
        NOW,
      ),
    ).toMatch(/all answered the same series: a canned answer would look the same/);
  });

  it('does not take series whose newest point is older than the hour before the server clock', () => {
    const stale = series([
      ['connection_num', [{ date: 0, value: 1 }]],
      ['topic_num', [{ date: 0, value: 2 }]],
    ]);
    expect(cannedSeriesReason(stale, NOW)).toMatch(/more than an hour older than the server's clock/);
    // Without a clock of the server (no token), the dates cannot be judged: differing series are what is left.
    expect(cannedSeriesReason(stale, undefined)).toBeUndefined();
  });

  it('does not take empty series', () => {
    expect(cannedSeriesReason(series([['connection_num', []]]), NOW)).toMatch(/empty series/);
  });
});
