import type { RaftBugs } from './raft-bugs.ts';
import type { RaftEnv } from './raft-env.ts';
import type { GroupAudit } from './raft-invariants.ts';
import type { AppendEntries, AppendReply, InstallSnapshot, RaftMessage, RequestVote, TimeoutNow, VoteReply } from './raft-messages.ts';
import type { RaftLog, RaftSnapshot, RaftStore } from './raft-log.ts';
import type { RaftTiming } from './raft-timing.ts';
import { quorumOf, type LogEntry, type Membership, type RaftRole } from './types.ts';

/** What a leader knows of one member it replicates to. */
export interface PeerProgress {
  /** Next index to send (advanced when sent: AppendEntries are pipelined). */
  next: number;
  /** Highest index known to match the leader's log. */
  match: number;
  /** Virtual ms the latest AppendEntries this member answered was sent; -1 before the first. */
  ackAt: number;
}

/** What a node uses of its group: the shared environment, timing, bugs and audit, and message delivery. */
export interface RaftGroupContext {
  readonly name: string;
  readonly env: RaftEnv;
  readonly timing: RaftTiming;
  readonly bugs: RaftBugs;
  readonly audit: GroupAudit;
  /** Scratch array for quorum computations (no allocation per message). */
  readonly scratch: number[];
  readonly deliver: (m: RaftMessage, from: number, to: number) => void;
  nextUid(): number;
  drawElectionTimeout(): number;
  onSnapshot(): void;
}

/**
 * One node of one Raft group (Raft paper §5, with the dissertation's single-server membership
 * changes §4.1, leader stickiness §4.2.3 and check-quorum §6.2).
 *
 * Persisted state (`store`: term, vote, log with snapshot) survives a crash; everything else is the
 * process's memory and is rebuilt by `boot`. Messages go through the group's network; timers are
 * engine events. To keep the simulation cheap, timers are never cancelled: an election timer event
 * re-arms itself for the current deadline (receiving a heartbeat only moves `lastContact`), and the
 * heartbeat tick and the replication flush each have at most one pending event, guarded by a flag.
 */
export class RaftNode {
  alive = false;
  role: RaftRole = 'Follower';
  leaderId: number | null = null;
  commitIndex = 0;
  lastApplied = 0;
  /** The state machine: entries applied per kind. */
  applied = new Map<string, number>();
  appliedTotal = 0;
  /** Leader only: progress of every member it replicates to. */
  readonly peers = new Map<number, PeerProgress>();
  /** Virtual ms of the last message from a leader (or of a vote granted, or of the process start). */
  lastContact = 0;
  /** Virtual ms this node became leader. */
  leaderSince = 0;
  private readonly votes = new Set<number>();
  private electionTimeout = 0;
  private timerAt = Infinity;
  private tickPending = false;
  private flushPending = false;

  constructor(
    readonly core: RaftGroupContext,
    readonly id: number,
    public store: RaftStore,
  ) {}

  get log(): RaftLog {
    return this.store.log;
  }

  get term(): number {
    return this.store.term;
  }

  private now(): number {
    return this.core.env.now();
  }

  // ---- process lifecycle -------------------------------------------------------------------

  /** The process starts (or restarts) from what it persisted: commit and state machine from the snapshot. */
  boot(): void {
    this.alive = true;
    this.role = 'Follower';
    this.leaderId = null;
    this.votes.clear();
    this.peers.clear();
    const snap = this.log.snapshot;
    this.commitIndex = this.log.baseIndex;
    this.lastApplied = this.log.baseIndex;
    this.applied = new Map(snap?.applied ?? []);
    this.appliedTotal = snap?.appliedTotal ?? 0;
    this.lastContact = this.now();
    this.electionTimeout = this.core.drawElectionTimeout();
    this.armTimer();
  }

  /** The process dies: its memory is gone; pending timer events find it dead and do nothing. */
  crash(): void {
    this.alive = false;
    this.role = 'Follower';
    this.leaderId = null;
    this.votes.clear();
    this.peers.clear();
  }

