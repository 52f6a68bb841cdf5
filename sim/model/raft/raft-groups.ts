import { failed, unavailable } from '../errors/operation-error.ts';
import { fnv1a } from '../engine/fnv1a.ts';
import { staticNodeConfig } from '../nodes/static-node-config.ts';
import { RAFT_BUG_NAMES, type RaftBugs } from './raft-bugs.ts';
import type { RaftEnv } from './raft-env.ts';
import { RaftGroupCore } from './raft-group-core.ts';
import { GroupAudit, RAFT_INVARIANTS, RaftViolations } from './raft-invariants.ts';
import { RaftStore } from './raft-log.ts';
import { RaftNode } from './raft-node.ts';
import { raftStateView } from './raft-state-view.ts';
import { DEFAULT_RAFT_TIMING, type RaftTiming } from './raft-timing.ts';
import { logId, quorumOf, type LogEntry, type LogId, type Membership } from './types.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { InvariantRegistry } from '../invariants/invariant-registry.ts';
import type { SimNetwork } from '../net/sim-network.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import type { RaftStateRecord } from '../../../contract/records.ts';

export type { LogId } from './types.ts';
export type { RaftBugs } from './raft-bugs.ts';

/**
 * The consensus groups of the cluster as the rest of the model sees them: a facade over one real
 * Raft node per group per cluster node (`sim/model/raft`), whose messages travel the simulated network.
 * Writes are proposals to a group's leader; `commitWrite` additionally runs the simulation forward
 * until the entry commits, which is how API writes through the meta group are acknowledged.
 */

/** Group counts of the static `meta_runtime` section (defaults 1 and 1). */
export interface RaftGroupLayout {
  offset_raft_group_num: number;
  data_raft_group_num: number;
}

const DEFAULT_RAFT_GROUP_LAYOUT: Readonly<RaftGroupLayout> = Object.freeze({ offset_raft_group_num: 1, data_raft_group_num: 1 });

/** Leaders send heartbeats at this period. */
export const HEARTBEAT_INTERVAL_MS = DEFAULT_RAFT_TIMING.heartbeatMs;
/** A snapshot is taken (and the log purged up to it) every this many applied entries. */
export const SNAPSHOT_EVERY_ENTRIES = DEFAULT_RAFT_TIMING.snapshotEvery;

/**
 * Names of the groups for a layout: `meta`, `mqtt`, then `offset`, `offset_1`, … and `data`,
 * `data_1`, …. The first of each kind keeps the bare name the spec's status map uses.
 */
export function groupNames(layout: RaftGroupLayout): string[] {
  const numbered = (base: string, n: number): string[] =>
    Array.from({ length: Math.max(1, n) }, (_, i) => (i === 0 ? base : `${base}_${i}`));
  return ['meta', 'mqtt', ...numbered('offset', layout.offset_raft_group_num), ...numbered('data', layout.data_raft_group_num)];
}

/**
 * One consensus group seen from the cluster: the leader a client reaches and the membership and log
 * of the most authoritative node (the leader, else the running node with the most up-to-date log).
 */
export class RaftGroup {
  constructor(
    readonly name: string,
    readonly core: RaftGroupCore,
  ) {}

  /** The running node leading the highest term, or null while the group has none. */
  get leaderId(): number | null {
    return this.core.leader()?.id ?? null;
  }

  /** The leader, else the running node with the most up-to-date log, else any node. */
  reference(): RaftNode {
    const leader = this.core.leader();
    if (leader !== null) return leader;
    let best: RaftNode | null = null;
    for (const n of this.core.nodes.values()) {
      if (best === null || (n.alive && !best.alive) || (n.alive === best.alive && upToDateCompare(n, best) > 0)) best = n;
    }
    return best!;
  }

  node(id: number): RaftNode | undefined {
    return this.core.nodes.get(id);
  }

