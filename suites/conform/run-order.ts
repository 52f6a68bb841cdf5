import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The order a sequential run would have made things in, kept while parts of the run go at once.
 * Each part runs in a slot (its place in the sequential order: a tag's index); what it makes — an
 * exchange, a check record, a created instance, a note — is marked with (phase, slot). Sorting by the
 * mark, stably, gives back the sequential order, because each slot is itself sequential: the report
 * does not depend on how the parts interleaved.
 */
export class RunOrder {
  private readonly slot = new AsyncLocalStorage<number>();
  private phase = 0;
  private readonly marks = new WeakMap<object, readonly [number, number]>();
  /** Notes written in slots, by slot, until the phase ends. */
  private readonly slotNotes = new Map<number, string[]>();

  /** The slot the caller runs in, if any. */
  current(): number | undefined {
    return this.slot.getStore();
  }

  /** Runs `fn` in `slot`: what it makes is marked with that slot. */
  inSlot<T>(slot: number, fn: () => Promise<T>): Promise<T> {
    return this.slot.run(slot, fn);
  }

  mark(item: object): void {
    this.marks.set(item, [this.phase, this.slot.getStore() ?? -1]);
  }

  /** Where notes go: the caller's slot's own list, or `main` outside slots. */
  notes(main: string[]): string[] {
    const slot = this.slot.getStore();
    if (slot === undefined) return main;
    const list = this.slotNotes.get(slot) ?? [];
    this.slotNotes.set(slot, list);
    return list;
  }

  /** Ends a phase of slots: their notes join `main` in slot order, and later marks sort after this phase's. */
  endPhase(main: string[]): void {
    for (const slot of [...this.slotNotes.keys()].sort((a, b) => a - b)) main.push(...this.slotNotes.get(slot)!);
    this.slotNotes.clear();
    this.phase++;
  }

  /** Sorts `items` in place into the sequential order (stable: items of one slot keep theirs). */
  sort<T extends object>(items: T[]): T[] {
    const key = (x: T) => this.marks.get(x) ?? [Number.MAX_SAFE_INTEGER, 0];
    return items.sort((a, b) => {
      const [pa, sa] = key(a);
      const [pb, sb] = key(b);
      return pa - pb || sa - sb;
    });
  }
}

/**
 * Runs `lanes` with at most `concurrency` at once, in the order given (each lane is sequential
 * inside). With concurrency 1 they run one after another.
 */
export async function runLanes(lanes: readonly (() => Promise<void>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < lanes.length) await lanes[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, lanes.length)) }, worker));
}
