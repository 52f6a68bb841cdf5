import type { ListStamp } from './indexed-list.ts';

/**
 * What a list handler returns when its rows are computed (not held in indexes) from records whose
 * owner stamps them: the rows are computed only when no answer to the query is kept at this stamp
 * (sim/io/http/kept-answers.ts), so a repeated query costs no recomputation until the next write.
 */
export class StampedRows<V> {
  constructor(
    readonly stamp: ListStamp,
    private readonly compute: () => V[],
  ) {}

  rows(): V[] {
    return this.compute();
  }
}
