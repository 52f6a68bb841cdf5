import type { SeededRandom } from '../engine/seeded-random.ts';
import { epochEndOf, type EpochStart, type RecordLog, type StoredRecord } from './record-log.ts';
import { Fetcher, leaderReplica, replicaOn, type Replica, type Segment } from './shard-model.ts';
import type { StoragePeers } from './storage-peers.ts';
import type { StorageBugs, StorageSettings } from './storage-settings.ts';

/** A follower's state of one segment, as its fetch request carries it. */
interface FetchUpdate {
  readonly seg: Segment;
  readonly leo: number;
  /** The leader epoch the follower's log is reconciled with. */
  readonly epoch: number;
  /** The follower log's truncation count when the request left: a later truncation or wipe makes `leo` stale. */
  readonly truncations: number;
}

interface FetchRequest {
  readonly fetcher: Fetcher;
  readonly updates: FetchUpdate[];
}

/** What a leader answers for one segment: records after the follower's LEO, or its epoch history to reconcile with. */
type FetchEntry =
  | { readonly kind: 'data'; readonly seg: Segment; readonly epoch: number; readonly records: StoredRecord[] }
  | { readonly kind: 'sync'; readonly seg: Segment; readonly epoch: number; readonly epochs: EpochStart[]; readonly leo: number };

interface FetchResponse {
  readonly fetcher: Fetcher;
  readonly entries: FetchEntry[];
}

/** What replication needs from the rest of the storage engine. */
export interface ReplicationHost {
  readonly peers: Pick<StoragePeers, 'engine' | 'nodes' | 'network'>;
  settings(): StorageSettings;
  bugs(): StorageBugs;
  /** Whether the leader on `nodeId` can have the controller change an ISR now. */
  canAlterIsr(nodeId: number): boolean;
  /** Whether the controller regards `nodeId` as dead or unreachable. */
  isFenced(nodeId: number): boolean;
  /** A segment's state changed (for the invariant checkers). */
  touched(seg: Segment): void;
  /** A segment's high watermark moved up. */
  onHighWatermark(seg: Segment): void;
}

/**
 * Truncates a follower's log to where it agrees with its leader's, from the leader's epoch history
 * (Kafka's OffsetsForLeaderEpoch, with the KIP-279 loop): the end of the follower's last epoch on the
 * leader, bounded by the end of the epoch the leader named on the follower. Stops at the window start.
 */
export function reconcileWithLeader(log: RecordLog, leaderEpochs: readonly EpochStart[], leaderLeo: number): number {
  let dropped = 0;
  for (;;) {
    const last = log.lastEpoch();
    if (last < 0) return dropped;
    const onLeader = epochEndOf(leaderEpochs, leaderLeo, last);
    const to = onLeader.epoch < 0 ? onLeader.end : Math.min(onLeader.end, log.epochEnd(onLeader.epoch).end);
    if (to >= log.nextOffset) return dropped;
    const before = log.nextOffset;
    dropped += log.truncateTo(to);
    if (log.nextOffset === before) return dropped;
  }
}

const fetcherKey = (follower: number, leader: number): string => `${follower}>${leader}`;

/**
 * Replication of segments from their leaders to their followers through the simulated network.
 * Work per fetch is proportional to the segments whose state changed (an incremental fetch session),
 * never to all segments, and nothing is traced per fetch: only ISR and leader changes are.
 */
export class ReplicaFetchers {
  private readonly fetchers = new Map<string, Fetcher>();
  private rng!: SeededRandom;
  private readonly deliverRequest = (req: FetchRequest): void => this.serveFetch(req);
  private readonly deliverResponse = (res: FetchResponse): void => this.applyFetch(res);

  constructor(private readonly host: ReplicationHost) {}

  start(rng: SeededRandom): void {
    this.rng = rng;
    const loop = (): void => {
      this.checkIsr();
      this.host.peers.engine.after(this.host.settings().isr_check_interval_ms, 'storage.isr-check', loop);
    };
    this.host.peers.engine.after(this.host.settings().isr_check_interval_ms, 'storage.isr-check', loop);
  }

  /** Every fetcher, in creation order. */
  all(): Fetcher[] {
    return [...this.fetchers.values()];
  }

  /** The spec's `fetcher_index` of the fetcher on `follower` for `leader`: the leader's rank among the follower's peers. */
  fetcherIndex(follower: number, leader: number): number {
    return this.host.peers.nodes.all().filter((n) => n.id !== follower && n.id < leader).length;
  }

