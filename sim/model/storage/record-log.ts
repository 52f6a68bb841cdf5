/** One stored record of a shard. */
export interface StoredRecord {
  readonly offset: number;
  readonly key: string | null;
  readonly payload: string;
  /** Virtual Unix ms when the record was written. */
  readonly timestampMs: number;
  /** Size counted toward `max_segment_size`: UTF-8 bytes of key and payload. */
  readonly bytes: number;
  /** Leader epoch of the segment when its leader appended the record (Kafka's partitionLeaderEpoch). */
  readonly leaderEpoch: number;
}

/** A leader epoch and the first offset written in it (Kafka's leader-epoch cache entry). */
export interface EpochStart {
  readonly epoch: number;
  readonly start: number;
}

/** Where a log's epoch ends: the largest epoch at or below the one asked for, and its end offset. */
export interface EpochEnd {
  /** -1 when the log has no epoch at or below the one asked for. */
  readonly epoch: number;
  readonly end: number;
}

/**
 * The largest epoch of `epochs` at or below `epoch`, with its end offset: the start of the next epoch,
 * or `logEnd` for the last one. Without such an epoch: epoch -1 and the start of the first epoch (or
 * `logEnd` when there is none), so a follower keeps nothing the log never had.
 */
export function epochEndOf(epochs: readonly EpochStart[], logEnd: number, epoch: number): EpochEnd {
  let i = epochs.length - 1;
  while (i >= 0 && epochs[i].epoch > epoch) i--;
  if (i < 0) return { epoch: -1, end: epochs.length > 0 ? Math.min(epochs[0].start, logEnd) : logEnd };
  return { epoch: epochs[i].epoch, end: i === epochs.length - 1 ? logEnd : epochs[i + 1].start };
}

/**
 * The records of one replica still held in memory: a window [startOffset, nextOffset) of consecutive
 * offsets. Trimming the front is O(1) amortised (a head index, compacted now and then), so a shard
 * written at a high rate keeps bounded memory without shifting arrays on every append. The log also
 * keeps its leader-epoch cache, which is what a follower reconciles against a new leader.
 */
export class RecordLog {
  private items: StoredRecord[] = [];
  private head = 0;
  private next: number;
  private readonly epochs: EpochStart[] = [];
  private truncatedTimes = 0;

  constructor(startOffset = 0) {
    this.next = startOffset;
  }

  /** Offset the next record gets (the log end offset). */
  get nextOffset(): number {
    return this.next;
  }