  /** Highest term of a running node. */
  get term(): number {
    let t = 0;
    for (const n of this.core.nodes.values()) if (n.alive && n.term > t) t = n.term;
    return t;
  }

  /** Voter ids, ascending. */
  get voters(): number[] {
    return [...this.reference().log.membership.voters];
  }

  /** rpc address per member. */
  get members(): ReadonlyMap<number, string> {
    return this.reference().log.membership.nodes;
  }

  get lastLogIndex(): number {
    return this.reference().log.lastIndex;
  }

  get membershipLogId(): LogId {
    return this.reference().log.membershipLogId;
  }

  /** The state machine: entries applied per kind (at the reference node). */
  get writes(): ReadonlyMap<string, number> {
    return this.reference().applied;
  }

  isVoter(nodeId: number): boolean {
    return this.reference().log.membership.voters.includes(nodeId);
  }

  quorum(): number {
    return quorumOf(this.reference().log.membership.voters.length);
  }

  /** Why the group has no leader, in words. */
  leaderlessReason(isOnline: (id: number) => boolean): string {
    const voters = this.voters;
    const online = voters.filter(isOnline).length;
    const q = quorumOf(voters.length);
    return online < q ? `only ${online} of its ${voters.length} voters are online, fewer than the quorum of ${q}` : 'election in progress';
  }
}

function upToDateCompare(a: RaftNode, b: RaftNode): number {
  return a.log.lastTerm - b.log.lastTerm || a.log.lastIndex - b.log.lastIndex || b.id - a.id;
}

/** Outcome of a proposed entry. */
type EntryOutcome = 'committed' | 'lost' | 'pending';

export interface RaftGroupsDeps {
  /** Virtual time, the trace, the seeded random source and the event queue a write waits on. */
  engine: SimEngine;
  network: Pick<SimNetwork, 'send'>;
  options: { metaRuntime: RaftGroupLayout };
  nodes: { get(id: number): SimNode | undefined; all(): readonly SimNode[] };
  invariants: Pick<InvariantRegistry, 'names' | 'registerSet'>;
}

/**
 * The consensus groups of the cluster. Every node is a voter of every group at start; the seeded
 * initial election gives each group its term-1 leader without advancing time. Afterwards elections,
 * replication and commits are real Raft over the simulated network.
 */
export class RaftGroups {
  private readonly byName = new Map<string, RaftGroup>();
  private layout: RaftGroupLayout = { ...DEFAULT_RAFT_GROUP_LAYOUT };
  private readonly bugState: RaftBugs = {};
  /** First violation of each Raft invariant; the invariant registry's checkers read it. */
  readonly violations: RaftViolations;
  /** Timing of the groups created at `start()` (tests may tune it before starting). */
  timing: RaftTiming = { ...DEFAULT_RAFT_TIMING };
  private waiting = false;

  constructor(private readonly deps: RaftGroupsDeps) {
    this.violations = new RaftViolations((name, message) => deps.engine.record('raft.violation', { name, message }));
  }

  /** Deliberate Raft bugs (tests): assigning replaces the set; every group reads it at decision time. */
  get bugs(): RaftBugs {
    return this.bugState;
  }

  set bugs(bugs: RaftBugs) {
    for (const name of RAFT_BUG_NAMES) delete this.bugState[name];
    Object.assign(this.bugState, bugs);
    this.deps.engine.record('raft.bugs', { ...bugs });
  }

  layoutOf(): RaftGroupLayout {
    return { ...this.layout };
  }