  /** The fetcher of `follower` for `leader`, created (and its fetch loop started) on first use. */
  fetcherFor(follower: number, leader: number): Fetcher {
    const key = fetcherKey(follower, leader);
    let f = this.fetchers.get(key);
    if (f) return f;
    f = new Fetcher(follower, leader, this.fetcherIndex(follower, leader), this.host.peers.nodes.localNow(leader));
    this.fetchers.set(key, f);
    // A seeded phase, so the fetchers of a cluster do not all fire at the same instant.
    const fetcher = f;
    const tick = (): void => {
      this.sendFetch(fetcher);
      this.host.peers.engine.after(this.host.settings().replica_fetch_interval_ms, 'storage.fetch', tick);
    };
    this.host.peers.engine.after(this.rng.int(1, this.host.settings().replica_fetch_interval_ms), 'storage.fetch', tick);
    return f;
  }

  /** Puts the followers of `seg` on the fetchers of its current leader. */
  attach(seg: Segment): void {
    for (const r of seg.replicas) {
      if (r.nodeId === seg.leaderNodeId) continue;
      const f = this.fetcherFor(r.nodeId, seg.leaderNodeId);
      f.segments.add(seg);
      f.dirty.add(seg);
      f.pending.add(seg);
      r.fetcher = f;
    }
  }

  /** Takes `seg` off every fetcher (leader change, deletion, trim). */
  detach(seg: Segment): void {
    for (const r of seg.replicas) {
      const f = r.fetcher;
      if (!f) continue;
      f.segments.delete(seg);
      f.dirty.delete(seg);
      f.pending.delete(seg);
      r.fetcher = null;
    }
  }

  /**
   * Makes `newLeader` the leader of `seg` in a new leader epoch with `isr`. The new leader opens its
   * epoch at its LEO; every follower must reconcile with it before it takes records again, and the
   * leader forgets what it knew of their progress (so the high watermark waits for their reports).
   */
  installLeader(seg: Segment, newLeader: number, isr: number[], brokerEpoch: number): void {
    this.detach(seg);
    seg.lastKnownIsr = seg.isr;
    seg.isr = isr;
    seg.leaderNodeId = newLeader;
    seg.leaderEpoch++;
    seg.segmentEpoch++;
    seg.leaderBrokerEpoch = brokerEpoch;
    seg.available = true;
    const leader = leaderReplica(seg);
    leader.log.assignEpoch(seg.leaderEpoch);
    leader.syncedEpoch = seg.leaderEpoch;
    // Lag times are the leader's own clock readings (a clock step on it makes followers look late).
    const now = this.host.peers.nodes.localNow(newLeader);
    for (const r of seg.replicas) {
      if (r === leader) continue;
      r.progressEpoch = -1;
      // ISR members get a full lag time to report to the new leader before they can be dropped.
      if (isr.includes(r.nodeId)) r.lastCaughtUpMs = now;
    }
    this.attach(seg);
    this.host.touched(seg);
    this.advanceHighWatermark(seg);
  }

  /** The leader appended to `seg`; its LEO was `leoBefore`. */
  onAppend(seg: Segment, leoBefore: number): void {
    for (const r of seg.replicas) {
      const f = r.fetcher;
      if (!f) continue;
      // A follower that was at the LEO stops being caught up now: fix the time it last was.
      if (r.progressEpoch === seg.leaderEpoch && r.progressLeo >= leoBefore && f.lastServedMs > r.lastCaughtUpMs)
        r.lastCaughtUpMs = f.lastServedMs;
      f.dirty.add(seg);
    }
    this.advanceHighWatermark(seg);
  }

  /** When the leader last saw this follower at its LEO. */
  lastCaughtUpMs(seg: Segment, r: Replica): number {
    const f = r.fetcher;
    const atLeo = r.progressEpoch === seg.leaderEpoch && r.progressLeo >= leaderReplica(seg).log.nextOffset;
    return f && atLeo ? Math.max(r.lastCaughtUpMs, f.lastServedMs) : r.lastCaughtUpMs;
  }

