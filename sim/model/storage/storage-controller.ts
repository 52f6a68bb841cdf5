import type { ReplicaFetchers } from './replica-fetcher.ts';
import type { Segment } from './shard-model.ts';
import type { StoragePeers } from './storage-peers.ts';
import type { StorageBugs, StorageSettings } from './storage-settings.ts';

/** What the controller needs from the rest of the storage engine. */
export interface ControllerHost {
  readonly peers: StoragePeers;
  readonly replication: ReplicaFetchers;
  settings(): StorageSettings;
  bugs(): StorageBugs;
  /** Live segments with a replica on `nodeId`, in a fixed order. */
  segmentsOn(nodeId: number): Iterable<Segment>;
  touched(seg: Segment): void;
  /** A segment got a new leader (or lost its last live ISR member). */
  onLeadershipChanged(seg: Segment): void;
  /** A node restarted on a wiped data directory. */
  onNodeWiped(nodeId: number): void;
}

/**
 * The storage side of the cluster controller, run by the meta group's leader: it fences nodes that
 * died or that it cannot reach (they leave every ISR; the segments they led get a new leader, chosen
 * only from the live ISR — no unclean election), marks a segment `Unavailable` when no ISR member is
 * left alive, and brings it back when one returns. Without a meta leader nothing is decided: the
 * segments keep their leaders and ISRs until a controller exists again.
 */
export class StorageController {
  private readonly fenced = new Set<number>();
  private readonly starts = new Map<number, number>();
  /** Segments whose leader came back wiped while no controller could elect another. */
  private readonly orphaned = new Set<Segment>();

  constructor(private readonly host: ControllerHost) {}

  start(): void {
    const { peers } = this.host;
    const loop = (): void => {
      this.check();
      peers.engine.after(this.host.settings().controller_check_interval_ms, 'storage.controller', loop);
    };
    peers.engine.after(this.host.settings().controller_check_interval_ms, 'storage.controller', loop);
    // Lifecycle events make detection immediate; the periodic check finds the same changes later.
    peers.nodes.onLifecycle((e) => {
      if (e.kind === 'start' || e.kind === 'restart') this.starts.set(e.nodeId, this.brokerEpoch(e.nodeId) + 1);
      // A node back on a wiped data directory holds none of its old replicas' records.
      if (e.kind === 'start') this.host.onNodeWiped(e.nodeId);
      this.check();
    });
  }

  /** Start count of a node as the controller saw it (Kafka's broker epoch). */
  brokerEpoch(nodeId: number): number {
    return this.starts.get(nodeId) ?? 1;
  }

  /**
   * The meta group's leader when its node runs and reaches a majority of the member nodes, else
   * null. The majority rule (Raft's check-quorum) keeps a leader cut off on a minority side, which
   * may still believe it leads, from fencing the majority.
   */
  controllerId(): number | null {
    const { peers } = this.host;
    const id = peers.raft.metaLeaderId();
    if (id === null || peers.nodes.get(id)?.online !== true) return null;
    const members = peers.nodes.all().filter((n) => !n.removed);
    const heard = members.filter((n) => n.online && peers.network.reachable(id, n.id) && peers.network.reachable(n.id, id)).length;
    return heard * 2 > members.length ? id : null;
  }

  isFenced(nodeId: number): boolean {
    return this.fenced.has(nodeId);
  }

  /** Whether a leader on `nodeId` can have its ISR changed now: the controller exists and hears it. */
  canAlterIsr(nodeId: number): boolean {
    const ctrl = this.controllerId();
    return ctrl !== null && this.host.peers.nodes.get(nodeId)?.online === true && this.host.peers.network.reachable(nodeId, ctrl);
  }

  /** Whether a controller exists and counts `nodeId` alive (running, a member, reachable from it). */
  hears(nodeId: number): boolean {
    const ctrl = this.controllerId();
    return ctrl !== null && this.alive(nodeId, ctrl);
  }

