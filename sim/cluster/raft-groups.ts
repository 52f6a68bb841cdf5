import { failed, unavailable } from '../api/operation-error.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { Cluster } from './cluster.ts';

/**
 * The consensus groups of the cluster (the spec's "Raft state object" per group), modelled in a
 * steady state: every write is replicated at once to every reachable voter, and a leader is only
 * replaced when it stops or leaves. The data structure is the one a real Raft needs — term, vote,
 * log ids, membership, per-follower heartbeat and replication progress — so that elections and a
 * simulated network can later drive the same fields instead of `syncProgress`.
 */

/** openraft's `LeaderId`: the term and the node that leads it. */
export interface LeaderId {
  term: number;
  node_id: number;
}

/** openraft's `LogId`: where an entry sits in the log and which leader wrote it. */
export interface LogId {
  leader_id: LeaderId;
  index: number;
}

export type RaftRole = 'Leader' | 'Follower' | 'Candidate';

/** The spec's Raft state object, as one node sees one group. */
export interface RaftStateView {
  running_state: { Ok: null };
  id: number;
  current_term: number;
  vote: { leader_id: LeaderId; committed: boolean };
  last_log_index: number;
  last_applied: LogId;
  snapshot: LogId | null;
  purged: LogId | null;
  state: RaftRole;
  current_leader: number | null;
  millis_since_quorum_ack: number | null;
  last_quorum_acked: number | null;
  membership_config: {
    log_id: LogId;
    membership: { configs: number[][]; nodes: Record<string, { node_id: number; rpc_addr: string }> };
  };
  heartbeat: Record<string, number | null> | null;
  replication: Record<string, LogId | null> | null;
}

/** What the leader knows about one member: last acknowledged heartbeat and the log id it matched. */
export interface FollowerProgress {
  /** Virtual Unix ms of the last acknowledged heartbeat; null before the first. */
  lastAckMs: number | null;
  matched: LogId | null;
}

/** Group counts of the static `meta_runtime` section (defaults 1 and 1). */
export interface RaftGroupLayout {
  offset_raft_group_num: number;
  data_raft_group_num: number;
}

export const DEFAULT_RAFT_GROUP_LAYOUT: Readonly<RaftGroupLayout> = Object.freeze({ offset_raft_group_num: 1, data_raft_group_num: 1 });

/** Leaders send heartbeats at this period; a reachable follower acknowledges the latest one. */
export const HEARTBEAT_INTERVAL_MS = 100;
/** A snapshot is taken (and the log purged up to it) every this many entries. */
export const SNAPSHOT_EVERY_ENTRIES = 5_000;

const NANOS_PER_MS = 1_000_000;

/**
 * Names of the groups for a layout: `meta`, `mqtt`, then `offset`, `offset_1`, … and `data`,
 * `data_1`, …. The first of each kind keeps the bare name the spec's status map uses.
 */
export function groupNames(layout: RaftGroupLayout): string[] {
  const numbered = (base: string, n: number): string[] => Array.from({ length: Math.max(1, n) }, (_, i) => (i === 0 ? base : `${base}_${i}`));
  return ['meta', 'mqtt', ...numbered('offset', layout.offset_raft_group_num), ...numbered('data', layout.data_raft_group_num)];
}

/** Stable 32-bit FNV-1a hash, to spread keys over the numbered groups the same way on every run. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** One Raft group: its log positions, its membership and the leader's view of its followers. */
export class RaftGroup {
  term = 1;
  leaderId: number | null = null;
  /** The vote of the current term: granted to `leaderId` and committed once a quorum agreed. */
  votedFor: number | null = null;
  voteCommitted = false;
  lastLogIndex = 0;
  lastApplied: LogId;
  snapshot: LogId | null = null;
  purged: LogId | null = null;
  membershipLogId: LogId;
  /** Voter ids, ascending. */
  voters: number[];
  /** rpc address per member. */
  readonly members = new Map<number, string>();
  readonly progress = new Map<number, FollowerProgress>();
  /** Virtual ms when a quorum last acknowledged the leader (frozen while no leader). */
  lastQuorumAckMs: number | null = null;
  /** Entries written, by kind (what was replicated, for the trace and tests). */
  readonly writes = new Map<string, number>();

