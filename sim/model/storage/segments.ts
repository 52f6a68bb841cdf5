import { fnv1a } from '../engine/fnv1a.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import { RecordLog } from './record-log.ts';
import type { ReplicaFetchers } from './replica-fetcher.ts';
import { activeSegment, segmentEnd, type Replica, type Segment, type SegmentPhase, type Shard } from './shard-model.ts';
import type { SegmentJournal } from './storage-invariants.ts';
import type { StoragePeers } from './storage-peers.ts';

/** What the segments part uses of the storage engine's other parts. */
export interface SegmentParts {
  deps: Pick<StoragePeers, 'engine' | 'nodes' | 'raft'>;
  replication: Pick<ReplicaFetchers, 'attach' | 'detach'>;
  journal: Pick<SegmentJournal, 'forget'>;
  /** Whether the controller fenced the node (it takes no new replica). */
  isFenced(nodeId: number): boolean;
  /** The node's broker epoch as the controller knows it. */
  brokerEpoch(nodeId: number): number;
  /** A segment changed (see `StorageEngine`). */
  touched(seg: Segment): void;
  /** The engine's seeded stream (placement), forked at start. */
  rng(): SeededRandom;
}

/**
 * The segments of the shards: placed on nodes when opened, their phases (Write, PreSealUp, SealUp,
 * PreDelete, Deleting), the roll to a new active segment, and the index of segments by node.
 */
export class Segments {
  /** Live segments by node holding a replica, for the controller's failover. */
  private readonly byNode = new Map<number, Set<Segment>>();

  constructor(private readonly parts: SegmentParts) {}

  /** Live segments with a replica on the node. */
  on(nodeId: number): Iterable<Segment> {
    return this.byNode.get(nodeId) ?? [];
  }

  /** Nodes that can hold a new replica: online, still members, with the engine role, not fenced. */
  placeableNodes(): number[] {
    return this.parts.deps.nodes
      .online()
      .filter((n) => !n.removed && n.roles.includes('engine') && !this.parts.isFenced(n.id))
      .map((n) => n.id);
  }

  /** Places a new segment on `replica_num` distinct placeable nodes, seeded; the first is the leader. */
  open(shard: Shard, seq: number, startOffset: number): Segment {
    const nodes = this.parts.rng().shuffle(this.placeableNodes()).slice(0, shard.config.replica_num);
    const replicas: Replica[] = nodes.map((nodeId, i) => {
      const folds = this.parts.deps.nodes.get(nodeId)?.storageFold ?? [];
      const fold = folds.length > 0 ? folds[fnv1a(`${shard.name}/${seq}`) % folds.length] : '';
      // Every replica of a new segment starts empty in epoch 0: nothing to reconcile.
      return {
        replicaSeq: i,
        nodeId,
        fold,
        log: new RecordLog(startOffset),
        syncedEpoch: 0,
        progressLeo: startOffset,
        progressEpoch: 0,
        lastCaughtUpMs: this.parts.deps.nodes.localNow(nodes[0]),
        fetcher: null,
      };
    });
    const seg: Segment = {
      shard,
      seq,
      replicas,
      leaderNodeId: nodes[0],
      isr: [...nodes],
      lastKnownIsr: [...nodes],
      leaderEpoch: 0,
      segmentEpoch: 0,
      leaderBrokerEpoch: this.parts.brokerEpoch(nodes[0]),
      phase: 'Write',
      available: true,
      startOffset,
      hw: startOffset,
      firstTimestampMs: null,
      lastTimestampMs: null,
      bytes: 0,
      gone: false,
    };
    replicas[0].log.assignEpoch(0);
    shard.segments.push(seg);
    for (const nodeId of nodes) {
      let set = this.byNode.get(nodeId);
      if (!set) this.byNode.set(nodeId, (set = new Set()));
      set.add(seg);
    }
    this.parts.replication.attach(seg);
    this.parts.touched(seg);
    return seg;
  }

  /** A segment leaves the model (trimmed away or its shard deleted). */
  forget(seg: Segment): void {
    seg.gone = true;
    this.parts.replication.detach(seg);
    for (const r of seg.replicas) this.byNode.get(r.nodeId)?.delete(seg);
    this.parts.journal.forget(seg);
  }

  setPhase(seg: Segment, phase: SegmentPhase): void {
    if (seg.phase === phase) return;
    seg.phase = phase;
    seg.segmentEpoch++;
    this.parts.deps.engine.record('storage.segment.status', { shard: seg.shard.name, seq: seg.seq, status: phase });
    this.parts.touched(seg);
  }

  /** A sealing segment is sealed once its whole content is committed (every ISR member holds it). */
  maybeSeal(seg: Segment): void {
    if (seg.phase === 'PreSealUp' && seg.available && seg.hw >= segmentEnd(seg)) this.setPhase(seg, 'SealUp');
  }

  /**
   * Seals the active segment (`PreSealUp` until its followers hold all of it, then `SealUp`) and
   * opens the next one where it ended, on freshly placed nodes. Without a placeable node the active
   * segment keeps taking writes.
   */
  roll(shard: Shard): void {
    if (this.placeableNodes().length === 0) return;
    const { engine, raft } = this.parts.deps;
    const old = activeSegment(shard);
    this.setPhase(old, 'PreSealUp');
    const next = this.open(shard, old.seq + 1, segmentEnd(old));
    raft.tryWrite(raft.dataGroupFor(shard.name), 'segment.create');
    engine.record('storage.segment.roll', {
      shard: shard.name,
      sealed: old.seq,
      active: next.seq,
      startOffset: next.startOffset,
      replicas: next.replicas.map((r) => r.nodeId),
    });
    this.maybeSeal(old);
  }
}
