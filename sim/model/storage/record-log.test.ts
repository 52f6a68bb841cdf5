import { describe, expect, it } from 'vitest';
import { RecordLog } from './record-log.ts';

const rec = (payload: string, timestampMs: number) => ({ key: null, payload, timestampMs, bytes: payload.length });

describe('RecordLog', () => {
  it('gives consecutive offsets and reads a clamped window', () => {
    const log = new RecordLog();
    for (let i = 0; i < 10; i++) expect(log.append(rec(`m${i}`, 1000 + i)).offset).toBe(i);
    expect(log.nextOffset).toBe(10);
    expect(log.read(8, 5).map((r) => r.payload)).toEqual(['m8', 'm9']);
    expect(log.read(0, 3, 2).map((r) => r.offset)).toEqual([0, 1]);
    expect(log.trimToSize(4)).toBe(6);
    expect(log.startOffset).toBe(6);
    expect(log.read(0, 100).map((r) => r.offset)).toEqual([6, 7, 8, 9]);
    expect(log.get(5)).toBeUndefined();
  });

  it('keeps memory bounded under a long run of appends and trims', () => {
    const log = new RecordLog();
    for (let i = 0; i < 50_000; i++) {
      log.append(rec('x', i));
      log.trimToSize(100);
    }
    expect(log.size).toBe(100);
    expect(log.startOffset).toBe(49_900);
    expect(log.get(49_950)?.offset).toBe(49_950);
  });

  it('trims by age and finds the first record at or after a time', () => {
    const log = new RecordLog();
    [1000, 1000, 2000, 3000, 3000, 4000].forEach((t, i) => log.append(rec(`m${i}`, t)));
    expect(log.firstAtOrAfter(2500)?.offset).toBe(3);
    expect(log.firstAtOrAfter(0)?.offset).toBe(0);
    expect(log.firstAtOrAfter(5000)).toBeUndefined();
    expect(log.trimOlderThan(3000)).toBe(3);
    expect(log.startOffset).toBe(3);
    expect(log.trimOlderThan(10_000)).toBe(3);
    expect(log.size).toBe(0);
    expect(log.startOffset).toBe(6);
    expect(log.append(rec('again', 11_000)).offset).toBe(6);
  });
});

describe('RecordLog epochs and truncation', () => {
  it('keeps a leader-epoch cache, answers where an epoch ends, and truncates the tail with its epochs', () => {
    const log = new RecordLog();
    log.append({ ...rec('a', 1), leaderEpoch: 0 });
    log.append({ ...rec('b', 2), leaderEpoch: 0 });
    log.assignEpoch(2); // elected in epoch 2 at offset 2
    log.append({ ...rec('c', 3), leaderEpoch: 2 });
    expect(log.epochStarts()).toEqual([
      { epoch: 0, start: 0 },
      { epoch: 2, start: 2 },
    ]);
    expect(log.epochEnd(0)).toEqual({ epoch: 0, end: 2 });
    expect(log.epochEnd(1)).toEqual({ epoch: 0, end: 2 });
    expect(log.epochEnd(5)).toEqual({ epoch: 2, end: 3 });
    expect(log.truncateTo(1)).toBe(2);
    expect(log.nextOffset).toBe(1);
    expect(log.epochStarts()).toEqual([{ epoch: 0, start: 0 }]);
    expect(log.truncations).toBe(1);
    expect(log.append(rec('d', 4)).offset).toBe(1);
  });
});
