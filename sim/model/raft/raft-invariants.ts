import type { RaftSnapshot } from './raft-log.ts';
import type { LogEntry } from './types.ts';

/** The Raft invariants, by the names the registry reports them under. */
export const RAFT_INVARIANTS = [
  'raft.election-safety',
  'raft.log-matching',
  'raft.leader-completeness',
  'raft.state-machine-safety',
  'raft.monotonic-commit-index',
  'raft.no-acknowledged-write-lost',
] as const;

export type RaftInvariantName = (typeof RAFT_INVARIANTS)[number];

/** What the checks need to see of a node. */
export interface AuditedNode {
  readonly id: number;
  readonly log: {
    readonly baseIndex: number;
    readonly baseUid: number;
    readonly lastIndex: number;
    uidAt(index: number): number;
  };
}

/** First violation seen of each invariant, over every group; the registry's checkers read it. */
export class RaftViolations {
  private readonly first = new Map<RaftInvariantName, string>();

  constructor(private readonly onViolation: (name: RaftInvariantName, message: string) => void = () => {}) {}

  report(name: RaftInvariantName, message: string): void {
    if (this.first.has(name)) return;
    this.first.set(name, message);
    this.onViolation(name, message);
  }

  get(name: RaftInvariantName): string | undefined {
    return this.first.get(name);
  }

  /** The first violation of each broken invariant, by name (read-only; the registry checks the set with it). */
  firstByName(): ReadonlyMap<string, string> {
    return this.first;
  }

  any(): boolean {
    return this.first.size > 0;
  }

  all(): Record<string, string> {
    return Object.fromEntries(this.first);
  }
}

/** Key of an (index, term) pair in one number: indexes and terms both stay far below 2^26. */
const pairKey = (index: number, term: number): number => index * 67_108_864 + term;

/**
 * Incremental checks of one group's Raft invariants. The nodes call it at the moments the
 * properties can break — a node becomes leader, an entry is created, appended, truncated, committed
 * or applied — so each check costs O(1), except at an election, which compares the new leader's
 * unsnapshotted log with what was committed and acknowledged. Nothing is checked by scanning every
 * log after every event.
 */
/** How far below the snapshot index of every running node committed uids are still remembered. */
const PRUNE_LAG = 10_000;

export class GroupAudit {
  /** Leader of each term (election safety). */
  private readonly leaderOfTerm = new Map<number, number>();
  /** uid of the entry created at each (index, term) (log matching), pruned below the snapshots. */
  private readonly entryAt = new Map<number, number>();
  /**
   * uid committed at each index from `committedBase` on (index 0 is the initial membership every
   * founding node shares). Indexes more than PRUNE_LAG below what every running node has in its
   * snapshot are forgotten, like `entryAt`: a long-running server commits without end, and keeping
   * one number per write for ever was a leak the HTTP soak found. Forgotten indexes are simply not
   * cross-checked any more (never a false alarm).
   */
  private committed: number[] = [0];
  private committedBase = 0;
  /** Entries answered as committed to a client, in index order (forgotten like `committed`). */
  private acked: { index: number; uid: number }[] = [];
  private pruneBelow = 0;

  constructor(
    readonly group: string,
    private readonly violations: RaftViolations,
  ) {}

  /** Highest index known committed in the group. */
  get maxCommitted(): number {
    return this.committedBase + this.committed.length - 1;
  }

  /** The uid committed at `index`; undefined when not (yet) known or already forgotten (see `prune`). */
  committedUid(index: number): number | undefined {
    return index < this.committedBase ? undefined : this.committed[index - this.committedBase];
  }

  private report(name: RaftInvariantName, message: string): void {
    this.violations.report(name, `[${this.group}] ${message}`);
  }

  /** Election safety, leader completeness and acknowledged writes, when `node` wins `term`. */
  onLeader(node: AuditedNode, term: number): void {
    const other = this.leaderOfTerm.get(term);
    if (other !== undefined && other !== node.id)
      this.report('raft.election-safety', `nodes ${other} and ${node.id} both became leader in term ${term}`);
    else this.leaderOfTerm.set(term, node.id);
    const log = node.log;
    const upTo = this.maxCommitted;
    if (log.lastIndex < upTo) {
      this.report(
        'raft.leader-completeness',
        `node ${node.id} became leader of term ${term} with log up to ${log.lastIndex}, but entries up to ${upTo} are committed`,
      );
    } else {
      const baseUid = this.committedUid(log.baseIndex);
      if (log.baseIndex <= upTo && log.baseIndex > 0 && baseUid !== undefined && baseUid !== log.baseUid) {
        this.report(
          'raft.leader-completeness',
          `node ${node.id} became leader of term ${term} with a snapshot at ${log.baseIndex} that is not the committed entry`,
        );
      }
      for (let i = Math.max(log.baseIndex + 1, this.committedBase); i <= upTo; i++) {
        if (log.uidAt(i) !== this.committedUid(i)) {
          this.report(
            'raft.leader-completeness',
            `node ${node.id} became leader of term ${term} without the entry committed at index ${i}`,
          );
          break;
        }
      }
    }
    this.checkAcked(node, `node ${node.id}, leader of term ${term},`);
  }

