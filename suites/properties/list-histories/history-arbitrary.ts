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
 * value whose shrinks were walked, with the source that failed when known (`1200f3.36f3.9`), read
 * back with `metadataForReplay()`.
 */

/** One generated history: its steps, and how many of them ran (set by whoever runs it). */
export class History<S> {
  /** Steps run in the execution of this value, the failing one included (all when it passed). */
  ran: number;
  /** The steps as they ran, in words (set by whoever runs it; a counterexample prints them). */
  lines: string[] = [];
  /** Whether the failure came after the last step (in the reads that close a history). */
  failedAfterSteps = false;
  /** The source (family) whose step or read failed, when known: shrinking tries its steps alone first. */
  focus?: number;

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

/** What shrinking read of one executed value: how many steps ran, and the source that failed. */
export interface Walked {
  ran: number;
  focus?: number;
  /** The failure came after the last step: the last step may go too. */
  after?: boolean;
}

const WALKED = /^(\d+)(?:f(\d+))?(a?)$/;

/** Parses a replay path (`1200f3.36a.9`); undefined for an empty one, an Error for a malformed one. */
export function parseReplayPath(text: string | undefined): Walked[] | undefined {
  if (text === undefined || text === '') return undefined;
  const parts = text.split('.').map((p) => WALKED.exec(p));
  if (parts.some((m) => !m))
    throw new Error(
      `a history's replay path is step counts joined by dots, each with an optional fN and a (1200f3.36a.9), got ${JSON.stringify(text)}`,
    );
  return parts.map((m) => ({
    ran: Number(m![1]),
    ...(m![2] !== undefined ? { focus: Number(m![2]) } : {}),
    ...(m![3] ? { after: true } : {}),
  }));
}

function formatWalked(w: readonly Walked[]): string {
  return w.map((x) => `${x.ran}${x.focus !== undefined ? `f${x.focus}` : ''}${x.after ? 'a' : ''}`).join('.');
}

/** `x` shrunk toward 0 the way fast-check shrinks an integer: 0, then halving the distance to x. */
function* towardZero(x: number): Generator<number> {
  if (x <= 0) return;
  yield 0;
  for (let gap = Math.floor(x / 2); gap > 0; gap = Math.floor(gap / 2)) yield x - gap;
}

export class HistoryArbitrary<S> extends fc.Arbitrary<History<S>> {
  /** Steps that ran (and the source that failed) in each value whose shrinks were walked, in walking order. */
  private walked: Walked[] = [];
  private position = 0;

  constructor(
    private readonly sources: readonly fc.Arbitrary<S>[],
    private readonly depth: number,
    private readonly sourceReplayPath?: readonly Walked[],
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
    const walked = this.walkedOf(value);
    const kept = items.slice(0, walked.ran);
    if (kept.length === 0) return fc.Stream.nil();
    return new fc.Stream(this.candidates(kept, shrunkOnce, walked));
  }

  /** How many steps of `value` ran and what failed: from the replay path while replaying it, else from its execution. */
  private walkedOf(value: History<S>): Walked {
    if (this.position === 0) this.walked = this.sourceReplayPath ? [...this.sourceReplayPath] : [];
    let w: Walked;
    if (this.position < this.walked.length) w = this.walked[this.position];
    else {
      w = {
        ran: value.ran,
        ...(value.focus !== undefined ? { focus: value.focus } : {}),
        ...(value.failedAfterSteps ? { after: true } : {}),
      };
      this.walked.push(w);
    }
    this.position++;
    return w;
  }

  private *candidates(items: readonly Item<S>[], shrunkOnce: boolean, { focus, after }: Walked): Generator<fc.Value<History<S>>> {
    if (!shrunkOnce) yield this.historyValue([], true);
    // The failing source's steps alone: most faults need no other family's writes.
    if (focus !== undefined) {
      const alone = items.filter((i) => i.source === focus);
      if (alone.length > 0 && alone.length < items.length) yield this.historyValue(alone, true);
    }
    // A failure after the last step need not keep that step (the chunks below always keep it).
    if (after && items.length > 1) yield this.historyValue(items.slice(0, -1), true);
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
      () => formatWalked(this.walked),
    );
    const context: Context<S> = { items, shrunkOnce };
    return new fc.Value(history, context);
  }
}