  constructor(
    readonly name: string,
    members: ReadonlyMap<number, string>,
  ) {
    for (const [id, addr] of [...members].sort((a, b) => a[0] - b[0])) this.members.set(id, addr);
    this.voters = [...this.members.keys()];
    // Initialisation writes the first membership at index 0 before any leader exists (term 0).
    this.membershipLogId = { leader_id: { term: 0, node_id: 0 }, index: 0 };
    this.lastApplied = this.membershipLogId;
  }

  lastLogId(): LogId {
    return this.leaderId === null ? this.lastApplied : { leader_id: { term: this.term, node_id: this.leaderId }, index: this.lastLogIndex };
  }

  isVoter(nodeId: number): boolean {
    return this.voters.includes(nodeId);
  }

  quorum(): number {
    return Math.floor(this.voters.length / 2) + 1;
  }

  /** Appends one entry written by the current leader; in the steady model it is applied at once. */
  appendEntry(kind: string): LogId {
    if (this.leaderId === null) throw new Error(`group ${this.name} has no leader`);
    this.lastLogIndex += 1;
    this.lastApplied = { leader_id: { term: this.term, node_id: this.leaderId }, index: this.lastLogIndex };
    this.writes.set(kind, (this.writes.get(kind) ?? 0) + 1);
    if (this.lastLogIndex - (this.snapshot?.index ?? 0) >= SNAPSHOT_EVERY_ENTRIES) {
      this.snapshot = this.lastApplied;
      this.purged = this.lastApplied;
    }
    return this.lastApplied;
  }
}

/**
 * The consensus groups of the cluster. Every node is a voter of every group at start; a seeded
 * leader per group wins term 1. Writes: `appendMeta(kind)` (the HTTP layer, for each accepted
 * mutation) and `write(group, kind)` (model parts writing their own group).
 */
export class RaftGroups {
  private readonly byName = new Map<string, RaftGroup>();
  private rng!: SeededRandom;
  private layout: RaftGroupLayout = { ...DEFAULT_RAFT_GROUP_LAYOUT };

  constructor(private readonly cluster: Cluster) {}

  layoutOf(): RaftGroupLayout {
    return { ...this.layout };
  }

  start(): void {
    this.rng = this.cluster.engine.random.fork('raft');
    this.layout = { ...this.cluster.options.metaRuntime };
    const members = new Map(this.cluster.nodes.all().map((n) => [n.id, rpcAddrOf(n.ip, n.ports.grpc)] as const));
    for (const name of groupNames(this.layout)) {
      const group = new RaftGroup(name, members);
      this.byName.set(name, group);
      this.elect(group, this.rng.pick(group.voters), 1);
    }
  }

  /** Every group, in layout order. */
  groups(): RaftGroup[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): RaftGroup | undefined {
    return this.byName.get(name);
  }

  /** Node id of the meta group's leader, or null while it has none. */
  metaLeaderId(): number | null {
    return this.byName.get('meta')?.leaderId ?? null;
  }

  /** The offset group that stores a consumer group's offsets. */
  offsetGroupFor(key: string): string {
    return this.pickNumbered('offset', this.layout.offset_raft_group_num, key);
  }

  /** The data group that stores a shard's metadata. */
  dataGroupFor(key: string): string {
    return this.pickNumbered('data', this.layout.data_raft_group_num, key);
  }

  private pickNumbered(base: string, count: number, key: string): string {
    const i = fnv1a(key) % Math.max(1, count);
    return i === 0 ? base : `${base}_${i}`;
  }

  /**
   * Records one accepted metadata mutation in the `meta` group. Tolerant: while the group has no
   * leader nothing is appended and false is returned (the HTTP layer calls it after the fact).
   */
  appendMeta(kind: string): boolean {
    return this.tryWrite('meta', kind);
  }

  /** Like `write`, but skips (returns false) instead of failing while the group has no leader. */
  tryWrite(groupName: string, kind: string): boolean {
    const group = this.byName.get(groupName);
    if (!group || group.leaderId === null) return false;
    this.appendTo(group, kind);
    return true;
  }

  /** Fails (unavailable) while the group has no leader, so a caller can check before changing anything. */
  requireLeader(groupName: string): RaftGroup {
    const group = this.byName.get(groupName);
    if (!group) throw new Error(`no consensus group ${groupName}`);
    if (group.leaderId === null) {
      throw unavailable(`consensus group ${groupName} has no leader (fewer than ${group.quorum()} of its ${group.voters.length} voters are online); retry when a quorum is back`);
    }
    return group;
  }

