/**
 * A list kept sorted by a total order, for indexes that are read by position (list pages) far more
 * often than they change. Items live in blocks of at most 2 × BLOCK items (a sorted-block list):
 * insert and delete cost O(log n + BLOCK) (a binary search, then a splice of one block), reading
 * item i costs O(log blocks) once the block offsets are known (rebuilt lazily after a change), so
 * page 5,000 of a million items is found without sorting or walking the million.
 */
const BLOCK = 512;

export class SortedList<T> {
  private blocks: T[][] = [];
  /** offsets[b]: index of the first item of block b; valid while `offsetsValid`. */
  private offsets: number[] = [];
  private offsetsValid = true;
  private count = 0;

  /** `compare` must be a total order on the items held (0 only for the same item). */
  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  /** Block holding the first item not below `item` (the last block when every item is below). */
  private blockFor(item: T): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const b = this.blocks[mid];
      if (this.compare(b[b.length - 1], item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private static lowerBound<T>(items: readonly T[], item: T, compare: (a: T, b: T) => number): number {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(items[mid], item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(item: T): void {
    this.count++;
    this.offsetsValid = false;
    if (this.blocks.length === 0) {
      this.blocks.push([item]);
      return;
    }
    const b = this.blockFor(item);
    const block = this.blocks[b];
    block.splice(SortedList.lowerBound(block, item, this.compare), 0, item);
    if (block.length > 2 * BLOCK) this.blocks.splice(b + 1, 0, block.splice(BLOCK));
  }

  /** Removes `item` (found by the order, then by identity); false when it is not held. */
  delete(item: T): boolean {
    if (this.blocks.length === 0) return false;
    const b = this.blockFor(item);
    const block = this.blocks[b];
    const i = SortedList.lowerBound(block, item, this.compare);
    if (i >= block.length || block[i] !== item) return false;
    block.splice(i, 1);
    if (block.length === 0) this.blocks.splice(b, 1);
    this.count--;
    this.offsetsValid = false;
    return true;
  }

  private ensureOffsets(): void {
    if (this.offsetsValid) return;
    this.offsets = new Array(this.blocks.length);
    let n = 0;
    for (let b = 0; b < this.blocks.length; b++) {
      this.offsets[b] = n;
      n += this.blocks[b].length;
    }
    this.offsetsValid = true;
  }

  /** Block and position within it of item `index` (0 <= index < size). */
  private locate(index: number): [number, number] {
    this.ensureOffsets();
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return [lo, index - this.offsets[lo]];
  }

  /** The item at `index` in order, or undefined outside 0..size-1. */
  at(index: number): T | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const [b, i] = this.locate(index);
    return this.blocks[b][i];
  }

  /** Items from `start` (inclusive) to `end` (exclusive) in order, clamped to the list. */
  slice(start: number, end: number = this.count): T[] {
    const from = Math.max(0, start);
    const to = Math.min(this.count, end);
    const out: T[] = [];
    if (from >= to) return out;
    let [b, i] = this.locate(from);
    for (let n = from; n < to; n++) {
      out.push(this.blocks[b][i]);
      if (++i === this.blocks[b].length) {
        b++;
        i = 0;
      }
    }
    return out;
  }

  /** Index of the first item for which `below(item)` is false; `below` must hold for a prefix of the order. */
  partitionPoint(below: (item: T) => boolean): number {
    this.ensureOffsets();
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const blk = this.blocks[mid];
      if (below(blk[blk.length - 1])) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.blocks.length) return this.count;
    const blk = this.blocks[lo];
    let a = 0;
    let z = blk.length;
    while (a < z) {
      const mid = (a + z) >> 1;
      if (below(blk[mid])) a = mid + 1;
      else z = mid;
    }
    return this.offsets[lo] + a;
  }

  /** Every item in order, as an array. */
  toArray(): T[] {
    const out: T[] = new Array(this.count);
    let n = 0;
    for (const block of this.blocks) for (const item of block) out[n++] = item;
    return out;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const block of this.blocks) yield* block;
  }

  /** Calls `visit` with the items at positions [from, to) in order (no iterator objects: for long scans). */
  forEach(visit: (item: T) => void, from = 0, to = this.count): void {
    const start = Math.max(0, from);
    const end = Math.min(this.count, to);
    if (start >= end) return;
    let [b, i] = this.locate(start);
    let n = start;
    for (; b < this.blocks.length && n < end; b++, i = 0) {
      const block = this.blocks[b];
      for (; i < block.length && n < end; i++, n++) visit(block[i]);
    }
  }

  /** Calls `visit` with every item from the last to the first. */
  forEachReversed(visit: (item: T) => void): void {
    for (let b = this.blocks.length - 1; b >= 0; b--) {
      const block = this.blocks[b];
      for (let i = block.length - 1; i >= 0; i--) visit(block[i]);
    }
  }
}
