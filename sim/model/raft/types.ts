/**
 * Shapes shared by the Raft implementation and the status endpoints: openraft's log ids, the
 * membership a log entry can carry, the log entry itself and the spec's Raft state object.
 */

/** openraft's `LeaderId`: the term and the node that leads it. */
interface LeaderId {
  term: number;
  node_id: number;
}

/** openraft's `LogId`: where an entry sits in the log and which leader wrote it. */
export interface LogId {
  leader_id: LeaderId;
  index: number;
}

export type RaftRole = 'Leader' | 'Follower' | 'Candidate';

/** A single-config membership: the voters (ascending) and every member's rpc address. */
export interface Membership {
  readonly voters: readonly number[];
  readonly nodes: ReadonlyMap<number, string>;
}

/** The empty membership of a node that has joined no group yet (a wiped node). */
export const NO_MEMBERSHIP: Membership = Object.freeze({
  voters: Object.freeze([]) as readonly number[],
  nodes: new Map<number, string>(),
});

/**
 * One log entry. Entries are immutable and shared by reference between the logs of a group's nodes
 * (replication hands the leader's object over), which keeps replication allocation-free.
 * `uid` is unique per group and `predUid` is the uid of the entry before it in the log of the leader
 * that created it: the checkers use both to verify log matching incrementally.
 */
export interface LogEntry {
  readonly index: number;
  readonly term: number;
  /** Node id of the leader that created the entry (openraft's `leader_id.node_id`). */
  readonly leader: number;
  readonly uid: number;
  readonly predUid: number;
  /** What was written: `blank` (a new leader's first entry), `membership`, or a write kind. */
  readonly kind: string;
  readonly membership: Membership | null;
}

export function logId(term: number, leader: number, index: number): LogId {
  return { leader_id: { term, node_id: leader }, index };
}

/** Quorum of a voter set: a strict majority. */
export function quorumOf(voters: number): number {
  return Math.floor(voters / 2) + 1;
}