  /** A write a model part needs to succeed: refused while the group has no leader (no quorum). */
  write(groupName: string, kind: string): LogId {
    return this.appendTo(this.requireLeader(groupName), kind);
  }

  private appendTo(group: RaftGroup, kind: string): LogId {
    const id = group.appendEntry(kind);
    this.syncProgress(group);
    this.cluster.engine.record('raft.append', { group: group.name, kind, index: id.index, term: id.leader_id.term });
    return id;
  }

  /**
   * The spec's Raft state object of `groupName` as `viewingNodeId` sees it: the leader reports its
   * followers' heartbeats and replication; followers report null there (as openraft does).
   */
  stateView(groupName: string, viewingNodeId: number): RaftStateView {
    const group = this.byName.get(groupName);
    if (!group) throw new Error(`no consensus group ${groupName}`);
    this.syncProgress(group);
    const now = this.cluster.now();
    const isLeader = group.leaderId === viewingNodeId;
    const state: RaftRole = isLeader ? 'Leader' : group.leaderId === null && group.isVoter(viewingNodeId) ? 'Candidate' : 'Follower';
    const nodes: Record<string, { node_id: number; rpc_addr: string }> = {};
    for (const [id, addr] of group.members) nodes[String(id)] = { node_id: id, rpc_addr: addr };
    let heartbeat: Record<string, number | null> | null = null;
    let replication: Record<string, LogId | null> | null = null;
    if (isLeader) {
      heartbeat = {};
      replication = {};
      for (const id of group.voters) {
        const p = group.progress.get(id);
        heartbeat[String(id)] = p?.lastAckMs == null ? null : p.lastAckMs * NANOS_PER_MS;
        replication[String(id)] = p?.matched ?? null;
      }
    }
    return {
      running_state: { Ok: null },
      id: viewingNodeId,
      current_term: group.term,
      vote: { leader_id: { term: group.term, node_id: group.votedFor ?? 0 }, committed: group.voteCommitted },
      last_log_index: group.lastLogIndex,
      last_applied: group.lastApplied,
      snapshot: group.snapshot,
      purged: group.purged,
      state,
      current_leader: group.leaderId,
      millis_since_quorum_ack: isLeader && group.lastQuorumAckMs !== null ? now - group.lastQuorumAckMs : null,
      last_quorum_acked: isLeader && group.lastQuorumAckMs !== null ? group.lastQuorumAckMs * NANOS_PER_MS : null,
      membership_config: { log_id: group.membershipLogId, membership: { configs: [[...group.voters]], nodes } },
      heartbeat,
      replication,
    };
  }

  /**
   * Removes `nodeId` from the voters of every group holding it (node leave, rule 2). Checks every
   * group first and changes nothing when any would drop below a safe quorum: a group with 2 or fewer
   * voters refuses. Returns the names of the groups changed (empty: the node was in no membership).
   */
  removeVoter(nodeId: number): string[] {
    const holding = this.groups().filter((g) => g.isVoter(nodeId));
    for (const g of holding) {
      if (g.voters.length <= 2) {
        throw failed(
          `[${g.name}] refuse to remove node ${nodeId}: only ${g.voters.length} voters, removing one would break quorum (need >= 3 voters to safely remove one)`,
        );
      }
    }
    for (const g of holding) {
      if (g.leaderId === null) {
        throw unavailable(`[${g.name}] change_membership failed while removing node ${nodeId}: the group has no leader`);
      }
    }
    for (const g of holding) {
      const wasLeader = g.leaderId === nodeId;
      g.voters = g.voters.filter((id) => id !== nodeId);
      g.members.delete(nodeId);
      g.progress.delete(nodeId);
      g.membershipLogId = g.appendEntry('membership');
      this.cluster.engine.record('raft.membership', { group: g.name, voters: [...g.voters], removed: nodeId, index: g.membershipLogId.index });
      // The leaving leader steps down once the new membership is committed; the rest elect anew.
      if (wasLeader) this.electAmongOnline(g, nodeId);
      else this.syncProgress(g);
    }
    return holding.map((g) => g.name);
  }