  /**
   * Moves the segment's high watermark up to the smallest LEO in the ISR as the leader knows it. A
   * follower that has not reported in the current epoch holds it where it is.
   */
  advanceHighWatermark(seg: Segment): void {
    if (!seg.available || seg.gone) return;
    const leaderLeo = leaderReplica(seg).log.nextOffset;
    let hw = leaderLeo;
    if (this.host.bugs().hwPastIsrMember) {
      // The bug: the most advanced ISR follower sets the high watermark.
      let most = -1;
      let followers = 0;
      for (const id of seg.isr) {
        if (id === seg.leaderNodeId) continue;
        followers++;
        const r = replicaOn(seg, id)!;
        if (r.progressEpoch === seg.leaderEpoch) most = Math.max(most, r.progressLeo);
      }
      if (followers > 0) hw = most < 0 ? seg.hw : Math.min(most, leaderLeo);
    } else {
      for (const id of seg.isr) {
        if (id === seg.leaderNodeId) continue;
        const r = replicaOn(seg, id)!;
        hw = Math.min(hw, r.progressEpoch === seg.leaderEpoch ? r.progressLeo : seg.hw);
      }
    }
    if (hw > seg.hw) {
      seg.hw = hw;
      this.host.touched(seg);
      this.host.onHighWatermark(seg);
    }
  }

  // ---- the fetch protocol --------------------------------------------------------------------

  private sendFetch(f: Fetcher): void {
    const peers = this.host.peers;
    if (f.segments.size === 0 || peers.nodes.get(f.follower)?.online !== true) return;
    const full = f.requests % this.host.settings().replica_fetch_full_every === 0;
    f.requests++;
    const updates: FetchUpdate[] = [];
    for (const seg of full ? f.segments : f.pending) {
      const r = replicaOn(seg, f.follower)!;
      updates.push({ seg, leo: r.log.nextOffset, epoch: r.syncedEpoch, truncations: r.log.truncations });
    }
    f.pending.clear();
    peers.network.send<FetchRequest>(f.follower, f.leader, { fetcher: f, updates }, this.deliverRequest);
  }

  /** Leader side: learn the follower's progress, then answer with what it lacks. */
  private serveFetch(req: FetchRequest): void {
    const f = req.fetcher;
    const now = this.host.peers.nodes.localNow(f.leader);
    f.lastServedMs = now;
    for (const u of req.updates) {
      const seg = u.seg;
      if (seg.gone || seg.leaderNodeId !== f.leader || !f.segments.has(seg)) continue;
      const r = replicaOn(seg, f.follower)!;
      // A request sent before the follower's log was truncated or wiped (a wiped rejoin, seed 916)
      // reports a LEO the follower no longer has: counting it would put an empty replica in the ISR.
      if (u.epoch !== seg.leaderEpoch || u.truncations !== r.log.truncations) {
        f.dirty.add(seg);
        continue;
      }
      if (r.progressEpoch !== seg.leaderEpoch) {
        r.progressEpoch = seg.leaderEpoch;
        r.progressLeo = u.leo;
      } else if (u.leo > r.progressLeo) r.progressLeo = u.leo;
      if (r.progressLeo >= leaderReplica(seg).log.nextOffset) {
        r.lastCaughtUpMs = now;
        this.maybeExpandIsr(seg, r);
      }
      this.advanceHighWatermark(seg);
    }

    const entries: FetchEntry[] = [];
    const served: Segment[] = [];
    let budget = this.host.settings().replica_fetch_max_bytes;
    for (const seg of f.dirty) {
      if (budget <= 0) break;
      if (seg.gone || seg.leaderNodeId !== f.leader || !f.segments.has(seg)) {
        f.dirty.delete(seg);
        continue;
      }
      const r = replicaOn(seg, f.follower)!;
      const leader = leaderReplica(seg);
      if (r.progressEpoch !== seg.leaderEpoch) {
        entries.push({ kind: 'sync', seg, epoch: seg.leaderEpoch, epochs: leader.log.epochStarts().slice(), leo: leader.log.nextOffset });
        served.push(seg);
        continue;
      }
      if (r.progressLeo >= leader.log.nextOffset) {
        // Caught up: done with it, once it is back in the ISR (the controller may refuse for now).
        this.maybeExpandIsr(seg, r);
        if (seg.isr.includes(r.nodeId)) f.dirty.delete(seg);
        continue;
      }
      const records = leader.log.readBytes(r.progressLeo, budget);
      if (records.length === 0) continue;
      for (const rec of records) budget -= rec.bytes;
      entries.push({ kind: 'data', seg, epoch: seg.leaderEpoch, records });
      served.push(seg);
    }
    // Served segments go to the back, so one busy segment cannot starve the others of the budget.
    for (const seg of served) {
      f.dirty.delete(seg);
      f.dirty.add(seg);
    }
    if (entries.length > 0)
      this.host.peers.network.send<FetchResponse>(f.leader, f.follower, { fetcher: f, entries }, this.deliverResponse);
  }