  start(): void {
    if (this.byName.size > 0) return;
    this.layout = { ...this.deps.options.metaRuntime };
    const { engine, network } = this.deps;
    const env: RaftEnv = {
      now: () => engine.now(),
      after: (ms, kind, run) => {
        engine.after(ms, kind, run);
      },
      record: (kind, detail) => engine.record(kind, detail),
      send: (from, to, message, deliver) => {
        network.send(from, to, message, deliver);
      },
    };
    const nodes = this.deps.nodes.all();
    const membership: Membership = {
      voters: nodes.map((n) => n.id),
      nodes: new Map(nodes.map((n) => [n.id, rpcAddrOf(n.ip, n.ports.grpc)])),
    };
    const rng = engine.random.fork('raft');
    for (const name of groupNames(this.layout)) {
      const core = new RaftGroupCore(name, env, rng.fork(name), this.timing, this.bugState, new GroupAudit(name, this.violations));
      core.bootstrap(membership);
      this.byName.set(name, new RaftGroup(name, core));
    }
    const registered = new Set(this.deps.invariants.names());
    const unregistered = RAFT_INVARIANTS.filter((name) => !registered.has(name));
    if (unregistered.length > 0) this.deps.invariants.registerSet(unregistered, () => this.violations.firstByName());
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

  private group(name: string): RaftGroup {
    const g = this.byName.get(name);
    if (!g) throw new Error(`no consensus group ${name}`);
    return g;
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

  // ---- writes ------------------------------------------------------------------------------

  /** Proposes one entry to the `meta` group without waiting; false (nothing proposed) while it has no leader. */
  appendMeta(kind: string): boolean {
    return this.tryWrite('meta', kind);
  }

  /** Like `write`, but skips (returns false) instead of failing while the group has no leader. */
  tryWrite(groupName: string, kind: string): boolean {
    const leader = this.byName.get(groupName)?.core.leader();
    if (!leader) return false;
    leader.propose(kind);
    return true;
  }

  /** Fails (unavailable) while the group has no leader, so a caller can check before changing anything. */
  requireLeader(groupName: string): RaftGroup {
    const group = this.group(groupName);
    if (group.leaderId === null) {
      throw unavailable(`the ${groupName} consensus group has no leader (${group.leaderlessReason(this.isOnline)}); retry`);
    }
    return group;
  }

  /** A write a model part needs: proposed to the leader (not awaited); refused while the group has no leader. */
  write(groupName: string, kind: string): LogId {
    const e = this.requireLeader(groupName).core.leader()!.propose(kind);
    return logId(e.term, e.leader, e.index);
  }

  /**
   * A write acknowledged only once committed: proposed to the leader, then the simulation runs
   * forward (virtual time, bounded by `meta_runtime.raft_write_timeout_sec`) until a quorum holds
   * it. While the group has no leader it waits for one within the same bound; an entry lost with
   * its leader is proposed again to the next one. Only a committed entry is acknowledged, and an
   * acknowledged entry is checked to stay in every future leader's log
   * (`raft.no-acknowledged-write-lost`). Fails (unavailable) when the bound passes.
   */
  commitWrite(groupName: string, kind: string): LogId {
    const g = this.group(groupName);
    const timeoutMs = this.writeTimeoutMs();
    const deadline = this.deps.engine.now() + timeoutMs;
    for (;;) {
      const leader = this.waitForLeader(g, deadline, false);
      if (leader === null) {
        throw unavailable(
          `the ${groupName} consensus group had no leader within raft_write_timeout_sec (${timeoutMs / 1000} s; ${g.leaderlessReason(this.isOnline)}): ` +
            `the change is made but not committed, and may be lost; read it back before retrying`,
        );
      }
      const entry = leader.propose(kind);
      const outcome = this.waitForEntry(g, entry, deadline);
      if (outcome === 'committed') {
        g.core.audit.acknowledge(entry);
        return logId(entry.term, entry.leader, entry.index);
      }
      if (outcome === 'pending') {
        throw unavailable(
          `the ${groupName} consensus group did not commit the write within raft_write_timeout_sec (${timeoutMs / 1000} s): node ${leader.id}, leader of term ${entry.term}, ` +
            `holds it at index ${entry.index} but reached no quorum. The change is made but unconfirmed: it may still commit or be discarded; read it back before retrying`,
        );
      }
      // Lost: another leader committed a different entry at its index. Propose it again.
    }
  }

  /**
   * Why a metadata write must be refused before it changes anything — the meta group has no leader
   * — or null when it may go ahead.
   */
  metaWriteRefusal(): string | null {
    const g = this.byName.get('meta');
    if (!g || g.leaderId !== null) return null;
    return `the meta consensus group has no leader (${g.leaderlessReason(this.isOnline)}); the request changed nothing, retry`;
  }

  /** The meta-group write of an accepted API mutation (see `commitWrite`). */
  commitMetaWrite(kind: string): LogId {
    return this.commitWrite('meta', kind);
  }

  /** `meta_runtime.raft_write_timeout_sec` of the nodes, in ms. */
  writeTimeoutMs(): number {
    const node = this.deps.nodes.all()[0];
    return node ? staticNodeConfig(node, this.layout).meta_runtime.raft_write_timeout_sec * 1000 : 30_000;
  }

  private outcomeOf(g: RaftGroup, entry: LogEntry): EntryOutcome {
    const uid = g.core.audit.committedUid(entry.index);
    if (uid === entry.uid) return 'committed';
    return uid === undefined || uid === -1 ? 'pending' : 'lost';
  }

  private waitForEntry(g: RaftGroup, entry: LogEntry, deadline: number): EntryOutcome {
    let outcome: EntryOutcome = 'pending';
    this.runUntil(() => (outcome = this.outcomeOf(g, entry)) !== 'pending', deadline);
    return outcome;
  }

  private waitForLeader(g: RaftGroup, deadline: number, settledMembership: boolean): RaftNode | null {
    let leader: RaftNode | null = null;
    this.runUntil(() => {
      leader = g.core.leader();
      return leader !== null && (!settledMembership || !leader.membershipPending());
    }, deadline);
    return leader !== null && (!settledMembership || !(leader as RaftNode).membershipPending()) ? leader : null;
  }

  /**
   * Runs the simulation event by event until `done()` holds or virtual time reaches `deadline`
   * (where the clock then stands). Only for callers outside an event (API requests, tests, chaos
   * steps): the write path's "wait for commit".
   */
  private runUntil(done: () => boolean, deadline: number): boolean {
    if (done()) return true;
    if (this.waiting) throw new Error('raft: nested wait for a commit');
    this.waiting = true;
    try {
      const engine = this.deps.engine;
      for (;;) {
        const next = engine.queue.peek();
        if (next === undefined || next.at > deadline) {
          if (engine.now() < deadline) engine.runUntil(deadline);
          return done();
        }
        engine.runUntil(next.at);
        if (done()) return true;
      }
    } finally {
      this.waiting = false;
    }
  }

  private readonly isOnline = (id: number): boolean => this.deps.nodes.get(id)?.online === true;

  // ---- views -------------------------------------------------------------------------------

  /**
   * The spec's Raft state object of `groupName` as `viewingNodeId` sees it, from that node's real
   * Raft state: the leader reports its members' heartbeats and replication; others report null there.
   */
  stateView(groupName: string, viewingNodeId: number): RaftStateRecord {
    const g = this.group(groupName);
    const node = g.node(viewingNodeId) ?? new RaftNode(g.core, viewingNodeId, new RaftStore());
    return raftStateView(node, this.deps.engine.now());
  }

  // ---- membership --------------------------------------------------------------------------

  /**
   * Removes `nodeId` from the voters of every group holding it (node leave, rule 2). Checks every
   * group first and changes nothing when any would drop below a safe quorum: a group with 2 or fewer
   * voters refuses; a group without a leader cannot change. Then each group commits the new
   * membership in turn (single-server change, waiting for commit). Returns the names of the groups
   * changed (empty: the node was in no membership).
   */
  removeVoter(nodeId: number): string[] {
    const holding = this.groups().filter((g) => g.isVoter(nodeId));
    for (const g of holding) {
      const n = g.voters.length;
      if (n <= 2)
        throw failed(
          `[${g.name}] refuse to remove node ${nodeId}: only ${n} voters, removing one would break quorum (need >= 3 voters to safely remove one)`,
        );
    }
    for (const g of holding) {
      if (g.leaderId === null)
        throw unavailable(
          `[${g.name}] change_membership failed while removing node ${nodeId}: the group has no leader (${g.leaderlessReason(this.isOnline)})`,
        );
    }
    for (const g of holding) this.changeMembership(g, nodeId, 'remove');
    return holding.map((g) => g.name);
  }

  /** A wiped node rejoining as a new node becomes a voter of every group again. */
  addVoter(nodeId: number): string[] {
    const node = this.deps.nodes.get(nodeId);
    if (!node) throw new Error(`unknown node ${nodeId}`);
    const missing = this.groups().filter((g) => !g.isVoter(nodeId));
    this.requireLeadersFor(missing, `adding node ${nodeId}`);
    for (const g of missing) this.changeMembership(g, nodeId, 'add', rpcAddrOf(node.ip, node.ports.grpc));
    return missing.map((g) => g.name);
  }

  /** Fails (unavailable, naming the group) when one of `groups` has no leader. */
  requireLeadersFor(groups: readonly RaftGroup[], doing: string): void {
    for (const g of groups) {
      if (g.leaderId === null)
        throw unavailable(
          `[${g.name}] change_membership failed while ${doing}: the group has no leader (${g.leaderlessReason(this.isOnline)})`,
        );
    }
  }

  /** One single-server membership change, committed before it returns (one change at a time per group). */
  private changeMembership(g: RaftGroup, nodeId: number, op: 'add' | 'remove', rpcAddr = ''): void {
    const deadline = this.deps.engine.now() + this.writeTimeoutMs();
    const doing = `${op === 'add' ? 'adding' : 'removing'} node ${nodeId}`;
    for (;;) {
      const leader = this.waitForLeader(g, deadline, true);
      if (leader === null)
        throw unavailable(
          `[${g.name}] change_membership failed while ${doing}: no leader with a settled membership within raft_write_timeout_sec`,
        );
      const current = leader.log.membership;
      const has = current.voters.includes(nodeId);
      if ((op === 'add') === has) return;
      const nodes = new Map(current.nodes);
      if (op === 'add') nodes.set(nodeId, rpcAddr);
      else nodes.delete(nodeId);
      const voters = op === 'add' ? [...current.voters, nodeId].sort((a, b) => a - b) : current.voters.filter((v) => v !== nodeId);
      const entry = leader.propose('membership', { voters, nodes });
      const outcome = this.waitForEntry(g, entry, deadline);
      if (outcome === 'pending')
        throw unavailable(
          `[${g.name}] change_membership failed while ${doing}: the new membership was not committed within raft_write_timeout_sec`,
        );
      if (outcome === 'committed') return;
    }
  }

  // ---- node lifecycle ----------------------------------------------------------------------

  /** A node is about to stop gracefully: the groups it leads hand leadership over first. */
  onNodeStopping(nodeId: number): void {
    for (const g of this.groups()) g.node(nodeId)?.transferLeadership();
  }

  /** A node's process stopped or crashed: its Raft memory is gone, its persisted state stays. */
  onNodeDown(nodeId: number): void {
    for (const g of this.groups()) g.node(nodeId)?.crash();
  }

  /** A node's process (re)started: each of its Raft nodes boots from what it persisted. */
  onNodeUp(nodeId: number): void {
    for (const g of this.groups()) {
      const node = g.node(nodeId);
      if (node && !node.alive) node.boot();
    }
  }

  /** A node's data directory was wiped: its Raft state of every group is gone (it rejoins as new). */
  onNodeWiped(nodeId: number): void {
    for (const g of this.groups()) g.core.addEmptyNode(nodeId);
  }
}

function rpcAddrOf(ip: string, grpcPort: number): string {
  return `${ip}:${grpcPort}`;
}
