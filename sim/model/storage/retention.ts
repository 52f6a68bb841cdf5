import { highWatermark, leaderReplica, segmentEnd, type Segment, type Shard } from './shard-model.ts';
import type { Segments } from './segments.ts';
import type { StoragePeers } from './storage-peers.ts';

/** Retention is enforced by a sweep at this period of virtual time. */
export const RETENTION_SWEEP_MS = 60_000;

/** What retention uses of the storage engine's other parts. */
export interface RetentionParts {
  deps: Pick<StoragePeers, 'engine'>;
  segments: Pick<Segments, 'forget'>;
  /** Every shard (the sweep looks at those still running). */
  shards(): Iterable<Shard>;
  /** A segment changed (see `StorageEngine`). */
  touched(seg: Segment): void;
  /** The shard list changed (a log start moved). */
  listChanged(): void;
}

/** Retention: the log start of a shard moves forward by age (`retention_sec`, swept) or by record count. */
export class Retention {
  constructor(private readonly parts: RetentionParts) {}

  start(): void {
    this.parts.deps.engine.every(RETENTION_SWEEP_MS, 'storage.retention', () => this.sweep());
  }

  /**
   * Moves the log start to `cut` (never past the high watermark: only committed records go) on every
   * replica, then drops sealed segments left with no records.
   */
  trim(shard: Shard, cut: number): void {
    const to = Math.min(cut, highWatermark(shard));
    if (to <= shard.logStartOffset) return;
    shard.logStartOffset = to;
    this.parts.listChanged();
    let dropped = 0;
    for (const seg of shard.segments) {
      if (seg.startOffset >= to) break;
      for (const r of seg.replicas) {
        const leo = r.log.nextOffset;
        const n = r.log.trimBefore(to);
        if (r.nodeId === seg.leaderNodeId) dropped += n;
        // A follower whose LEO jumped to the new log start reports it.
        if (r.log.nextOffset !== leo) r.fetcher?.pending.add(seg);
      }
      this.parts.touched(seg);
    }
    while (shard.segments.length > 1 && segmentEnd(shard.segments[0]) <= to) this.parts.segments.forget(shard.segments.shift()!);
    for (const o of shard.deleted) if (o < to) shard.deleted.delete(o);
    this.parts.deps.engine.record('storage.trim', { dropped, logStartOffset: to, shard: shard.name }); // keys sorted: see storage.append
  }

  private sweep(): void {
    const cutoff = this.parts.deps.engine.now();
    for (const shard of this.parts.shards()) {
      if (shard.status !== 'Run') continue;
      const before = cutoff - shard.config.retention_sec * 1000;
      // Most shards hold nothing that old: their oldest record says so at once.
      const first = leaderReplica(shard.segments[0]).log;
      const oldest = first.get(first.startOffset);
      if (oldest && oldest.timestampMs >= before) continue;
      let cut = shard.logStartOffset;
      for (const seg of shard.segments) {
        const hit = leaderReplica(seg).log.firstAtOrAfter(before);
        if (hit) {
          cut = hit.offset;
          break;
        }
        cut = segmentEnd(seg);
      }
      this.trim(shard, cut);
    }
  }
}
