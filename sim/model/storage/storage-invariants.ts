import type { InvariantRegistry } from '../invariants/invariant-registry.ts';
import type { StoredRecord } from './record-log.ts';
import { highWatermark, leaderReplica, replicaOn, segmentEnd, type Segment, type Shard } from './shard-model.ts';

/** The storage invariants, by the names the registry reports them under. */
export const STORAGE_INVARIANTS = [
  'storage.monotonic-high-watermark',
  'storage.hw-at-most-isr-leo',
  'storage.leader-in-isr',
  'storage.monotonic-leader-epoch',
  'storage.no-acknowledged-write-lost',
  'storage.committed-data-identical',
] as const;

export type StorageInvariantName = (typeof STORAGE_INVARIANTS)[number];

/**
 * Segments whose state changed since the checkers last looked. The engine adds to it at every change
 * (append, fetch, truncation, ISR, leader, high watermark, trim); the checkers drain it, so a check
 * after an event costs what that event changed, never a scan of every shard.
 */
export class SegmentJournal {
  private readonly touched = new Set<Segment>();

  touch(seg: Segment): void {
    this.touched.add(seg);
  }

  forget(seg: Segment): void {
    this.touched.delete(seg);
  }

  get size(): number {
    return this.touched.size;
  }

  drain(): Segment[] {
    const out = [...this.touched];
    this.touched.clear();
    return out;
  }
}

/** What the checkers saw of a segment last time. */
interface SegmentSeen {
  hw: number;
  leader: number;
  leaderEpoch: number;
  /** Leader, epoch and the leader log's truncation count: a change means the leader's log may have lost records. */
  leaderSig: string;
  /** Leader, epoch, ISR and their truncation counts: unchanged means offsets below `checkedTo` were compared already. */
  isrSig: string;
  checkedTo: number;
}

/**
 * The records a shard acknowledged (its high watermark passed them), from the log start on, as the
 * checker copied them when they were acknowledged. A front index keeps trimming cheap.
 */
class AckLedger {
  start: number;
  private items: (StoredRecord | undefined)[] = [];
  private head = 0;
  hw: number;

  constructor(start: number) {
    this.start = start;
    this.hw = start;
  }

  get end(): number {
    return this.start + this.items.length - this.head;
  }

  at(offset: number): StoredRecord | undefined {
    return offset >= this.start && offset < this.end ? this.items[this.head + offset - this.start] : undefined;
  }

  push(record: StoredRecord | undefined): void {
    this.items.push(record);
  }

  /** Gives up the records in [from, to): they are no longer expected to survive. */
  forget(from: number, to: number): void {
    for (let o = Math.max(from, this.start); o < Math.min(to, this.end); o++) this.items[this.head + o - this.start] = undefined;
  }