  /** Graceful stop of a leader: hands leadership to the most up-to-date voter (TimeoutNow). */
  transferLeadership(): void {
    if (!this.alive || this.role !== 'Leader') return;
    let best: number | null = null;
    let bestMatch = -1;
    for (const v of this.log.membership.voters) {
      if (v === this.id) continue;
      const p = this.peers.get(v);
      if (p && p.match > bestMatch) {
        best = v;
        bestMatch = p.match;
      }
    }
    if (best === null) return;
    // Bring it up to date first; the message after the entries arrives after them on a jitter-free link.
    const p = this.peers.get(best)!;
    if (p.next <= this.log.lastIndex) this.sendAppend(best, p);
    this.send(best, { t: 'timeout-now', term: this.term } satisfies TimeoutNow);
  }

  // ---- timers ------------------------------------------------------------------------------

  private readonly onTimer = (): void => {
    this.timerAt = Infinity;
    if (!this.alive || this.role === 'Leader') return;
    if (this.now() >= this.lastContact + this.electionTimeout) this.startElection(false);
    else this.armTimer();
  };

  private armTimer(): void {
    const deadline = this.lastContact + this.electionTimeout;
    if (this.timerAt <= deadline) return;
    this.timerAt = deadline;
    this.core.env.after(Math.max(0, deadline - this.now()), 'raft.election-timer', this.onTimer);
  }

  private scheduleTick(): void {
    if (this.tickPending) return;
    this.tickPending = true;
    this.core.env.after(this.core.timing.heartbeatMs, 'raft.heartbeat', this.onTick);
  }

  private readonly onTick = (): void => {
    this.tickPending = false;
    if (!this.alive || this.role !== 'Leader') return;
    // Check-quorum: a leader that has not heard from a quorum for an election timeout steps down,
    // so an isolated leader stops accepting writes it can never commit.
    if (this.now() - Math.max(this.quorumAckAt(), this.leaderSince) > this.core.timing.electionMaxMs) {
      this.becomeFollower(this.term, 'no quorum');
      return;
    }
    for (const [id, p] of this.peers) {
      // Go back to the last acknowledged position: what was lost on the way is sent again.
      if (p.next > p.match + 1) p.next = p.match + 1;
      this.sendAppend(id, p);
    }
    this.scheduleTick();
  };

  private scheduleFlush(): void {
    if (this.flushPending) return;
    this.flushPending = true;
    this.core.env.after(0, 'raft.replicate', this.onFlush);
  }

  private readonly onFlush = (): void => {
    this.flushPending = false;
    if (!this.alive || this.role !== 'Leader') return;
    const last = this.log.lastIndex;
    for (const [id, p] of this.peers) if (p.next <= last) this.sendAppend(id, p);
  };

  // ---- roles -------------------------------------------------------------------------------

  private setTerm(term: number): void {
    this.store.term = term;
    this.store.votedFor = null;
  }

  private becomeFollower(term: number, reason: string): void {
    if (term > this.term) this.setTerm(term);
    if (this.role !== 'Follower') {
      const was = this.role;
      this.role = 'Follower';
      this.peers.clear();
      // A fresh timeout from now: a node that just lost an election or stepped down does not rush.
      this.lastContact = this.now();
      this.electionTimeout = this.core.drawElectionTimeout();
      this.core.env.record('raft.role', { group: this.core.name, node: this.id, role: 'Follower', term: this.term, was, reason });
    }
    this.leaderId = null;
    this.armTimer();
  }

