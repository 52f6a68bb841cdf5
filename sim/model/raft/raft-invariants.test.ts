import { describe, expect, it } from 'vitest';
import { GroupAudit, RAFT_INVARIANTS, RaftViolations, type AuditedNode } from './raft-invariants.ts';
import type { LogEntry } from './types.ts';

/** A node whose log is a plain list of uids from index 1 (no snapshot). */
function nodeWith(id: number, uids: number[], base = { index: 0, uid: 0 }): AuditedNode {
  return {
    id,
    log: {
      baseIndex: base.index,
      baseUid: base.uid,
      lastIndex: base.index + uids.length,
      uidAt: (i: number) => (i === base.index ? base.uid : i > base.index && i <= base.index + uids.length ? uids[i - base.index - 1] : -1),
    },
  };
}

const entry = (index: number, term: number, uid: number, predUid: number): LogEntry => ({
  index,
  term,
  leader: 1,
  uid,
  predUid,
  kind: 'w',
  membership: null,
});

function setup() {
  const seen: string[] = [];
  const violations = new RaftViolations((name) => seen.push(name));
  return { violations, audit: new GroupAudit('meta', violations), seen };
}

describe('Raft invariant checks (incremental)', () => {
  it('names the six Raft invariants', () => {
    expect(RAFT_INVARIANTS).toEqual([
      'raft.election-safety',
      'raft.log-matching',
      'raft.leader-completeness',
      'raft.state-machine-safety',
      'raft.monotonic-commit-index',
      'raft.no-acknowledged-write-lost',
    ]);
  });

  it('election safety: a second leader in one term', () => {
    const { audit, violations } = setup();
    audit.onLeader(nodeWith(1, []), 3);
    audit.onLeader(nodeWith(1, []), 3); // the same leader again is fine
    expect(violations.any()).toBe(false);
    audit.onLeader(nodeWith(2, []), 3);
    expect(violations.get('raft.election-safety')).toBe('[meta] nodes 1 and 2 both became leader in term 3');
  });

  it('log matching: an entry after another predecessor than where it was created, or two entries at one (index, term)', () => {
    const a = setup();
    a.audit.onAppend(nodeWith(2, [10]), entry(2, 1, 11, 10), 10);
    expect(a.violations.any()).toBe(false);
    a.audit.onAppend(nodeWith(3, [99]), entry(2, 1, 11, 10), 99);
    expect(a.violations.get('raft.log-matching')).toMatch(/node 3 holds entry 2 of term 1 after a different entry 1/);
    const b = setup();
    b.audit.onCreate(entry(5, 2, 50, 49));
    b.audit.onCreate(entry(5, 2, 51, 49));
    expect(b.violations.get('raft.log-matching')).toBe('[meta] two different entries were created at index 5 in term 2');
  });

  it('leader completeness: a leader without a committed entry, or removing entries from its own log', () => {
    const { audit, violations } = setup();
    const leader = nodeWith(1, [10, 11, 12]);
    audit.onLeaderCommit(leader, 0, 3);
    audit.onLeader(nodeWith(2, [10, 11, 12, 13]), 2);
    expect(violations.any()).toBe(false);
    audit.onLeader(nodeWith(3, [10, 99, 98]), 3);
    expect(violations.get('raft.leader-completeness')).toBe('[meta] node 3 became leader of term 3 without the entry committed at index 2');
    const short = setup();
    short.audit.onLeaderCommit(leader, 0, 3);
    short.audit.onLeader(nodeWith(3, [10]), 4);
    expect(short.violations.get('raft.leader-completeness')).toMatch(/log up to 1, but entries up to 3 are committed/);
    const own = setup();
    own.audit.onTruncate(nodeWith(1, []), [entry(4, 2, 40, 30)], true);
    expect(own.violations.get('raft.leader-completeness')).toMatch(/leader 1 removed entries from 4 of its own log/);
  });

  it('state-machine safety: two nodes applying different entries at one index', () => {
    const { audit, violations } = setup();
    audit.onApply(nodeWith(1, []), 1, 10);
    audit.onApply(nodeWith(2, []), 1, 10);
    expect(violations.any()).toBe(false);
    audit.onApply(nodeWith(3, []), 1, 77);
    expect(violations.get('raft.state-machine-safety')).toBe(
      '[meta] node 3 applied a different entry at index 1 than was committed there before',
    );
  });

  it('monotonic commit index: a node whose commit index goes back', () => {
    const { audit, violations } = setup();
    audit.onCommitIndex(nodeWith(1, []), 3, 5);
    expect(violations.any()).toBe(false);
    audit.onCommitIndex(nodeWith(1, []), 5, 4);
    expect(violations.get('raft.monotonic-commit-index')).toBe("[meta] node 1's commit index went back from 5 to 4");
  });

  it('no acknowledged write lost: a later leader without it, or a node dropping it', () => {
    const { audit, violations } = setup();
    const leader = nodeWith(1, [10, 11]);
    audit.onLeaderCommit(leader, 0, 2);
    audit.acknowledge(entry(2, 1, 11, 10));
    expect(audit.ackedCount()).toBe(1);
    audit.onLeader(nodeWith(2, [10, 11, 12]), 2);
    expect(violations.any()).toBe(false);
    audit.onLeader(nodeWith(3, [10, 66]), 3);
    expect(violations.get('raft.no-acknowledged-write-lost')).toBe(
      '[meta] node 3, leader of term 3, lacks the acknowledged write at index 2',
    );
    const dropped = setup();
    dropped.audit.onLeaderCommit(leader, 0, 2);
    dropped.audit.acknowledge(entry(2, 1, 11, 10));
    dropped.audit.onTruncate(nodeWith(2, []), [entry(2, 1, 11, 10)], false);
    expect(dropped.violations.get('raft.no-acknowledged-write-lost')).toBe('[meta] node 2 removed the acknowledged write at index 2');
  });

  it('keeps the first violation of each invariant and reports it once', () => {
    const { audit, violations, seen } = setup();
    audit.onLeader(nodeWith(1, []), 1);
    audit.onLeader(nodeWith(2, []), 1);
    audit.onLeader(nodeWith(3, []), 1);
    expect(seen).toEqual(['raft.election-safety']);
    expect(violations.get('raft.election-safety')).toMatch(/nodes 1 and 2/);
  });
});
