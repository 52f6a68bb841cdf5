import { replicaOn, type Segment } from './shard-model.ts';
import type { Segments } from './segments.ts';
import type { StorageController } from './storage-controller.ts';
import type { StorageInvariants } from './storage-invariants.ts';
import type { StoragePeers } from './storage-peers.ts';

/** What the replica-loss part uses of the storage engine's other parts. */
export interface ReplicaLossParts {
  deps: Pick<StoragePeers, 'engine'>;
  segments: Pick<Segments, 'on'>;
  controller: Pick<StorageController, 'hears' | 'leaderWiped'>;
  invariants: Pick<StorageInvariants, 'relinquish'>;
  /** A segment changed (see `StorageEngine`). */
  touched(seg: Segment): void;
}

/**
 * Replicas lost with their node: a node back on a wiped data directory (its replicas reconcile from
 * nothing and leave the ISR), and a node leave that takes the only in-sync copy of some records.
 */
export class ReplicaLoss {
  /** Segments whose records a node leave gave up (their only in-sync copy left the cluster). */
  lostByLeave = 0;

  constructor(private readonly parts: ReplicaLossParts) {}

  /**
   * A node came back on a wiped data directory: its replicas are empty, must reconcile like a new
   * follower, and leave any ISR they were still counted in (an Unavailable segment whose last ISR
   * member was wiped has lost its data for good).
   */
  onNodeWiped(nodeId: number): void {
    for (const seg of this.parts.segments.on(nodeId)) {
      // A segment being deleted neither replicates nor serves, and goes with all its records at the
      // end of its delete steps: its frozen state stays as it is (shrinking its ISR here would leave
      // a leader outside its ISR with no controller to re-elect one, as chaos seed 5 found).
      if (seg.phase === 'PreDelete' || seg.phase === 'Deleting') continue;
      const r = replicaOn(seg, nodeId)!;
      r.log.clear(Math.max(seg.startOffset, seg.shard.logStartOffset));
      r.syncedEpoch = -1;
      r.progressEpoch = -1;
      if (seg.isr.includes(nodeId)) {
        seg.lastKnownIsr = seg.isr;
        seg.isr = seg.isr.filter((n) => n !== nodeId);
        seg.segmentEpoch++;
        this.parts.deps.engine.record('storage.isr.shrink', {
          shard: seg.shard.name,
          seq: seg.seq,
          node: nodeId,
          isr: seg.isr,
          wiped: true,
        });
      }
      // A leader that left, was never replaced (no controller at the time) and came back wiped.
      if (seg.leaderNodeId === nodeId) this.parts.controller.leaderWiped(seg);
      r.fetcher?.pending.add(seg);
      r.fetcher?.dirty.add(seg);
      this.parts.touched(seg);
    }
  }

  /**
   * Live segments whose acknowledged records only `nodeId` holds: it is in the ISR and no other ISR
   * member is a live cluster member the storage controller hears (a crashed or cut-off member is
   * about to leave the ISR; without a controller no other copy counts).
   */
  soleCopiesOn(nodeId: number): Segment[] {
    const out: Segment[] = [];
    for (const seg of this.parts.segments.on(nodeId)) {
      if (seg.gone || seg.phase === 'PreDelete' || seg.phase === 'Deleting' || !seg.isr.includes(nodeId)) continue;
      if (!seg.isr.some((n) => n !== nodeId && this.parts.controller.hears(n))) out.push(seg);
    }
    return out;
  }

  /**
   * Node leave succeeded (spec, node removal: rules 1-3 are the only refusals, as the real server
   * has it). A removed node rejoins only wiped (rule 4), so records only it held are lost by the
   * operator's removal: they are recorded as such (`storage.leave.data-lost`) and relinquished by
   * the acknowledged-write check, which keeps checking every other record. Replicas that have
   * another in-sync copy need nothing: the controller fences the removed node and elects from the
   * copies left. (Decision; see the notes of `cluster.node.leave`.)
   */
  onNodeLeft(nodeId: number): void {
    for (const seg of this.soleCopiesOn(nodeId)) {
      const to = Math.max(seg.hw, seg.startOffset);
      this.parts.deps.engine.record('storage.leave.data-lost', {
        node: nodeId,
        shard: seg.shard.name,
        seq: seg.seq,
        from: seg.startOffset,
        to,
        isr: seg.isr,
      });
      this.parts.invariants.relinquish(seg.shard, seg.startOffset, to);
      this.lostByLeave++;
    }
  }
}
