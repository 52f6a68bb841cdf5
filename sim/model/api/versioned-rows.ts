import type { ListVersion } from './indexed-list.ts';

/**
 * What a list handler returns when its rows are computed (not held in indexes) from records whose
 * owner versions them: the rows are computed only when no response to the query is cached at this
 * version (sim/admin-api/response-cache.ts), so a repeated query costs no recomputation until the next write.
 */
export class VersionedRows<V> {
  constructor(
    readonly listVersion: ListVersion,
    private readonly compute: () => V[],
  ) {}

  rows(): V[] {
    return this.compute();
  }
}
