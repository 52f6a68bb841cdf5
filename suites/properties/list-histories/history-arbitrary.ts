import fc from 'fast-check';

/**
 * Histories of exactly `depth` steps that shrink like `fc.commands`: a failing history is cut to the
 * steps that ran (the failing one last), then chunks are removed and single steps shrunk. Unlike
 * `fc.commands`, whose length is drawn uniformly between 0 and its maximum, every generated history
 * has the depth asked for, so `--depth N` means N steps.
 *
 * Steps come in bursts: a source (one resource family) is drawn, then 1 to `burst` steps of it, so
 * a history holds runs of writes and reads of one family (a create, its upsert, a delete, the same
 * filter read both ways) between those of the others. Each step stays a value of its own source,
 * shrunk by it.
 *
 * Which steps ran depends on the target, not on the value, so an exact replay of a shrunk case needs
 * it besides the seed and fast-check's path: the replay path, the number of steps that ran in each
 * value whose shrinks were walked (`1200.36.9`), read back with `metadataForReplay()`.
 */

/** One generated history: its steps, and how many of them ran (set by whoever runs it). */
export class History<S> {
  /** Steps run in the execution of this value, the failing one included (all when it passed). */
  ran: number;
  /** The steps as they ran, in words (set by whoever runs it; a counterexample prints them). */
  lines: string[] = [];
  /** Whether the failure came after the last step (in the reads that close a history). */
  failedAfterSteps = false;

  constructor(
    readonly steps: readonly S[],
    private readonly replayText: () => string,
  ) {
    this.ran = steps.length;
  }

  /** `replayPath="…"`, as fast-check's command sequences write it (read by the property runner). */
  metadataForReplay(): string {
    return `replayPath=${JSON.stringify(this.replayText())}`;
  }

  toString(): string {
    return `history of ${this.steps.length} steps`;
  }
}

/** A generated step and the source that made it (and shrinks it). */
interface Item<S> {
  source: number;
  value: fc.Value<S>;
}

interface Context<S> {
  items: readonly Item<S>[];
  shrunkOnce: boolean;
}

/** Parses a replay path (`1200.36.9`); undefined for an empty one, an Error for a malformed one. */
export function parseReplayPath(text: string | undefined): number[] | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d+(\.\d+)*$/.test(text)) throw new Error(`a history's replay path is numbers joined by dots (1200.36.9), got ${JSON.stringify(text)}`);
  return text.split('.').map(Number);
}

/** `x` shrunk toward 0 the way fast-check shrinks an integer: 0, then halving the distance to x. */
function* towardZero(x: number): Generator<number> {
  if (x <= 0) return;
  yield 0;
  for (let gap = Math.floor(x / 2); gap > 0; gap = Math.floor(gap / 2)) yield x - gap;
}

export class HistoryArbitrary<S> extends fc.Arbitrary<History<S>> {
  /** Steps that ran in each value whose shrinks were walked, in walking order. */
  private walked: number[] = [];
  private position = 0;

  constructor(
    private readonly sources: readonly fc.Arbitrary<S>[],
    private readonly depth: number,
    private readonly sourceReplayPath?: readonly number[],
    private readonly burst = 6,
  ) {
    super();
    if (sources.length === 0) throw new Error('a history needs at least one source of steps');
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<History<S>> {
    const items: Item<S>[] = [];
    while (items.length < this.depth) {
      const source = mrng.nextInt(0, this.sources.length - 1);
      const length = Math.min(mrng.nextInt(1, this.burst), this.depth - items.length);
      for (let i = 0; i < length; i++) items.push({ source, value: this.sources[source].generate(mrng, biasFactor) });
    }
    this.position = 0;
    return this.historyValue(items, false);
  }

  canShrinkWithoutContext(_value: unknown): _value is History<S> {
    return false;
  }

  shrink(value: History<S>, context: unknown): fc.Stream<fc.Value<History<S>>> {
    if (context === undefined) return fc.Stream.nil();
    const { items, shrunkOnce } = context as Context<S>;
    const kept = items.slice(0, this.ranOf(value));
    if (kept.length === 0) return fc.Stream.nil();
    return new fc.Stream(this.candidates(kept, shrunkOnce));
  }

  /** How many steps of `value` ran: from the replay path while replaying it, else from its execution. */
  private ranOf(value: History<S>): number {
    if (this.position === 0) this.walked = this.sourceReplayPath ? [...this.sourceReplayPath] : [];
    let ran: number;
    if (this.position < this.walked.length) ran = this.walked[this.position];
    else {
      ran = value.ran;
      this.walked.push(ran);
    }
    this.position++;
    return ran;
  }

  private *candidates(items: readonly Item<S>[], shrunkOnce: boolean): Generator<fc.Value<History<S>>> {
    if (!shrunkOnce) yield this.historyValue([], true);
    // Remove a chunk after the first `keep` steps, the biggest chunks first.
    for (let keep = 0; keep < items.length; keep++) {
      for (const tail of towardZero(items.length - 1 - keep)) {
        yield this.historyValue([...items.slice(0, keep), ...items.slice(items.length - (tail + 1))], true);
      }
    }
    // Then shrink one step at a time.
    for (let at = 0; at < items.length; at++) {
      const { source, value } = items[at];
      for (const smaller of this.sources[source].shrink(value.value_, value.context)) {
        yield this.historyValue([...items.slice(0, at), { source, value: smaller }, ...items.slice(at + 1)], true);
      }
    }
  }

  private historyValue(items: readonly Item<S>[], shrunkOnce: boolean): fc.Value<History<S>> {
    const history = new History(
      items.map((i) => i.value.value_),
      () => this.walked.join('.'),
    );
    const context: Context<S> = { items, shrunkOnce };
    return new fc.Value(history, context);
  }
}