  private alive(nodeId: number, ctrl: number): boolean {
    const node = this.host.peers.nodes.get(nodeId);
    return node !== undefined && node.online && !node.removed && this.host.peers.network.reachable(ctrl, nodeId);
  }

  /**
   * The leader of `seg` lost its records (its node came back wiped) and left the ISR: elect another
   * live ISR member now if a controller exists; otherwise the segment is Unavailable until one does
   * (`check` retries). A wiped leader must never keep serving: it would answer with an empty log.
   */
  leaderWiped(seg: Segment): void {
    const ctrl = this.controllerId();
    this.orphaned.add(seg);
    if (ctrl !== null) this.elect(seg, ctrl);
    else if (seg.available) this.markUnavailable(seg);
    if (seg.available) this.orphaned.delete(seg);
  }

  /** Fences nodes that died or became unreachable, unfences those that came back. */
  check(): void {
    const ctrl = this.controllerId();
    if (ctrl === null) return;
    for (const seg of [...this.orphaned]) {
      if (!seg.gone && !seg.available && seg.phase !== 'PreDelete' && seg.phase !== 'Deleting') this.elect(seg, ctrl);
      if (seg.gone || seg.available) this.orphaned.delete(seg);
    }
    for (const node of this.host.peers.nodes.all()) {
      const alive = this.alive(node.id, ctrl);
      if (!alive && !this.fenced.has(node.id)) this.fence(node.id, ctrl);
      else if (alive && this.fenced.has(node.id)) this.unfence(node.id, ctrl);
    }
  }

  private fence(nodeId: number, ctrl: number): void {
    this.fenced.add(nodeId);
    this.host.peers.engine.record('storage.node.fenced', { node: nodeId, controller: ctrl });
    for (const seg of [...this.host.segmentsOn(nodeId)]) {
      // An unavailable segment keeps its ISR as it was: any of those members may bring it back.
      if (seg.gone || !seg.available || seg.phase === 'PreDelete' || seg.phase === 'Deleting') continue;
      if (seg.leaderNodeId === nodeId) this.elect(seg, ctrl);
      else this.host.replication.shrinkIsr(seg, nodeId);
    }
  }

  private unfence(nodeId: number, ctrl: number): void {
    this.fenced.delete(nodeId);
    this.host.peers.engine.record('storage.node.unfenced', { node: nodeId, controller: ctrl });
    for (const seg of [...this.host.segmentsOn(nodeId)]) {
      if (!seg.gone && !seg.available && seg.phase !== 'PreDelete' && seg.phase !== 'Deleting') this.elect(seg, ctrl);
    }
  }

  private markUnavailable(seg: Segment): void {
    seg.available = false;
    seg.segmentEpoch++;
    this.host.peers.engine.record('storage.segment.status', { shard: seg.shard.name, seq: seg.seq, status: 'Unavailable', isr: seg.isr });
    this.host.touched(seg);
    this.host.onLeadershipChanged(seg);
  }

  /**
   * Gives `seg` a leader from its live ISR members (first in replica order); the ISR keeps its live
   * members. With none alive the segment becomes Unavailable, unless the unclean-election bug lets an
   * out-of-sync replica lead with an ISR of itself.
   */
  private elect(seg: Segment, ctrl: number): void {
    const live = seg.replicas.filter((r) => this.alive(r.nodeId, ctrl)).map((r) => r.nodeId);
    let leader = live.find((n) => seg.isr.includes(n));
    let isr = live.filter((n) => seg.isr.includes(n));
    if (leader === undefined && this.host.bugs().uncleanElection && live.length > 0) {
      leader = live[0];
      isr = [leader];
    }
    if (leader === undefined) {
      if (seg.available) this.markUnavailable(seg);
      return;
    }
    const from = seg.leaderNodeId;
    this.host.replication.installLeader(seg, leader, isr, this.brokerEpoch(leader));
    this.host.peers.engine.record('storage.leader.change', {
      shard: seg.shard.name,
      seq: seg.seq,
      from,
      to: leader,
      epoch: seg.leaderEpoch,
      isr,
    });
    this.host.onLeadershipChanged(seg);
  }
}
