import { describe, expect, it } from 'vitest';
import { fullLogAudit } from './raft-log-audit.ts';
import { RaftStore } from './raft-log.ts';
import { membershipOf, RaftHarness } from './testing/raft-test-harness.ts';

const kindsOf = (h: RaftHarness, id: number): string[] => h.node(id).log.entries.map((e) => e.kind);

describe('Raft node: start-up', () => {
  it('starts as if the seeded initial election ran: one leader of term 1, its blank entry committed everywhere', () => {
    const h = new RaftHarness(3, 'boot');
    const leader = h.leader()!;
    expect(leader).not.toBeNull();
    for (const id of h.ids()) {
      const n = h.node(id);
      expect(n.term).toBe(1);
      expect(n.store.votedFor).toBe(leader.id);
      expect(n.role).toBe(id === leader.id ? 'Leader' : 'Follower');
      expect(n.leaderId).toBe(leader.id);
      expect(n.commitIndex).toBe(1);
      expect(n.lastApplied).toBe(1);
      expect(kindsOf(h, id)).toEqual(['blank']);
    }
    expect(h.engine.now()).toBe(0); // no time passed
    expect(new RaftHarness(3, 'boot').leader()!.id).toBe(leader.id); // seeded
  });
});

describe('Raft node: replication and commit', () => {
  it('commits a proposal once a majority holds it, then followers apply it with the next message', () => {
    const h = new RaftHarness(5, 'rep');
    const leader = h.leader()!;
    const e = leader.propose('tenant.create');
    expect(leader.commitIndex).toBe(1);
    expect(h.until(() => leader.commitIndex >= e.index, 50)).toBe(true);
    expect(leader.applied.get('tenant.create')).toBe(1);
    h.advance(200); // a heartbeat carries the commit index
    for (const id of h.ids()) {
      expect(h.node(id).lastApplied).toBe(e.index);
      expect(h.node(id).log.uidAt(e.index)).toBe(e.uid);
    }
    expect(h.violations.all()).toEqual({});
  });

  it('a leader cut off from the majority commits nothing, steps down (check-quorum), and its tail is truncated on heal', () => {
    const h = new RaftHarness(5, 'minority');
    const old = h.leader()!;
    const others = h.ids().filter((id) => id !== old.id);
    h.net.isolate(old.id, h.ids());
    const lost = old.propose('lost.write');
    h.advance(2_000);
    expect(old.commitIndex).toBeLessThan(lost.index);
    expect(old.role).not.toBe('Leader');
    const next = h.leader()!;
    expect(others).toContain(next.id);
    expect(next.term).toBeGreaterThan(1);
    const kept = next.propose('kept.write');
    h.advance(100);
    expect(next.commitIndex).toBeGreaterThanOrEqual(kept.index);
    h.net.heal();
    h.advance(3_000);
    // The isolated node's uncommitted entry was replaced by the majority's entries.
    expect(h.engine.trace.tail(1000).some((t) => t.kind === 'raft.truncate' && (t.detail as any).node === old.id)).toBe(true);
    const leaderNow = h.leader()!;
    expect(old.log.uidAt(kept.index)).toBe(leaderNow.log.uidAt(kept.index));
    expect(kindsOf(h, old.id)).not.toContain('lost.write');
    expect(fullLogAudit(h.core)).toEqual([]);
    expect(h.violations.all()).toEqual({});
  });
});

