import type { SeededRandom } from '../engine/seeded-random.ts';
import type { RaftBugs } from './raft-bugs.ts';
import type { GroupAudit } from './raft-invariants.ts';
import { RaftStore } from './raft-log.ts';
import type { RaftEnv } from './raft-env.ts';
import type { RaftMessage } from './raft-messages.ts';
import { RaftNode } from './raft-node.ts';
import type { RaftTiming } from './raft-timing.ts';
import type { LogEntry, Membership } from './types.ts';

/**
 * One consensus group: its nodes (one per cluster node that ever joined it), the timing, the seeded
 * election timeouts, the deliberate bugs and the invariant audit they all share.
 */
export class RaftGroupCore {
  readonly nodes = new Map<number, RaftNode>();
  /** Scratch array for quorum computations (no allocation per message). */
  readonly scratch: number[] = [];
  private uidCounter = 1;

  /** Hands a message to its receiver, when that node's process runs. */
  readonly deliver = (m: RaftMessage, from: number, to: number): void => {
    const node = this.nodes.get(to);
    if (node !== undefined && node.alive) node.receive(m, from);
  };

  constructor(
    readonly name: string,
    readonly env: RaftEnv,
    private readonly rng: SeededRandom,
    readonly timing: RaftTiming,
    readonly bugs: RaftBugs,
    readonly audit: GroupAudit,
  ) {}

  nextUid(): number {
    return this.uidCounter++;
  }

  drawElectionTimeout(): number {
    return this.rng.int(this.timing.electionMinMs, this.timing.electionMaxMs);
  }

  /**
   * Starts the group on its founding members as if the initial election had run: the member whose
   * seeded timeout is the shortest wins term 1, every member voted for it, and its blank entry is
   * replicated and committed everywhere. Real elections follow on faults.
   */
  bootstrap(membership: Membership): RaftNode {
    const voters = membership.voters;
    if (voters.length === 0) throw new Error(`group ${this.name} needs at least one member`);
    const timeouts = voters.map(() => this.drawElectionTimeout());
    let winner = 0;
    for (let i = 1; i < voters.length; i++) if (timeouts[i] < timeouts[winner]) winner = i;
    const leaderId = voters[winner];
    const blank: LogEntry = { index: 1, term: 1, leader: leaderId, uid: this.nextUid(), predUid: 0, kind: 'blank', membership: null };
    this.audit.onCreate(blank);
    for (const id of voters) {
      const store = new RaftStore(membership);
      store.term = 1;
      store.votedFor = leaderId;
      store.log.append(blank);
      const node = new RaftNode(this, id, store);
      this.nodes.set(id, node);
      node.boot();
      node.leaderId = leaderId;
    }
    const leader = this.nodes.get(leaderId)!;
    this.audit.onLeader(leader, 1);
    leader.bootstrapAsLeader(
      voters.filter((v) => v !== leaderId),
      1,
    );
    this.audit.onLeaderCommit(leader, 0, 1);
    for (const node of this.nodes.values()) node.commitTo(1);
    this.env.record('raft.leader', { group: this.name, term: 1, leader: leaderId, index: 1 });
    return leader;
  }

  /** A node (re)joins with an empty store: a new node, or one whose data directory was wiped. */
  addEmptyNode(id: number): RaftNode {
    let node = this.nodes.get(id);
    if (node === undefined) {
      node = new RaftNode(this, id, new RaftStore());
      this.nodes.set(id, node);
    } else {
      node.crash();
      node.store = new RaftStore();
    }
    return node;
  }

  /** The leader a client reaches: the running node that leads the highest term. */
  leader(): RaftNode | null {
    let best: RaftNode | null = null;
    for (const n of this.nodes.values()) {
      if (n.alive && n.role === 'Leader' && (best === null || n.term > best.term)) best = n;
    }
    return best;
  }

  /**
   * Called after a node snapshots: the audit forgets the (index, term) pairs every running node has
   * compacted. (A node down for long would otherwise keep them all; when it returns, entries it
   * appends below the pruned index are simply not cross-checked by pair — never a false alarm.)
   */
  onSnapshot(): void {
    let min = Infinity;
    for (const n of this.nodes.values()) if (n.alive) min = Math.min(min, n.log.baseIndex);
    if (Number.isFinite(min)) this.audit.prune(min);
  }
}