  /** Starts an election (`transfer`: on a leader's TimeoutNow, which voters honour despite their lease). */
  startElection(transfer: boolean): void {
    const voters = this.log.membership.voters;
    this.lastContact = this.now();
    this.electionTimeout = this.core.drawElectionTimeout();
    // A node outside its own membership (a learner, or removed) never campaigns.
    if (!voters.includes(this.id)) {
      this.armTimer();
      return;
    }
    this.setTerm(this.term + 1);
    this.store.votedFor = this.id;
    this.role = 'Candidate';
    this.leaderId = null;
    this.peers.clear();
    this.votes.clear();
    this.votes.add(this.id);
    this.core.env.record('raft.role', { group: this.core.name, node: this.id, role: 'Candidate', term: this.term });
    this.armTimer();
    if (this.hasQuorum(this.votes)) {
      this.becomeLeader();
      return;
    }
    const log = this.log;
    const msg: RequestVote = { t: 'vote', term: this.term, candidate: this.id, lastIndex: log.lastIndex, lastTerm: log.lastTerm, transfer };
    for (const v of voters) if (v !== this.id) this.send(v, msg);
  }

  private hasQuorum(ids: ReadonlySet<number>): boolean {
    const voters = this.log.membership.voters;
    let n = 0;
    for (const v of voters) if (ids.has(v)) n++;
    return voters.length > 0 && n >= quorumOf(voters.length);
  }

  private becomeLeader(): void {
    const now = this.now();
    this.role = 'Leader';
    this.leaderId = this.id;
    this.leaderSince = now;
    this.core.audit.onLeader(this, this.term);
    this.peers.clear();
    const next = this.log.lastIndex + 1;
    for (const v of this.log.membership.voters) if (v !== this.id) this.peers.set(v, { next, match: 0, ackAt: -1 });
    // openraft opens each term with a blank entry, so entries of earlier terms commit with it.
    if (!this.core.bugs.commitPreviousTermByCount) this.appendNew('blank', null);
    this.core.env.record('raft.leader', { group: this.core.name, term: this.term, leader: this.id, index: this.log.lastIndex });
    for (const [id, p] of this.peers) this.sendAppend(id, p);
    this.scheduleTick();
    this.advanceCommit();
  }

  /** Makes this node the leader of term 1 at start-up, as if it had won the initial election. */
  bootstrapAsLeader(followers: readonly number[], matched: number): void {
    this.role = 'Leader';
    this.leaderId = this.id;
    this.leaderSince = this.now();
    for (const f of followers) this.peers.set(f, { next: matched + 1, match: matched, ackAt: this.now() });
    this.scheduleTick();
  }

  // ---- client writes -----------------------------------------------------------------------

  /** Appends a new entry as leader and starts replicating it. */
  propose(kind: string, membership: Membership | null = null): LogEntry {
    if (!this.alive || this.role !== 'Leader') throw new Error(`node ${this.id} is not the leader of group ${this.core.name}`);
    const e = this.appendNew(kind, membership);
    this.core.env.record('raft.append', { group: this.core.name, kind, index: e.index, term: e.term });
    this.scheduleFlush();
    this.advanceCommit();
    return e;
  }

  /** A membership change is in flight: a leader's latest membership entry is not committed yet. */
  membershipPending(): boolean {
    return this.log.membershipIndex > this.commitIndex;
  }

  private appendNew(kind: string, membership: Membership | null): LogEntry {
    const log = this.log;
    const e: LogEntry = {
      index: log.lastIndex + 1,
      term: this.term,
      leader: this.id,
      uid: this.core.nextUid(),
      predUid: log.lastUid(),
      kind,
      membership,
    };
    this.core.audit.onCreate(e);
    log.append(e);
    if (membership !== null) {
      this.core.env.record('raft.membership', { group: this.core.name, voters: [...membership.voters], index: e.index, term: e.term });
      // Replicate to new voters at once; removed ones keep receiving until the change commits.
      for (const v of membership.voters) if (v !== this.id && !this.peers.has(v)) this.peers.set(v, { next: e.index, match: 0, ackAt: -1 });
    }
    return e;
  }

  // ---- messages ----------------------------------------------------------------------------

  private send(to: number, m: RaftMessage): void {
    this.core.env.send(this.id, to, m, this.core.deliver);
  }