  trimBefore(offset: number): void {
    if (offset <= this.start) return;
    const drop = Math.min(offset - this.start, this.items.length - this.head);
    this.head += drop;
    this.start = offset;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

const isrSignature = (seg: Segment): string =>
  `${seg.leaderNodeId}|${seg.leaderEpoch}|${seg.isr.map((id) => `${id}:${replicaOn(seg, id)?.log.truncations ?? -1}`).join(',')}`;
const leaderSignature = (seg: Segment): string => `${seg.leaderNodeId}|${seg.leaderEpoch}|${leaderReplica(seg).log.truncations}`;
const segName = (seg: Segment): string => `${seg.shard.name}/${seg.seq}`;

/**
 * Incremental checks of the storage invariants over the segments the journal names. Each invariant
 * keeps its first violation: once broken, the run is wrong, and the registry reports that first
 * violation at every later check.
 */
export class StorageInvariants {
  private readonly first = new Map<StorageInvariantName, string>();
  private readonly seen = new WeakMap<Segment, SegmentSeen>();
  private readonly shardHw = new WeakMap<Shard, number>();
  private readonly ledgers = new WeakMap<Shard, AckLedger>();

  constructor(private readonly journal: SegmentJournal) {}

  register(registry: InvariantRegistry): void {
    registry.registerSet(STORAGE_INVARIANTS, () => {
      this.sync();
      return this.first;
    });
  }

  /** First violation of each broken invariant. */
  violations(): Partial<Record<StorageInvariantName, string>> {
    return Object.fromEntries(this.first);
  }

  private report(name: StorageInvariantName, message: string): void {
    if (!this.first.has(name)) this.first.set(name, message);
  }

  /** Checks what changed since the last call. */
  sync(): void {
    if (this.journal.size === 0) return;
    const byShard = new Map<Shard, Segment[]>();
    for (const seg of this.journal.drain()) {
      if (seg.gone) continue;
      const list = byShard.get(seg.shard);
      if (list) list.push(seg);
      else byShard.set(seg.shard, [seg]);
    }
    for (const [shard, segs] of byShard) {
      const leaderMoved: Segment[] = [];
      for (const seg of segs) if (this.checkSegment(seg)) leaderMoved.push(seg);
      this.checkShard(shard, leaderMoved);
    }
  }

  /** Checks one segment; true when its leader's log may have lost records since the last look. */
  private checkSegment(seg: Segment): boolean {
    const st = this.seen.get(seg);
    if (st) {
      if (seg.leaderEpoch < st.leaderEpoch) {
        this.report(
          'storage.monotonic-leader-epoch',
          `segment ${segName(seg)}: leader_epoch went back from ${st.leaderEpoch} to ${seg.leaderEpoch}`,
        );
      } else if (seg.leaderEpoch === st.leaderEpoch && seg.leaderNodeId !== st.leader) {
        this.report(
          'storage.monotonic-leader-epoch',
          `segment ${segName(seg)}: the leader moved from node ${st.leader} to node ${seg.leaderNodeId} without a new leader_epoch (still ${seg.leaderEpoch})`,
        );
      }
      if (seg.hw < st.hw)
        this.report('storage.monotonic-high-watermark', `segment ${segName(seg)}: high watermark went back from ${st.hw} to ${seg.hw}`);
    }
    if (seg.available && !seg.isr.includes(seg.leaderNodeId)) {
      this.report(
        'storage.leader-in-isr',
        `segment ${segName(seg)}: leader node ${seg.leaderNodeId} is not in the ISR ${JSON.stringify(seg.isr)}`,
      );
    }
    for (const id of seg.isr) {
      const leo = replicaOn(seg, id)?.log.nextOffset ?? -1;
      if (leo < seg.hw) {
        this.report(
          'storage.hw-at-most-isr-leo',
          `segment ${segName(seg)}: high watermark ${seg.hw} is above the LEO ${leo} of in-sync replica node ${id} (ISR ${JSON.stringify(seg.isr)})`,
        );
      }
    }
    const isrSig = isrSignature(seg);
    const from = st && st.isrSig === isrSig ? st.checkedTo : seg.startOffset;
    this.compareIsr(seg, from, seg.hw);
    const leaderSig = leaderSignature(seg);
    this.seen.set(seg, {
      hw: Math.max(seg.hw, st?.hw ?? 0),
      leader: seg.leaderNodeId,
      leaderEpoch: Math.max(seg.leaderEpoch, st?.leaderEpoch ?? 0),
      leaderSig,
      isrSig,
      checkedTo: Math.max(from, seg.hw),
    });
    return st !== undefined && st.leaderSig !== leaderSig;
  }

  /**
   * The records of `shard` in [from, to) are given up by an operator's action (node leave of their
   * only holder): the acknowledged-write check stops expecting them. Records acknowledged before
   * the check copied them are copied first, so the range is dropped whatever the check saw so far.
   */
  relinquish(shard: Shard, from: number, to: number): void {
    this.sync();
    this.ledgers.get(shard)?.forget(from, to);
  }

  /** ISR members hold the leader's very records in [from, to). */
  private compareIsr(seg: Segment, from: number, to: number): void {
    const leader = leaderReplica(seg);
    for (const id of seg.isr) {
      if (id === seg.leaderNodeId) continue;
      const r = replicaOn(seg, id)!;
      const lo = Math.max(from, seg.shard.logStartOffset, r.log.startOffset, leader.log.startOffset);
      const hi = Math.min(to, r.log.nextOffset, leader.log.nextOffset);
      for (let o = lo; o < hi; o++) {
        if (r.log.get(o) !== leader.log.get(o)) {
          this.report(
            'storage.committed-data-identical',
            `segment ${segName(seg)}: at offset ${o}, below the high watermark ${seg.hw}, in-sync node ${id} holds a different record than leader node ${seg.leaderNodeId}`,
          );
          break;
        }
      }
    }
  }

  /**
   * Shard-level checks: the high watermark never goes back, and every acknowledged record is still on
   * the leader of its segment (checked in full where a leader changed or truncated, which is the
   * only way a leader's log loses records other than retention).
   */
  private checkShard(shard: Shard, leaderMoved: Segment[]): void {
    const hw = highWatermark(shard);
    const before = this.shardHw.get(shard);
    if (before !== undefined && hw < before)
      this.report('storage.monotonic-high-watermark', `shard ${shard.name}: high watermark went back from ${before} to ${hw}`);
    this.shardHw.set(shard, Math.max(hw, before ?? 0));

    let ledger = this.ledgers.get(shard);
    if (!ledger) {
      ledger = new AckLedger(shard.logStartOffset);
      this.ledgers.set(shard, ledger);
    }
    ledger.trimBefore(shard.logStartOffset);
    for (const seg of leaderMoved) this.compareLedger(shard, ledger, seg);
    const active = shard.segments[shard.segments.length - 1];
    if (leaderReplica(active).log.nextOffset < ledger.end && active.startOffset < ledger.end) this.compareLedger(shard, ledger, active);
    // Copy what the high watermark passed since the last look: these writes are acknowledged now.
    if (hw > ledger.end) {
      let i = 0;
      const segs = shard.segments;
      for (let o = ledger.end; o < hw; o++) {
        while (i < segs.length - 1 && o >= segs[i + 1].startOffset) i++;
        ledger.push(o >= segs[i].startOffset ? leaderReplica(segs[i]).log.get(o) : undefined);
      }
    }
  }

  private compareLedger(shard: Shard, ledger: AckLedger, seg: Segment): void {
    const i = shard.segments.indexOf(seg);
    if (i < 0) return;
    const next = shard.segments[i + 1];
    const lo = Math.max(seg.startOffset, ledger.start);
    const hi = Math.min(next ? next.startOffset : ledger.end, ledger.end);
    const log = leaderReplica(seg).log;
    for (let o = lo; o < hi; o++) {
      const acked = ledger.at(o);
      if (!acked) continue;
      const held = log.get(o);
      if (held !== acked) {
        this.report(
          'storage.no-acknowledged-write-lost',
          `shard ${shard.name}: offset ${o} was acknowledged, but the leader of segment ${seg.seq} (node ${seg.leaderNodeId}, leader epoch ${seg.leaderEpoch}) ${held ? 'holds a different record' : `no longer holds it (its LEO is ${log.nextOffset})`}`,
        );
        return;
      }
    }
  }

  /**
   * End of a run (after faults healed and replication settled): every replica of every segment holds
   * the leader's very records below the high watermark. Returns one line per disagreement.
   */
  convergenceProblems(shards: readonly Shard[]): string[] {
    const problems: string[] = [];
    for (const shard of shards) {
      const hw = highWatermark(shard);
      for (const seg of shard.segments) {
        const leader = leaderReplica(seg);
        const hi = Math.min(hw, segmentEnd(seg));
        for (const r of seg.replicas) {
          if (r === leader) continue;
          for (let o = Math.max(seg.startOffset, shard.logStartOffset); o < hi; o++) {
            if (r.log.get(o) !== leader.log.get(o)) {
              problems.push(
                `segment ${segName(seg)}: node ${r.nodeId} ${r.log.get(o) ? 'holds a different record' : 'lacks the record'} at committed offset ${o} (leader node ${seg.leaderNodeId}, high watermark ${hw})`,
              );
              break;
            }
          }
        }
      }
    }
    return problems;
  }
}
