/** Matching records of filtered queries, by query, kept until the next write (bounded). */
export class MatchCache<R> {
  private readonly byQuery = new Map<string, R[]>();

  constructor(private readonly maxQueries = 64) {}

  get(key: string): R[] | undefined {
    return this.byQuery.get(key);
  }

  set(key: string, records: R[]): void {
    if (this.byQuery.size >= this.maxQueries) this.byQuery.clear();
    this.byQuery.set(key, records);
  }

  clear(): void {
    if (this.byQuery.size > 0) this.byQuery.clear();
  }
}

/** A sequence read by position, kept in order by its owner (e.g. a SortedList). */
export interface OrderedIndex<R> {
  readonly size: number;
  at(index: number): R | undefined;
  slice(start: number, end?: number): R[];
  partitionPoint(below: (item: R) => boolean): number;
  [Symbol.iterator](): Iterator<R>;
  /** Calls `visit` with every item from the last to the first. */
  forEachReversed(visit: (item: R) => void): void;
  /** Calls `visit` with the items at positions [from, to) in order. */
  forEach(visit: (item: R) => void, from?: number, to?: number): void;
}

export interface IndexedListSource<R, V> {
  /** Every record in the list's base order (the order without sort_field). */
  readonly base: OrderedIndex<R>;
  /**
   * Per sortable field, an index in the order a stable ascending sort of the base order by that field
   * gives (field value, then base order). A field without one makes the query sort (see applyListQuery).
   */
  readonly sorted: Readonly<Record<string, OrderedIndex<R>>>;
  /**
   * Per sortable field, optionally, an index in the order a stable descending sort of the base order
   * gives (field value descending, then base order): descending pages are then read by position.
   */
  readonly sortedDescending?: Readonly<Record<string, OrderedIndex<R>>>;
  /**
   * The string field each index is ordered by first (e.g. the base order starts with tenant): an
   * exact filter on it narrows a scan of that index to the matching range.
   */
  readonly leadingField?: ReadonlyMap<OrderedIndex<R>, string>;
  /** The handler's own filter (e.g. the topic list's topic_type); records failing it are not in the list. */
  readonly where?: (record: R) => boolean;
  /**
   * Where filtered queries may keep their matching records (by query), when the views are functions
   * of records the owner changes only through itself: it empties this on every write.
   */
  readonly matches?: MatchCache<R>;
  /**
   * The version of the list's records, when the owner can tell: the same owner at the same version
   * gives the same records in the same views, so a response computed from them may be cached and sent
   * again for the same query until the version moves (sim/admin-api/response-cache.ts).
   */
  readonly listVersion?: ListVersion;
  /**
   * Every record of the list in base order (before `where`), computed from the owner's plain store
   * without the maintained indexes (a Map in insertion order, sorted by the base order): what the
   * reference answer (list-reference.ts) is computed from. Absent: the base index is read.
   */
  plainRecords?(): Iterable<R>;
  /** The value of field `name` of the record's view, without building the view. */
  field(record: R, name: string): unknown;
  /** The API record of a model record. */
  view(record: R): V;
}

/** The version of a list's records: their owner and its write count (see IndexedListSource.listVersion). */
export interface ListVersion {
  readonly owner: object;
  readonly version: number;
}

/**
 * What a list handler returns instead of an array when its records are held in maintained sorted
 * indexes: the list query then reads the page by position (default order, or a sort field with an
 * index) and scans linearly when filters apply, instead of building, sorting and slicing every
 * record per request.
 */
export class IndexedList<R, V> {
  constructor(readonly source: IndexedListSource<R, V>) {}

  /**
   * Every record of the list as API records, in base order (the plain-array form of the list, the
   * reference's input): from the owner's plain store when it has one (`plainRecords`), else the base index.
   */
  toArray(): V[] {
    const source = this.source;
    const { where, view } = source;
    const out: V[] = [];
    for (const r of source.plainRecords ? source.plainRecords() : source.base) if (!where || where(r)) out.push(view.call(source, r));
    return out;
  }
}