  receive(m: RaftMessage, from: number): void {
    switch (m.t) {
      case 'append':
        return this.onAppend(m, from);
      case 'append-reply':
        return this.onAppendReply(m, from);
      case 'vote':
        return this.onVote(m, from);
      case 'vote-reply':
        return this.onVoteReply(m, from);
      case 'snapshot':
        return this.onSnapshot(m, from);
      case 'timeout-now':
        if (m.term === this.term && this.role === 'Follower') this.startElection(true);
        return;
    }
  }

  /** Leader lease (dissertation §4.2.3): recently in touch with a leader, a voter ignores higher-term vote requests. */
  private inLease(): boolean {
    const now = this.now();
    const min = this.core.timing.electionMinMs;
    if (this.role === 'Leader') return now - Math.max(this.quorumAckAt(), this.leaderSince) < min;
    return this.leaderId !== null && now - this.lastContact < min;
  }

  private onVote(m: RequestVote, from: number): void {
    if (m.term > this.term) {
      if (!m.transfer && this.inLease()) {
        this.send(from, { t: 'vote-reply', term: this.term, granted: false } satisfies VoteReply);
        return;
      }
      this.becomeFollower(m.term, `vote request of term ${m.term}`);
    }
    let granted = false;
    if (m.term === this.term) {
      const log = this.log;
      const bugs = this.core.bugs;
      const upToDate =
        bugs.skipLogUpToDateCheck === true || m.lastTerm > log.lastTerm || (m.lastTerm === log.lastTerm && m.lastIndex >= log.lastIndex);
      const free = this.store.votedFor === null || this.store.votedFor === m.candidate || bugs.grantVoteTwice === true;
      // Only a voter of the configuration it knows votes. A node back on a wiped data directory (node
      // leave, rule 4) knows none until the leader's log reaches it: with its empty log it would
      // otherwise elect any candidate still holding an old configuration that counts it (chaos
      // finding, seed 234: a partitioned node with a stale log won that way and lost committed entries).
      const member = this.log.membership.voters.includes(this.id);
      if (upToDate && free && member) {
        granted = true;
        this.store.votedFor = m.candidate;
        this.lastContact = this.now();
      }
    }
    this.send(from, { t: 'vote-reply', term: this.term, granted } satisfies VoteReply);
  }

  private onVoteReply(m: VoteReply, from: number): void {
    if (m.term > this.term) {
      this.becomeFollower(m.term, `vote reply of term ${m.term}`);
      return;
    }
    if (this.role !== 'Candidate' || m.term !== this.term || !m.granted) return;
    this.votes.add(from);
    if (this.hasQuorum(this.votes)) this.becomeLeader();
  }

  private reply(to: number, ok: boolean, match: number, hint: number, sentAt: number): void {
    this.send(to, { t: 'append-reply', term: this.term, ok, match, hint, sentAt } satisfies AppendReply);
  }

  /** Accepts a message of a current leader: follows it and restarts the election timeout. */
  private followLeader(term: number, leader: number): void {
    if (term > this.term || this.role !== 'Follower') this.becomeFollower(term, `leader ${leader} of term ${term}`);
    this.leaderId = leader;
    this.lastContact = this.now();
  }