  /** A wiped node rejoining as a new node becomes a voter of every group again. */
  addVoter(nodeId: number): string[] {
    const node = this.cluster.nodes.get(nodeId);
    if (!node) throw new Error(`unknown node ${nodeId}`);
    const changed: string[] = [];
    for (const g of this.groups()) {
      if (g.isVoter(nodeId)) continue;
      if (g.leaderId === null) throw unavailable(`[${g.name}] change_membership failed while adding node ${nodeId}: the group has no leader`);
      g.voters = [...g.voters, nodeId].sort((a, b) => a - b);
      g.members.set(nodeId, rpcAddrOf(node.ip, node.ports.grpc));
      g.membershipLogId = g.appendEntry('membership');
      this.cluster.engine.record('raft.membership', { group: g.name, voters: [...g.voters], added: nodeId, index: g.membershipLogId.index });
      this.syncProgress(g);
      changed.push(g.name);
    }
    return changed;
  }

  /**
   * A node's process stopped: groups it led elect a new leader if a quorum is still online, and a
   * leader left without a quorum of online voters steps down (it could commit nothing).
   */
  onNodeDown(nodeId: number): void {
    for (const g of this.groups()) {
      this.syncProgress(g, nodeId);
      if (g.leaderId === null) continue;
      if (g.leaderId === nodeId || this.onlineVoters(g, null).length < g.quorum()) this.electAmongOnline(g, nodeId);
    }
  }

  /** A node's process is back: it catches up, and leaderless groups elect once a quorum is online. */
  onNodeUp(): void {
    for (const g of this.groups()) {
      if (g.leaderId === null) this.electAmongOnline(g, null);
      else this.syncProgress(g);
    }
  }

  private onlineVoters(g: RaftGroup, excluding: number | null): number[] {
    return g.voters.filter((id) => id !== excluding && this.cluster.nodes.get(id)?.online === true);
  }

  /** Seeded election among the online voters; without a quorum the group stays leaderless (term moves on). */
  private electAmongOnline(g: RaftGroup, excluding: number | null): void {
    const candidates = this.onlineVoters(g, excluding);
    if (candidates.length >= g.quorum() && candidates.length > 0) {
      this.elect(g, this.rng.pick(candidates), g.term + 1);
    } else {
      g.term += 1;
      g.leaderId = null;
      g.votedFor = null;
      g.voteCommitted = false;
      this.cluster.engine.record('raft.no-leader', { group: g.name, term: g.term, online: candidates });
    }
  }

  /** `leader` wins `term`: its vote commits and it appends the blank entry that opens its term. */
  private elect(g: RaftGroup, leader: number, term: number): void {
    g.term = term;
    g.leaderId = leader;
    g.votedFor = leader;
    g.voteCommitted = true;
    g.progress.clear();
    g.appendEntry('blank');
    this.cluster.engine.record('raft.leader', { group: g.name, term, leader, index: g.lastLogIndex });
    this.syncProgress(g);
  }

  /**
   * Steady replication: every reachable voter has acknowledged the latest heartbeat and matched the
   * leader's last log id; an unreachable one keeps what it had when it went away. `downNode` is a
   * node that stops now: it gets one final update before freezing. The simulated network of a later
   * stage replaces this with message-driven progress.
   */
  private syncProgress(g: RaftGroup, downNode?: number): void {
    if (g.leaderId === null) return;
    const now = this.cluster.now();
    const tick = now - (now % HEARTBEAT_INTERVAL_MS);
    const last = g.lastLogId();
    for (const id of g.voters) {
      const reachable = id === g.leaderId || id === downNode || this.cluster.nodes.get(id)?.online === true;
      const p = g.progress.get(id) ?? { lastAckMs: null, matched: null };
      if (reachable) {
        p.lastAckMs = id === g.leaderId ? now : Math.max(tick, p.lastAckMs ?? tick);
        p.matched = last;
      }
      g.progress.set(id, p);
    }
    // The quorum-th most recent acknowledgement (the leader counts with "now").
    const acks = g.voters.map((id) => g.progress.get(id)?.lastAckMs ?? -1).sort((a, b) => b - a);
    const q = acks[g.quorum() - 1];
    if (q !== undefined && q >= 0) g.lastQuorumAckMs = q;
  }
}

function rpcAddrOf(ip: string, grpcPort: number): string {
  return `${ip}:${grpcPort}`;
}
