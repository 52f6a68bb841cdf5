/** A scheduled model event. Ties at one instant run in scheduling order (`seq`), never in heap order. */
export interface ScheduledEvent {
  readonly at: number;
  readonly seq: number;
  readonly kind: string;
  readonly run: () => void;
}

/**
 * A binary min-heap of events ordered by (time, sequence number). The sequence number makes the order
 * total, which is what keeps two runs of one seed identical.
 */
export class EventQueue {
  private heap: ScheduledEvent[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, kind: string, run: () => void): ScheduledEvent {
    const event: ScheduledEvent = { at, seq: this.nextSeq++, kind, run };
    this.heap.push(event);
    this.siftUp(this.heap.length - 1);
    return event;
  }

  peek(): ScheduledEvent | undefined {
    return this.heap[0];
  }

  pop(): ScheduledEvent | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /**
   * Sifting moves the hole instead of swapping pairs, and compares inline: the queue holds up to
   * hundreds of thousands of events (session expiries of a big population) and runs millions. The
   * order is total, so any correct heap pops the same sequence; a test pops it against a sorted array.
   */
  private siftUp(i: number): void {
    const heap = this.heap;
    const item = heap[i];
    const { at, seq } = item;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (!(at < p.at || (at === p.at && seq < p.seq))) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = item;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      let c = heap[l];
      if (r < n) {
        const rc = heap[r];
        if (rc.at < c.at || (rc.at === c.at && rc.seq < c.seq)) {
          m = r;
          c = rc;
        }
      }
      if (!(c.at < item.at || (c.at === item.at && c.seq < item.seq))) break;
      heap[i] = c;
      i = m;
    }
    heap[i] = item;
  }
}