  private onAppend(m: AppendEntries, from: number): void {
    if (m.term < this.term) {
      this.reply(from, false, 0, 0, m.sentAt);
      return;
    }
    this.followLeader(m.term, m.leader);
    const log = this.log;
    if (m.prevIndex > log.lastIndex) {
      this.reply(from, false, 0, log.lastIndex + 1, m.sentAt);
      return;
    }
    const entries = m.entries;
    const n = entries === null ? 0 : entries.length;
    let k = 0;
    if (m.prevIndex < log.baseIndex) {
      // What the snapshot covers is committed, hence in the leader's log: skip it.
      k = Math.min(n, log.baseIndex - m.prevIndex);
    } else if (log.termAt(m.prevIndex) !== m.prevTerm && this.core.bugs.skipConsistencyCheck !== true) {
      this.reply(from, false, 0, this.conflictHint(m.prevIndex), m.sentAt);
      return;
    }
    for (; k < n; k++) {
      const e = entries![k];
      if (e.index <= log.lastIndex) {
        if (log.termAt(e.index) === e.term) continue;
        this.truncate(e.index);
      }
      this.core.audit.onAppend(this, e, log.lastUid());
      log.append(e);
    }
    const lastNew = m.prevIndex + n;
    if (m.leaderCommit > this.commitIndex) {
      const c = Math.min(m.leaderCommit, lastNew);
      if (c > this.commitIndex) this.setCommit(c);
    }
    this.reply(from, true, lastNew, 0, m.sentAt);
  }

  /** First index of the conflicting term at `index`, so the leader skips a whole term per round trip. */
  private conflictHint(index: number): number {
    const log = this.log;
    const term = log.termAt(index);
    let i = index;
    while (i - 1 > log.baseIndex && log.termAt(i - 1) === term) i--;
    return Math.max(log.baseIndex + 1, i);
  }

  private truncate(index: number): void {
    const removed = this.log.truncateFrom(index);
    this.core.audit.onTruncate(this, removed, this.role === 'Leader');
    this.core.env.record('raft.truncate', { group: this.core.name, node: this.id, from: index, count: removed.length });
  }

  private onAppendReply(m: AppendReply, from: number): void {
    if (m.term > this.term) {
      this.becomeFollower(m.term, `append reply of term ${m.term}`);
      return;
    }
    if (this.role !== 'Leader' || m.term !== this.term) return;
    const p = this.peers.get(from);
    if (!p) return;
    if (m.sentAt > p.ackAt) p.ackAt = m.sentAt;
    if (m.ok) {
      if (m.match > p.match) {
        p.match = m.match;
        if (p.next <= m.match) p.next = m.match + 1;
        this.advanceCommit();
        if (this.role !== 'Leader') return;
      }
      if (p.next <= this.log.lastIndex) this.sendAppend(from, p);
    } else if (m.hint > 0 && m.hint < p.next) {
      p.next = Math.max(p.match + 1, m.hint);
      this.sendAppend(from, p);
    }
  }

  private onSnapshot(m: InstallSnapshot, from: number): void {
    if (m.term < this.term) {
      this.reply(from, false, 0, 0, m.sentAt);
      return;
    }
    this.followLeader(m.term, m.leader);
    const s = m.snapshot;
    if (s.index > this.commitIndex) {
      this.log.installSnapshot(s);
      this.core.audit.onInstallSnapshot(this, s);
      this.core.audit.onCommitIndex(this, this.commitIndex, s.index);
      this.commitIndex = s.index;
      this.lastApplied = s.index;
      this.applied = new Map(s.applied);
      this.appliedTotal = s.appliedTotal;
      this.core.env.record('raft.install-snapshot', { group: this.core.name, node: this.id, index: s.index });
      this.applyCommitted();
    }
    this.reply(from, true, s.index, 0, m.sentAt);
  }

  private sendAppend(to: number, p: PeerProgress): void {
    const log = this.log;
    const now = this.now();
    if (p.next <= log.baseIndex && log.snapshot !== null) {
      this.send(to, { t: 'snapshot', term: this.term, leader: this.id, snapshot: log.snapshot, sentAt: now } satisfies InstallSnapshot);
      p.next = log.baseIndex + 1;
      return;
    }
    const prevIndex = p.next - 1;
    let entries: LogEntry[] | null = null;
    if (p.next <= log.lastIndex) {
      const from = p.next - log.baseIndex - 1;
      const to2 = Math.min(log.entries.length, from + this.core.timing.maxEntriesPerAppend);
      entries = log.entries.slice(from, to2);
      p.next = log.baseIndex + 1 + to2;
    }
    const msg: AppendEntries = {
      t: 'append',
      term: this.term,
      leader: this.id,
      prevIndex,
      prevTerm: log.termAt(prevIndex),
      entries,
      leaderCommit: this.commitIndex,
      sentAt: now,
    };
    this.send(to, msg);
  }