  /** Follower side: reconcile or append what the leader sent, if it still leads in that epoch. */
  private applyFetch(res: FetchResponse): void {
    const f = res.fetcher;
    for (const e of res.entries) {
      const seg = e.seg;
      if (seg.gone || seg.leaderNodeId !== f.leader || seg.leaderEpoch !== e.epoch) continue;
      const r = replicaOn(seg, f.follower);
      if (!r || r.fetcher !== f) continue;
      if (e.kind === 'sync') {
        if (r.syncedEpoch >= e.epoch) {
          // Reconciled already: the report was lost on the way. Report again.
          f.pending.add(seg);
          continue;
        }
        reconcileWithLeader(r.log, e.epochs, e.leo);
        r.syncedEpoch = e.epoch;
        f.pending.add(seg);
        this.host.touched(seg);
        continue;
      }
      if (r.syncedEpoch !== e.epoch) continue;
      let appended = 0;
      for (const rec of e.records) {
        if (rec.offset < r.log.nextOffset) continue;
        if (rec.offset > r.log.nextOffset) break;
        r.log.appendStored(rec);
        appended++;
      }
      // Records it held already mean the leader missed a report: report again, appended or not.
      f.pending.add(seg);
      if (appended > 0) this.host.touched(seg);
    }
  }

  // ---- ISR -----------------------------------------------------------------------------------

  private maybeExpandIsr(seg: Segment, r: Replica): void {
    if (seg.isr.includes(r.nodeId) || !seg.available) return;
    if (this.host.isFenced(r.nodeId) || !this.host.canAlterIsr(seg.leaderNodeId)) return;
    this.setIsr(
      seg,
      seg.replicas.filter((x) => x.nodeId === r.nodeId || seg.isr.includes(x.nodeId)).map((x) => x.nodeId),
      'storage.isr.expand',
      r.nodeId,
    );
  }

  /** Removes `nodeId` from the ISR of `seg` (a lagging follower, or a node the controller fenced). */
  shrinkIsr(seg: Segment, nodeId: number): void {
    if (!seg.isr.includes(nodeId) || nodeId === seg.leaderNodeId) return;
    this.setIsr(
      seg,
      seg.isr.filter((n) => n !== nodeId),
      'storage.isr.shrink',
      nodeId,
    );
    // Its fetches are looked at again until it is back in.
    replicaOn(seg, nodeId)!.fetcher?.dirty.add(seg);
    this.advanceHighWatermark(seg);
  }

  private setIsr(seg: Segment, isr: number[], kind: string, nodeId: number): void {
    seg.lastKnownIsr = seg.isr;
    seg.isr = isr;
    seg.segmentEpoch++;
    this.host.peers.engine.record(kind, { shard: seg.shard.name, seq: seg.seq, node: nodeId, isr });
    this.host.touched(seg);
  }

  /**
   * Each leader drops followers that were not at its LEO for longer than the lag time. A fetcher
   * whose requests stopped arriving puts all its segments in question; otherwise only the segments
   * where the follower is known to be behind are looked at.
   */
  private checkIsr(): void {
    const peers = this.host.peers;
    const lagMax = this.host.settings().replica_lag_time_max_ms;
    for (const f of this.fetchers.values()) {
      if (f.segments.size === 0 || peers.nodes.get(f.leader)?.online !== true || !this.host.canAlterIsr(f.leader)) continue;
      const now = peers.nodes.localNow(f.leader);
      const pool = now - f.lastServedMs > lagMax ? f.segments : f.dirty;
      const lagging: Segment[] = [];
      for (const seg of pool) {
        if (seg.leaderNodeId !== f.leader || !seg.available || !seg.isr.includes(f.follower)) continue;
        if (now - this.lastCaughtUpMs(seg, replicaOn(seg, f.follower)!) > lagMax) lagging.push(seg);
      }
      for (const seg of lagging) this.shrinkIsr(seg, f.follower);
    }
  }
}
