import type { RaftSnapshot } from './raft-log.ts';
import type { LogEntry } from './types.ts';

/**
 * The RPCs of Raft as messages on the simulated network. A reply is its own message, so loss,
 * duplication, reordering and partitions apply to requests and replies alike.
 */

export interface RequestVote {
  readonly t: 'vote';
  readonly term: number;
  readonly candidate: number;
  readonly lastIndex: number;
  readonly lastTerm: number;
  /** Sent on a leader's request (leadership transfer): voters skip the leader-lease check. */
  readonly transfer: boolean;
}

export interface VoteReply {
  readonly t: 'vote-reply';
  readonly term: number;
  readonly granted: boolean;
}

export interface AppendEntries {
  readonly t: 'append';
  readonly term: number;
  readonly leader: number;
  readonly prevIndex: number;
  readonly prevTerm: number;
  /** Entries from prevIndex + 1; null for a heartbeat. */
  readonly entries: readonly LogEntry[] | null;
  readonly leaderCommit: number;
  /** Virtual ms the leader sent it: the reply echoes it, which dates the follower's acknowledgement. */
  readonly sentAt: number;
}

export interface AppendReply {
  readonly t: 'append-reply';
  readonly term: number;
  readonly ok: boolean;
  /** On success: the last index known to match the leader's log. */
  readonly match: number;
  /** On failure: the index the leader should send from next. */
  readonly hint: number;
  readonly sentAt: number;
}

export interface InstallSnapshot {
  readonly t: 'snapshot';
  readonly term: number;
  readonly leader: number;
  readonly snapshot: RaftSnapshot;
  readonly sentAt: number;
}

/** A leader hands over: the receiver starts an election at once (graceful stop). */
export interface TimeoutNow {
  readonly t: 'timeout-now';
  readonly term: number;
}

export type RaftMessage = RequestVote | VoteReply | AppendEntries | AppendReply | InstallSnapshot | TimeoutNow;