  // ---- commit and apply --------------------------------------------------------------------

  /** Virtual ms by which a quorum of voters had acknowledged this leader (it counts itself as now). */
  quorumAckAt(): number {
    const voters = this.log.membership.voters;
    if (voters.length === 0) return -1;
    const acks = this.core.scratch;
    const now = this.now();
    for (let i = 0; i < voters.length; i++) {
      const v = voters[i];
      acks[i] = v === this.id ? now : (this.peers.get(v)?.ackAt ?? -1);
    }
    return kthLargest(acks, voters.length, quorumOf(voters.length));
  }

  private advanceCommit(): void {
    const log = this.log;
    const voters = log.membership.voters;
    if (voters.length === 0) return;
    const matches = this.core.scratch;
    for (let i = 0; i < voters.length; i++) {
      const v = voters[i];
      matches[i] = v === this.id ? log.lastIndex : (this.peers.get(v)?.match ?? 0);
    }
    const n = kthLargest(matches, voters.length, quorumOf(voters.length));
    if (n <= this.commitIndex) return;
    // The current-term rule (§5.4.2): only an entry of this term commits by counting replicas.
    if (log.termAt(n) !== this.term && this.core.bugs.commitPreviousTermByCount !== true) return;
    const from = this.commitIndex;
    this.core.audit.onLeaderCommit(this, from, n);
    this.core.env.record('raft.commit', { group: this.core.name, index: n, term: this.term });
    this.setCommit(n);
    if (this.commitIndex >= log.membershipIndex) {
      // The membership change is committed: stop replicating to removed members; a removed leader steps down.
      for (const id of [...this.peers.keys()]) if (!voters.includes(id)) this.peers.delete(id);
      if (!voters.includes(this.id)) {
        this.transferLeadership();
        this.becomeFollower(this.term, 'removed from the membership');
      }
    }
  }

  /** Raises the commit index (start-up: the initial entry is committed everywhere). */
  commitTo(c: number): void {
    if (c > this.commitIndex) this.setCommit(c);
  }

  private setCommit(c: number): void {
    this.core.audit.onCommitIndex(this, this.commitIndex, c);
    this.commitIndex = c;
    this.applyCommitted();
  }

  private applyCommitted(): void {
    const log = this.log;
    while (this.lastApplied < this.commitIndex) {
      const i = this.lastApplied + 1;
      const e = log.entryAt(i);
      if (e === undefined) break;
      this.core.audit.onApply(this, i, e.uid);
      this.applied.set(e.kind, (this.applied.get(e.kind) ?? 0) + 1);
      this.appliedTotal++;
      this.lastApplied = i;
      if (i - log.baseIndex >= this.core.timing.snapshotEvery) this.takeSnapshot();
    }
  }

  /** Snapshots the state machine at `lastApplied` and purges the log up to it. */
  private takeSnapshot(): void {
    const log = this.log;
    const e = log.entryAt(this.lastApplied)!;
    const { membership, logId } = log.membershipAt(e.index);
    const snap: RaftSnapshot = {
      index: e.index,
      term: e.term,
      leader: e.leader,
      uid: e.uid,
      membership,
      membershipLogId: logId,
      applied: new Map(this.applied),
      appliedTotal: this.appliedTotal,
    };
    log.installSnapshot(snap);
    this.core.env.record('raft.snapshot', { group: this.core.name, node: this.id, index: snap.index });
    this.core.onSnapshot();
  }
}

/** The k-th largest of the first n values of `a` (sorts them in place; n is a handful of voters). */
function kthLargest(a: number[], n: number, k: number): number {
  for (let i = 1; i < n; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] < x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
  return a[k - 1];
}
