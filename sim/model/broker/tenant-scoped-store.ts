import { RecordIndex, type IndexEntry, type RecordIndexOptions } from '../api/record-index.ts';
import type { IndexedList } from '../api/indexed-list.ts';

/**
 * Records keyed by (tenant, name), kept in insertion order so every listing is deterministic.
 * The metadata stores of the broker (users, ACL, rules, schemas...) share this shape. The records
 * are held in a RecordIndex, so their list pages are read from maintained sorted indexes.
 */
export class TenantScopedStore<T> {
  private readonly records: RecordIndex<T>;

  /**
   * `options`: the base order (insertion by default) and the view fields that differ from the
   * record's. The stores replace records and never change them in place, so their list views are
   * functions of the records (filtered queries may keep their matches until the next write).
   */
  constructor(options: RecordIndexOptions<T> = {}) {
    this.records = new RecordIndex({ viewsOfRecordsOnly: true, ...options });
  }

  private key(tenant: string, name: string): string {
    return `${tenant}\u0000${name}`;
  }

  get(tenant: string, name: string): T | undefined {
    return this.records.get(this.key(tenant, name));
  }

  has(tenant: string, name: string): boolean {
    return this.records.has(this.key(tenant, name));
  }

  set(tenant: string, name: string, record: T): void {
    this.records.set(this.key(tenant, name), record);
  }

  /** Removes the record; false when there was none. */
  delete(tenant: string, name: string): boolean {
    return this.records.delete(this.key(tenant, name));
  }

  /** Changes a held record in place, keeping the sorted indexes in order. */
  modify(tenant: string, name: string, change: (record: T) => void): void {
    this.records.modify(this.key(tenant, name), change);
  }

  all(): T[] {
    return this.records.values();
  }

  /** The records as a list served from the indexes, each shown by `view`. */
  listing<V>(view: (record: T) => V): IndexedList<IndexEntry<T>, V> {
    return this.records.listing(view);
  }

  get size(): number {
    return this.records.size;
  }
}