  /** Earliest offset still available; equals `nextOffset` when the window is empty. */
  get startOffset(): number {
    return this.head < this.items.length ? this.items[this.head].offset : this.next;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** How many times the tail was truncated: lets checkers notice a rewrite between two looks. */
  get truncations(): number {
    return this.truncatedTimes;
  }

  /** The leader-epoch cache, oldest first. */
  epochStarts(): readonly EpochStart[] {
    return this.epochs;
  }

  /** Epoch of the newest cache entry, or -1 for a log that never had one. */
  lastEpoch(): number {
    return this.epochs.length > 0 ? this.epochs[this.epochs.length - 1].epoch : -1;
  }

  /** Where epoch `epoch` ends in this log (see `epochEndOf`). */
  epochEnd(epoch: number): EpochEnd {
    return epochEndOf(this.epochs, this.next, epoch);
  }

  /** A new leader opens its epoch at its log end (Kafka assigns the epoch on election). */
  assignEpoch(epoch: number, start = this.next): void {
    if (epoch > this.lastEpoch()) this.epochs.push({ epoch, start });
  }

  /** Appends a new record at the log end (the leader's write). */
  append(record: Omit<StoredRecord, 'offset' | 'leaderEpoch'> & { leaderEpoch?: number }): StoredRecord {
    const stored: StoredRecord = {
      offset: this.next,
      key: record.key,
      payload: record.payload,
      timestampMs: record.timestampMs,
      bytes: record.bytes,
      leaderEpoch: record.leaderEpoch ?? 0,
    };
    this.push(stored);
    return stored;
  }

  /** Appends a record copied from another replica; it must sit exactly at the log end. */
  appendStored(record: StoredRecord): void {
    if (record.offset !== this.next) throw new Error(`record at offset ${record.offset} cannot follow log end ${this.next}`);
    this.push(record);
  }

  private push(record: StoredRecord): void {
    if (this.epochs.length === 0 || record.leaderEpoch > this.epochs[this.epochs.length - 1].epoch)
      this.epochs.push({ epoch: record.leaderEpoch, start: record.offset });
    this.items.push(record);
    this.next = record.offset + 1;
  }

  /**
   * Drops every record at or above `offset` (a follower removing a tail its new leader does not
   * have), with the cache entries of epochs that started there. Never below the window start: what
   * was trimmed is gone from every replica.
   */
  truncateTo(offset: number): number {
    const to = Math.max(offset, this.startOffset);
    if (to >= this.next) return 0;
    const keep = this.head + (to - this.startOffset);
    const dropped = this.items.length - keep;
    this.items.length = keep;
    this.next = to;
    while (this.epochs.length > 0 && this.epochs[this.epochs.length - 1].start >= to) this.epochs.pop();
    this.truncatedTimes++;
    return dropped;
  }

  /** Empties the log (a wiped data directory): nothing held, the end at `startOffset`, no epochs. */
  clear(startOffset: number): void {
    this.items = [];
    this.head = 0;
    this.next = startOffset;
    this.epochs.length = 0;
    this.truncatedTimes++;
  }

  /** Drops every record with an offset below `offset`. */
  trimBefore(offset: number): number {
    let dropped = 0;
    while (this.head < this.items.length && this.items[this.head].offset < offset) {
      this.head++;
      dropped++;
    }
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
      // Keep the end offset moving even when everything is gone.
      if (offset > this.next) this.next = offset;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }

  /** Drops the oldest records until at most `max` remain. */
  trimToSize(max: number): number {
    const excess = this.size - max;
    return excess > 0 ? this.trimBefore(this.startOffset + excess) : 0;
  }

  /** Drops records written before `cutoffMs` (retention). */
  trimOlderThan(cutoffMs: number): number {
    let until = this.head;
    while (until < this.items.length && this.items[until].timestampMs < cutoffMs) until++;
    return until > this.head ? this.trimBefore(this.items[until - 1].offset + 1) : 0;
  }

  get(offset: number): StoredRecord | undefined {
    const i = this.head + (offset - this.startOffset);
    return i >= this.head && i < this.items.length ? this.items[i] : undefined;
  }

  /** Up to `max` records from `fromOffset` (clamped into the window), below `endOffset`. */
  read(fromOffset: number, max: number, endOffset = this.next): StoredRecord[] {
    const from = Math.max(fromOffset, this.startOffset);
    const out: StoredRecord[] = [];
    for (let o = from; o < Math.min(endOffset, this.next) && out.length < max; o++) {
      const r = this.get(o);
      if (r) out.push(r);
    }
    return out;
  }

  /** Records from `fromOffset` until their bytes reach `maxBytes` (at least one, as Kafka's fetch). */
  readBytes(fromOffset: number, maxBytes: number): StoredRecord[] {
    const out: StoredRecord[] = [];
    let bytes = 0;
    for (let o = Math.max(fromOffset, this.startOffset); o < this.next; o++) {
      const r = this.get(o)!;
      if (out.length > 0 && bytes + r.bytes > maxBytes) break;
      out.push(r);
      bytes += r.bytes;
    }
    return out;
  }

  /** First record whose timestamp is at or after `timestampMs`, by binary search (timestamps never go back). */
  firstAtOrAfter(timestampMs: number): StoredRecord | undefined {
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid].timestampMs < timestampMs) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.items.length ? this.items[lo] : undefined;
  }
}
