/** One stored record of a shard. */
export interface StoredRecord {
  readonly offset: number;
  readonly key: string | null;
  readonly payload: string;
  /** Virtual Unix ms when the record was written. */
  readonly timestampMs: number;
  /** Size counted toward `max_segment_size`: UTF-8 bytes of key and payload. */
  readonly bytes: number;
}

/**
 * The records of one shard still held in memory: a window [startOffset, nextOffset) of consecutive
 * offsets. Trimming the front is O(1) amortised (a head index, compacted now and then), so a shard
 * written at a high rate keeps bounded memory without shifting arrays on every append.
 */
export class RecordLog {
  private items: StoredRecord[] = [];
  private head = 0;
  private next: number;

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

  append(record: Omit<StoredRecord, 'offset'>): StoredRecord {
    const stored: StoredRecord = { ...record, offset: this.next };
    this.items.push(stored);
    this.next += 1;
    return stored;
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
