/**
 * Timing of a Raft group, in virtual milliseconds. The defaults follow openraft's proportions
 * (heartbeat well under the minimum election timeout, the timeout range twice its minimum) at a
 * heartbeat of 100 ms, which keeps idle groups cheap to simulate.
 */
export interface RaftTiming {
  /** A leader sends AppendEntries (a heartbeat when it has nothing new) to each member this often. */
  heartbeatMs: number;
  /** A follower that heard nothing from a leader for a random time in [min, max] starts an election. */
  electionMinMs: number;
  electionMaxMs: number;
  /** A snapshot is taken (and the log purged up to it) every this many applied entries. */
  snapshotEvery: number;
  /** At most this many entries travel in one AppendEntries. */
  maxEntriesPerAppend: number;
}

export const DEFAULT_RAFT_TIMING: Readonly<RaftTiming> = Object.freeze({
  heartbeatMs: 100,
  electionMinMs: 300,
  electionMaxMs: 600,
  snapshotEvery: 1_000,
  maxEntriesPerAppend: 256,
});