describe('Raft node: elections', () => {
  it('elects a new leader within the election timeout after the leader crashes; the old one rejoins as follower', () => {
    const h = new RaftHarness(3, 'crash');
    const old = h.leader()!;
    h.down(old.id);
    expect(h.until(() => h.leader() !== null, 2_000)).toBe(true);
    const next = h.leader()!;
    expect(next.id).not.toBe(old.id);
    expect(next.term).toBeGreaterThanOrEqual(2);
    expect(h.engine.now()).toBeLessThanOrEqual(h.core.timing.electionMaxMs + 50);
    // Persisted state survives the crash: term, vote and log; memory (role, commit) does not.
    expect(old.term).toBe(1);
    expect(old.store.votedFor).toBe(old.id);
    expect(old.log.lastIndex).toBe(1);
    h.up(old.id);
    expect(old.role).toBe('Follower');
    expect(old.commitIndex).toBe(0);
    h.advance(300);
    expect(old.term).toBe(next.term);
    expect(old.leaderId).toBe(next.id);
    expect(old.commitIndex).toBe(next.commitIndex);
    expect(h.violations.all()).toEqual({});
  });

  it('refuses its vote to a candidate whose log is behind (election restriction)', () => {
    const h = new RaftHarness(3, 'restrict');
    const leader = h.leader()!;
    const [a, b] = h.ids().filter((id) => id !== leader.id);
    h.net.isolate(b, h.ids());
    const e = leader.propose('only.on.two');
    h.advance(50);
    expect(leader.commitIndex).toBe(e.index);
    h.down(leader.id);
    h.net.heal();
    // b's log lacks the committed entry: only a can win, with b's vote.
    expect(h.until(() => h.leader() !== null, 5_000)).toBe(true);
    expect(h.leader()!.id).toBe(a);
    h.advance(200);
    expect(h.node(b).log.uidAt(e.index)).toBe(e.uid);
    expect(h.violations.all()).toEqual({});
  });

  it('ignores a higher-term vote request while in touch with a leader (leader stickiness)', () => {
    const h = new RaftHarness(3, 'lease');
    const leader = h.leader()!;
    const follower = h.node(h.ids().find((id) => id !== leader.id)!);
    h.advance(50);
    follower.receive({ t: 'vote', term: 9, candidate: 3, lastIndex: 100, lastTerm: 9, transfer: false }, 3);
    expect(follower.term).toBe(1);
    expect(follower.store.votedFor).toBe(leader.id);
    // A leadership transfer is honoured despite the lease.
    follower.receive({ t: 'vote', term: 9, candidate: 3, lastIndex: 100, lastTerm: 9, transfer: true }, 3);
    expect(follower.term).toBe(9);
    expect(follower.store.votedFor).toBe(3);
  });

  it('hands leadership over on a graceful stop (TimeoutNow): a new leader within milliseconds', () => {
    const h = new RaftHarness(3, 'transfer');
    const old = h.leader()!;
    h.advance(150);
    old.transferLeadership();
    h.down(old.id);
    expect(h.until(() => h.leader() !== null, 100)).toBe(true);
    expect(h.engine.now()).toBeLessThan(150 + 50);
  });

  it('gives one run per seed: same trace hash, another seed another hash', () => {
    const run = (seed: string) => {
      const h = new RaftHarness(5, seed);
      h.net.configureAll({ loss: 0.1, duplicate: 0.1, jitterMs: 20 });
      for (let i = 0; i < 20; i++) {
        h.leader()?.propose(`w${i}`);
        h.advance(250);
        if (i === 5) h.down(h.leader()?.id ?? 1);
      }
      return h.engine.trace.hash;
    };
    expect(run('d1')).toBe(run('d1'));
    expect(run('d2')).not.toBe(run('d1'));
  });
});

describe('Raft node: snapshots', () => {
  it('snapshots every N applied entries, purges the log, and catches a lagging follower up with InstallSnapshot', () => {
    const h = new RaftHarness(3, 'snap', { snapshotEvery: 10 });
    const leader = h.leader()!;
    const lagging = h.ids().find((id) => id !== leader.id)!;
    h.down(lagging);
    for (let i = 0; i < 25; i++) leader.propose('w');
    h.advance(100);
    expect(leader.commitIndex).toBe(26);
    expect(leader.log.snapshot?.index).toBe(20);
    expect(leader.log.baseIndex).toBe(20);
    expect(leader.log.entries.length).toBe(6);
    h.up(lagging);
    h.advance(500);
    const n = h.node(lagging);
    expect(h.engine.trace.tail(1000).some((t) => t.kind === 'raft.install-snapshot')).toBe(true);
    expect(n.lastApplied).toBe(26);
    expect(n.applied.get('w')).toBe(25);
    expect(n.log.baseIndex).toBeGreaterThanOrEqual(20);
    expect(fullLogAudit(h.core)).toEqual([]);
    expect(h.violations.all()).toEqual({});
  });
});

describe('Raft node: membership changes', () => {
  it('removes a voter (single-server change), then adds it back as a new, empty node that catches up', () => {
    const h = new RaftHarness(3, 'member', { snapshotEvery: 5 });
    const leader = h.leader()!;
    const gone = h.ids().find((id) => id !== leader.id)!;
    const keep = h.ids().filter((id) => id !== gone);
    const change = leader.propose('membership', membershipOf(keep));
    expect(leader.membershipPending()).toBe(true);
    h.advance(50);
    expect(leader.membershipPending()).toBe(false);
    expect(leader.peers.has(gone)).toBe(false);
    expect(leader.log.membershipLogId.index).toBe(change.index);
    for (let i = 0; i < 12; i++) leader.propose('w');
    h.advance(50);
    expect(leader.commitIndex).toBe(change.index + 12); // two voters: both needed
    // The removed node is wiped and rejoins as new: it learns everything from a snapshot.
    h.down(gone);
    h.node(gone).store = new RaftStore();
    h.up(gone);
    leader.propose('membership', membershipOf(h.ids()));
    h.advance(500);
    expect(h.node(gone).log.membership.voters).toEqual(h.ids());
    expect(h.node(gone).applied.get('w')).toBe(12);
    expect(fullLogAudit(h.core)).toEqual([]);
    expect(h.violations.all()).toEqual({});
  });

  it('a leader that removes itself steps down once the change commits and hands over', () => {
    const h = new RaftHarness(3, 'self-remove');
    const leader = h.leader()!;
    leader.propose('membership', membershipOf(h.ids().filter((id) => id !== leader.id)));
    h.advance(100);
    expect(leader.role).toBe('Follower');
    expect(h.leader()).not.toBeNull();
    expect(h.leader()!.id).not.toBe(leader.id);
    h.advance(5_000);
    expect(leader.role).toBe('Follower'); // outside the membership it never campaigns
    expect(h.violations.all()).toEqual({});
  });
});
