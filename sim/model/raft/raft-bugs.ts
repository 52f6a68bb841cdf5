/**
 * Deliberate deviations from Raft, for tests that prove the invariant checkers catch them. All off
 * by default; `cluster.raft.bugs = { grantVoteTwice: true }` switches one on for the whole cluster.
 */
export interface RaftBugs {
  /** A voter grants its vote to every up-to-date candidate of a term, not only to the first. */
  grantVoteTwice?: boolean;
  /** A voter grants its vote without checking that the candidate's log is at least as up to date. */
  skipLogUpToDateCheck?: boolean;
  /** A follower accepts AppendEntries whose previous entry does not match its log. */
  skipConsistencyCheck?: boolean;
  /**
   * A leader commits an entry of a previous term once a majority holds it (no current-term rule),
   * and a new leader does not open its term with a blank entry (the setting of the Raft paper's
   * figure 8, where the rule matters).
   */
  commitPreviousTermByCount?: boolean;
}

export const RAFT_BUG_NAMES = ['grantVoteTwice', 'skipLogUpToDateCheck', 'skipConsistencyCheck', 'commitPreviousTermByCount'] as const;
