import { describe, expect, it } from 'vitest';
import { RecordLog } from './record-log.ts';
import { reconcileWithLeader } from './replica-fetcher.ts';

/** A log holding one record per offset from 0, each tagged with the given epochs. */
function logOf(epochs: number[]): RecordLog {
  const log = new RecordLog();
  for (const e of epochs) log.append({ key: null, payload: `e${e}`, timestampMs: 0, bytes: 1, leaderEpoch: e });
  return log;
}

describe('reconcileWithLeader (OffsetsForLeaderEpoch with the KIP-279 loop)', () => {
  it('cuts a tail written in an epoch the new leader never had', () => {
    const follower = logOf([0, 0, 0, 0, 0]); // old leader: offsets 3-4 never replicated
    const leader = logOf([0, 0, 0, 1, 1]); // new leader took over at offset 3 in epoch 1
    expect(reconcileWithLeader(follower, leader.epochStarts(), leader.nextOffset)).toBe(2);
    expect(follower.nextOffset).toBe(3);
  });

  it('loops until the logs agree when the follower diverged in an epoch the leader skipped', () => {
    // Follower epochs [0 at 0, 2 at 10]; leader epochs [0 at 0, 1 at 8, 3 at 12]: they agree below 8.
    const follower = logOf([...Array(10).fill(0), ...Array(5).fill(2)]);
    const leader = logOf([...Array(8).fill(0), ...Array(4).fill(1), ...Array(3).fill(3)]);
    reconcileWithLeader(follower, leader.epochStarts(), leader.nextOffset);
    expect(follower.nextOffset).toBe(8);
    expect(follower.lastEpoch()).toBe(0);
  });

  it('keeps a log that is a prefix of the leader', () => {
    const follower = logOf([0, 0, 1]);
    const leader = logOf([0, 0, 1, 1, 2]);
    expect(reconcileWithLeader(follower, leader.epochStarts(), leader.nextOffset)).toBe(0);
    expect(follower.nextOffset).toBe(3);
  });
});
