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

  private less(a: ScheduledEvent, b: ScheduledEvent): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.less(heap[l], heap[m])) m = l;
      if (r < heap.length && this.less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
}