  private checkAcked(node: AuditedNode, who: string): void {
    const log = node.log;
    // Acknowledged entries inside the leader's snapshot were committed there (state-machine safety checks them).
    for (let k = this.firstAckedAbove(log.baseIndex); k < this.acked.length; k++) {
      const a = this.acked[k];
      if (log.uidAt(a.index) !== a.uid) {
        this.report('raft.no-acknowledged-write-lost', `${who} lacks the acknowledged write at index ${a.index}`);
        return;
      }
    }
  }

  private firstAckedAbove(index: number): number {
    let lo = 0;
    let hi = this.acked.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.acked[mid].index <= index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A leader created `entry`: no other entry may have its (index, term). */
  onCreate(entry: LogEntry): void {
    const key = pairKey(entry.index, entry.term);
    const seen = this.entryAt.get(key);
    if (seen !== undefined && seen !== entry.uid)
      this.report('raft.log-matching', `two different entries were created at index ${entry.index} in term ${entry.term}`);
    else this.entryAt.set(key, entry.uid);
  }

  /** `node` appended `entry` after `predUid`: the entry must follow the same predecessor as where it was created. */
  onAppend(node: AuditedNode, entry: LogEntry, predUid: number): void {
    if (predUid !== entry.predUid) {
      this.report(
        'raft.log-matching',
        `node ${node.id} holds entry ${entry.index} of term ${entry.term} after a different entry ${entry.index - 1} than the leader that created it`,
      );
    }
  }

  /** `node` removed `removed` from its log: never a committed entry, never from a leader's log. */
  onTruncate(node: AuditedNode, removed: readonly LogEntry[], isLeader: boolean): void {
    if (removed.length === 0) return;
    if (isLeader) this.report('raft.leader-completeness', `leader ${node.id} removed entries from ${removed[0].index} of its own log`);
    for (const e of removed) {
      if (this.committedUid(e.index) === e.uid) {
        this.report('raft.leader-completeness', `node ${node.id} removed the committed entry at index ${e.index}: a leader lacked it`);
        if (this.isAcked(e.index, e.uid))
          this.report('raft.no-acknowledged-write-lost', `node ${node.id} removed the acknowledged write at index ${e.index}`);
        return;
      }
    }
  }

  private isAcked(index: number, uid: number): boolean {
    const k = this.firstAckedAbove(index - 1);
    return k < this.acked.length && this.acked[k].index === index && this.acked[k].uid === uid;
  }

  /** The leader `node` committed its entries (from, to]: the first commit of an index fixes its entry. */
  onLeaderCommit(node: AuditedNode, from: number, to: number): void {
    for (let i = from + 1; i <= to; i++) this.fix(i, node.log.uidAt(i), `leader ${node.id} committed`);
  }

  /** `node` applied the entry `uid` at `index` to its state machine. */
  onApply(node: AuditedNode, index: number, uid: number): void {
    this.fix(index, uid, `node ${node.id} applied`);
  }

  /** `node` installed a snapshot: it now holds the state machine up to the snapshot's index. */
  onInstallSnapshot(node: AuditedNode, snap: RaftSnapshot): void {
    this.fix(snap.index, snap.uid, `node ${node.id} installed a snapshot`);
  }

  private fix(index: number, uid: number, who: string): void {
    if (index < this.committedBase) return; // forgotten: no longer cross-checked
    const at = index - this.committedBase;
    const known = this.committed[at];
    if (known === undefined) {
      // Commits grow one index at a time; a gap means an index committed without its predecessors.
      while (this.committed.length < at) this.committed.push(-1);
      this.committed[at] = uid;
    } else if (known === -1) {
      this.committed[at] = uid;
    } else if (known !== uid) {
      this.report('raft.state-machine-safety', `${who} a different entry at index ${index} than was committed there before`);
    }
  }

  /** A node's commit index moved from `from` to `to` within one process lifetime. */
  onCommitIndex(node: AuditedNode, from: number, to: number): void {
    if (to < from) this.report('raft.monotonic-commit-index', `node ${node.id}'s commit index went back from ${from} to ${to}`);
  }

  /** A client was told the entry is committed: it must stay in the log of every future leader. */
  acknowledge(entry: LogEntry): void {
    if (entry.index >= this.committedBase && this.committedUid(entry.index) !== entry.uid) {
      this.report(
        'raft.no-acknowledged-write-lost',
        `the write at index ${entry.index} was acknowledged, but another entry is committed there`,
      );
    }
    const a = { index: entry.index, uid: entry.uid };
    const k = this.firstAckedAbove(entry.index);
    if (k === this.acked.length) this.acked.push(a);
    else this.acked.splice(k, 0, a);
  }

  /** Forgets (index, term) pairs below `index`, which every node has in its snapshot. */
  prune(index: number): void {
    if (index <= this.pruneBelow + 1_000) return;
    this.pruneBelow = index;
    for (const key of this.entryAt.keys()) if (Math.floor(key / 67_108_864) < index) this.entryAt.delete(key);
    // Committed uids and acknowledged writes are kept PRUNE_LAG entries longer: a write waiting for
    // its commit reads `committedUid` of its fresh entry, which must not be forgotten under it.
    const forgetBelow = index - PRUNE_LAG;
    if (forgetBelow > this.committedBase) {
      this.committed = this.committed.slice(Math.min(forgetBelow - this.committedBase, this.committed.length));
      this.committedBase = forgetBelow;
      this.acked = this.acked.slice(this.firstAckedAbove(forgetBelow - 1));
    }
  }

  /** Number of acknowledged writes still tracked (for tests). */
  ackedCount(): number {
    return this.acked.length;
  }
}
