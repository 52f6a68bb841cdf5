import { logId, NO_MEMBERSHIP, type LogEntry, type LogId, type Membership } from './types.ts';

/** A snapshot: the state machine up to `index`, the membership in force there, and its position. */
export interface RaftSnapshot {
  readonly index: number;
  readonly term: number;
  readonly leader: number;
  readonly uid: number;
  readonly membership: Membership;
  readonly membershipLogId: LogId;
  /** The state machine: applied entries per kind, up to `index`. */
  readonly applied: ReadonlyMap<string, number>;
  readonly appliedTotal: number;
}

/**
 * The log of one node in one group, with the snapshot that replaced its prefix. What it holds is
 * what the node has persisted: it survives a crash, and only a wipe loses it.
 *
 * Positions up to `baseIndex` are covered by the snapshot (or, before any snapshot, by the initial
 * membership at index 0); `entries[k]` sits at `baseIndex + 1 + k`.
 */
export class RaftLog {
  baseIndex = 0;
  baseTerm = 0;
  baseLeader = 0;
  /** uid 0 is the initial membership every founding node shares. */
  baseUid = 0;
  snapshot: RaftSnapshot | null = null;
  entries: LogEntry[] = [];
  /** The membership in force: the latest membership entry of the log, even uncommitted (Raft §4.1). */
  membership: Membership;
  membershipIndex = 0;
  membershipLogId: LogId;
  private baseMembership: Membership;
  private baseMembershipLogId: LogId;

  constructor(initial: Membership = NO_MEMBERSHIP) {
    this.baseMembership = initial;
    this.baseMembershipLogId = logId(0, 0, 0);
    this.membership = initial;
    this.membershipLogId = this.baseMembershipLogId;
  }

  get lastIndex(): number {
    return this.baseIndex + this.entries.length;
  }

  get lastTerm(): number {
    const n = this.entries.length;
    return n === 0 ? this.baseTerm : this.entries[n - 1].term;
  }

  lastUid(): number {
    const n = this.entries.length;
    return n === 0 ? this.baseUid : this.entries[n - 1].uid;
  }

  /** The entry at `index`, or undefined when it is beyond the log or inside the snapshot. */
  entryAt(index: number): LogEntry | undefined {
    return index > this.baseIndex ? this.entries[index - this.baseIndex - 1] : undefined;
  }

  /** Term at `index`: the base term at `baseIndex`, -1 where unknown (purged or beyond the end). */
  termAt(index: number): number {
    if (index === this.baseIndex) return this.baseTerm;
    const e = this.entryAt(index);
    return e === undefined ? -1 : e.term;
  }

  /** uid at `index`, -1 where unknown. */
  uidAt(index: number): number {
    if (index === this.baseIndex) return this.baseUid;
    const e = this.entryAt(index);
    return e === undefined ? -1 : e.uid;
  }

  /** openraft log id of the entry at `index` (the base position included), or null when unknown. */
  logIdAt(index: number): LogId | null {
    if (index === this.baseIndex) return logId(this.baseTerm, this.baseLeader, this.baseIndex);
    const e = this.entryAt(index);
    return e === undefined ? null : logId(e.term, e.leader, e.index);
  }

  lastLogId(): LogId {
    return this.logIdAt(this.lastIndex)!;
  }

  /** The membership in force at `index` (the latest membership entry at or before it). */
  membershipAt(index: number): { membership: Membership; logId: LogId } {
    if (this.membershipIndex <= index) return { membership: this.membership, logId: this.membershipLogId };
    for (let i = Math.min(index, this.lastIndex); i > this.baseIndex; i--) {
      const e = this.entryAt(i)!;
      if (e.membership !== null) return { membership: e.membership, logId: logId(e.term, e.leader, e.index) };
    }
    return { membership: this.baseMembership, logId: this.baseMembershipLogId };
  }

  append(entry: LogEntry): void {
    if (entry.index !== this.lastIndex + 1) throw new Error(`log append at ${entry.index}, expected ${this.lastIndex + 1}`);
    this.entries.push(entry);
    if (entry.membership !== null) this.setMembership(entry);
  }

  /** Removes the entries from `index` on (a conflict with the leader's log); returns them. */
  truncateFrom(index: number): LogEntry[] {
    const k = index - this.baseIndex - 1;
    if (k < 0) throw new Error(`cannot truncate at ${index}: the log starts after ${this.baseIndex}`);
    const removed = this.entries.splice(k);
    if (this.membershipIndex >= index) this.recomputeMembership();
    return removed;
  }

  /** Replaces the prefix up to `snap.index` by the snapshot (purging it); later entries stay when they match. */
  installSnapshot(snap: RaftSnapshot): void {
    if (snap.index <= this.baseIndex) return;
    const keep = this.uidAt(snap.index) === snap.uid ? this.entries.slice(snap.index - this.baseIndex) : [];
    this.entries = keep;
    this.baseIndex = snap.index;
    this.baseTerm = snap.term;
    this.baseLeader = snap.leader;
    this.baseUid = snap.uid;
    this.snapshot = snap;
    this.baseMembership = snap.membership;
    this.baseMembershipLogId = snap.membershipLogId;
    this.recomputeMembership();
  }

  private setMembership(entry: LogEntry): void {
    this.membership = entry.membership!;
    this.membershipIndex = entry.index;
    this.membershipLogId = logId(entry.term, entry.leader, entry.index);
  }

  private recomputeMembership(): void {
    for (let k = this.entries.length - 1; k >= 0; k--) {
      const e = this.entries[k];
      if (e.membership !== null) {
        this.setMembership(e);
        return;
      }
    }
    this.membership = this.baseMembership;
    this.membershipIndex = this.baseMembershipLogId.index;
    this.membershipLogId = this.baseMembershipLogId;
  }
}

/** What a node persists per group: term, vote and log (with its snapshot). */
export class RaftStore {
  term = 0;
  votedFor: number | null = null;
  readonly log: RaftLog;

  constructor(initial: Membership = NO_MEMBERSHIP) {
    this.log = new RaftLog(initial);
  }
}
