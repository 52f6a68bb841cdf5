import { compareValues } from './compare-values.ts';
import { IndexedList, MatchCache, type IndexedListSource, type ListVersion, type OrderedIndex } from './indexed-list.ts';
import { listFaultOn } from './list-faults.ts';
import { SortedList } from './sorted-list.ts';

/** A held record and its insertion number (the tie-break that makes every order total and stable). */
export interface IndexEntry<R> {
  record: R;
  readonly seq: number;
}

/** Reads the value of a field of a record's API view without building the view. */
export type FieldReader<R> = (record: R) => unknown;

export interface RecordIndexOptions<R> {
  /**
   * The list's base order (its order without sort_field). Absent: insertion order, as a Map iterates
   * (a record replaced under its key keeps its place; one deleted and added again goes last).
   */
  readonly order?: (a: R, b: R) => number;
  /**
   * View fields whose value differs from the record property of the same name (e.g. create_time
   * from createdAt); the others are read from the record as they are.
   */
  readonly viewFields?: Readonly<Record<string, FieldReader<R>>>;
  /**
   * Where the fields not in `viewFields` are read when the record's own properties are not the
   * view's (other names or forms): the view itself, built per read. Sort fields must then be in
   * `viewFields`, read cheaply.
   */
  readonly otherFieldsFromView?: (record: R) => object;
  /**
   * The views are functions of the records, and records change only through this index (set,
   * delete, modify): filtered queries may then keep their matches until the next write, and a list
   * response may be cached until then too (the listing's list version).
   */
  readonly viewsOfRecordsOnly?: boolean;
}

/**
 * Records under string keys (a Map's get/has/set/delete, in its iteration order) held in a sorted
 * base index, plus one sorted index per sortable field of the list, so a list page is read by
 * position (IndexedList) instead of building, sorting and slicing every record per request.
 *
 * A field's index is built the first time a query sorts by it (O(n log n) once), then kept up to
 * date on every set/delete (O(log n + block)). A record whose sort fields change in place goes
 * through `modify` (removed, changed, put back); changes made elsewhere call `invalidate`, which
 * drops the field indexes until a query needs them again.
 */
export class RecordIndex<R> {
  private readonly byKey = new Map<string, IndexEntry<R>>();
  private readonly base: SortedList<IndexEntry<R>>;
  /** Field indexes built so far, by field (`-field` for the descending ones). */
  private readonly built = new Map<string, SortedList<IndexEntry<R>>>();
  private readonly baseOrder: (a: IndexEntry<R>, b: IndexEntry<R>) => number;
  private readonly order: ((a: R, b: R) => number) | undefined;
  private readonly viewReaders: Readonly<Record<string, FieldReader<R>>>;
  private readonly otherFieldsFromView: ((record: R) => object) | undefined;
  private nextSeq = 0;
  /** Writes so far (set, delete, modify, invalidate): the listing's list version. */
  private writes = 0;
  /** Matches of filtered queries, emptied on every write; absent unless the views allow it. */
  private readonly matches: MatchCache<IndexEntry<R>> | undefined;
  /**
   * `sorted` of every IndexedList served: the index of any field the query sorts by (the list query
   * asks only for the contract's sort fields), built on first use.
   */
  private readonly sortedView: Readonly<Record<string, OrderedIndex<IndexEntry<R>>>> = new Proxy(
    {},
    { get: (_target, field) => (typeof field === 'string' ? this.sortedBy(field, 1) : undefined) },
  );
  private readonly sortedDescendingView: Readonly<Record<string, OrderedIndex<IndexEntry<R>>>> = new Proxy(
    {},
    { get: (_target, field) => (typeof field === 'string' ? this.sortedBy(field, -1) : undefined) },
  );

  constructor(options: RecordIndexOptions<R> = {}) {
    const order = options.order;
    this.order = order;
    this.baseOrder = order ? (a, b) => order(a.record, b.record) || a.seq - b.seq : (a, b) => a.seq - b.seq;
    this.base = new SortedList(this.baseOrder);
    this.viewReaders = options.viewFields ?? {};
    this.otherFieldsFromView = options.otherFieldsFromView;
    this.matches = options.viewsOfRecordsOnly ? new MatchCache() : undefined;
  }

  get size(): number {
    return this.byKey.size;
  }

  get(key: string): R | undefined {
    return this.byKey.get(key)?.record;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Adds or replaces the record under `key` (a replaced record keeps its insertion place). */
  set(key: string, record: R): void {
    this.wrote();
    const held = this.byKey.get(key);
    if (held) {
      this.modifyEntry(held, () => {
        held.record = record;
      });
      return;
    }
    const entry: IndexEntry<R> = { record, seq: this.nextSeq++ };
    this.byKey.set(key, entry);
    this.base.insert(entry);
    for (const list of this.built.values()) list.insert(entry);
  }

  /** Removes the record under `key`; false when there was none. */
  delete(key: string): boolean {
    const entry = this.byKey.get(key);
    if (!entry) return false;
    // The seeded fault delete-kept-in-filtered (list-faults.ts) keeps the matches of filtered queries.
    if (listFaultOn('delete-kept-in-filtered')) this.writes++;
    else this.wrote();
    this.byKey.delete(key);
    this.unlink(entry);
    return true;
  }

  /** Changes the record under `key` in place through `change`, keeping every index in order. */
  modify(key: string, change: (record: R) => void): void {
    const entry = this.byKey.get(key);
    if (!entry) throw new Error(`RecordIndex.modify: no record under ${JSON.stringify(key)}`);
    this.modifyEntry(entry, () => change(entry.record));
  }

  /** Sort-field values changed outside `modify`: the field indexes are rebuilt when next needed. */
  invalidate(): void {
    this.wrote();
    this.built.clear();
  }

  /**
   * Every record in insertion order, exactly as a Map of the same writes iterates (the order the
   * model's own loops had before the index, so traces stay the same); records may change or be
   * deleted while iterating, as with a Map.
   */
  *[Symbol.iterator](): IterableIterator<R> {
    for (const e of this.byKey.values()) yield e.record;
  }

  /** Calls `visit` with every record in the iterator's order: the same walk without a generator (monitor samples). */
  forEachRecord(visit: (record: R) => void): void {
    for (const e of this.byKey.values()) visit(e.record);
  }

  /** The keys in insertion order (the first is the oldest), as a Map's. */
  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  /** Every record in base order. */
  values(): R[] {
    const out: R[] = new Array(this.base.size);
    let i = 0;
    this.base.forEach((e) => {
      out[i++] = e.record;
    });
    return out;
  }

  /**
   * Every entry in base order, computed from the key map alone (insertion order, stably sorted by
   * the given order), not read from the maintained indexes: the input of the reference answer
   * (list-reference.ts), so that a fault of the indexes cannot hide in it.
   */
  plainEntries(): IndexEntry<R>[] {
    const entries = [...this.byKey.values()];
    const order = this.order;
    return order ? entries.sort((a, b) => order(a.record, b.record)) : entries;
  }

  /**
   * The list as an IndexedList for the list query: pages read by position from these indexes.
   * `where` keeps only some records (e.g. clients with a session); `fieldsFromView` overrides
   * `otherFieldsFromView` for a list showing the records through another view. `listVersion`: the owner's
   * own version of the list, when it counts the changes its records go through outside this index.
   */
  listing<V>(view: (record: R) => V, options: ListingOptions<R> = {}): IndexedList<IndexEntry<R>, V> {
    const { where, fieldsFromView, listVersion } = options;
    // Kept matches and cached responses hold for the index's own view only (another view or filter reads other fields).
    const own = this.matches && !where && !fieldsFromView;
    return new IndexedList<IndexEntry<R>, V>(
      new RecordIndexListing(this, this.base, this.sortedView, this.sortedDescendingView, view, where, fieldsFromView, {
        matches: own ? this.matches : undefined,
        listVersion: listVersion ?? (own ? { owner: this, version: this.writes } : undefined),
      }),
    );
  }

  /** The value of view field `name` of a record. */
  field(record: R, name: string, fieldsFromView = this.otherFieldsFromView): unknown {
    const read = this.viewReaders[name];
    if (read) return read(record);
    const from = fieldsFromView ? fieldsFromView(record) : record;
    return (from as Record<string, unknown>)[name];
  }

  private sortedBy(field: string, direction: 1 | -1): SortedList<IndexEntry<R>> {
    const name = direction === 1 ? field : `-${field}`;
    let list = this.built.get(name);
    if (list) return list;
    const baseOrder = this.baseOrder;
    // A stable sort of the base order by the field: the value (ascending or descending), then the base order.
    const order = (a: IndexEntry<R>, b: IndexEntry<R>): number =>
      direction * compareValues(this.field(a.record, field), this.field(b.record, field)) || baseOrder(a, b);
    list = new SortedList<IndexEntry<R>>(order);
    // Inserted in order, each lands at the end of the last block (no splicing inside blocks).
    for (const e of this.base.toArray().sort(order)) list.insert(e);
    this.built.set(name, list);
    return list;
  }

  private modifyEntry(entry: IndexEntry<R>, change: () => void): void {
    this.wrote();
    if (listFaultOn('update-keeps-old-place')) {
      // The seeded fault (list-faults.ts): the field indexes keep the record where its old value was.
      if (!this.base.delete(entry)) throw new Error('RecordIndex: the base index lost a record (its order changed in place)');
      change();
      this.base.insert(entry);
      return;
    }
    if (this.order === undefined) {
      // Insertion order (by seq, which a change cannot touch): the entry keeps its place in the base
      // index; only field indexes move it. The differential test of this file checks it against a Map.
      for (const [field, list] of this.built) if (!list.delete(entry)) this.built.delete(field);
      change();
      for (const list of this.built.values()) list.insert(entry);
      return;
    }
    this.unlink(entry);
    change();
    this.base.insert(entry);
    for (const list of this.built.values()) list.insert(entry);
  }

  /** Every write: kept matches are dropped, and the listing's list version moves (its cached responses no longer hold). */
  private wrote(): void {
    this.writes++;
    this.matches?.clear();
  }

  private unlink(entry: IndexEntry<R>): void {
    if (!this.base.delete(entry)) throw new Error('RecordIndex: the base index lost a record (its order changed in place)');
    for (const [field, list] of this.built) {
      // A sort field changed in place without modify/invalidate: drop that index rather than corrupt it.
      if (!list.delete(entry)) this.built.delete(field);
    }
  }
}

/** How a list shows a RecordIndex's records (see RecordIndex.listing). */
export interface ListingOptions<R> {
  where?: (record: R) => boolean;
  fieldsFromView?: (record: R) => object;
  listVersion?: ListVersion;
}

/**
 * The source of a RecordIndex's IndexedList, one per list request. A class rather than an object of
 * arrow functions: a list is served per request, and its methods are then shared, not made anew.
 */
class RecordIndexListing<R, V> implements IndexedListSource<IndexEntry<R>, V> {
  readonly where: ((entry: IndexEntry<R>) => boolean) | undefined;
  readonly matches: MatchCache<IndexEntry<R>> | undefined;
  readonly listVersion: ListVersion | undefined;

  constructor(
    private readonly index: RecordIndex<R>,
    readonly base: OrderedIndex<IndexEntry<R>>,
    readonly sorted: Readonly<Record<string, OrderedIndex<IndexEntry<R>>>>,
    readonly sortedDescending: Readonly<Record<string, OrderedIndex<IndexEntry<R>>>>,
    private readonly viewOfRecord: (record: R) => V,
    whereRecord: ((record: R) => boolean) | undefined,
    private readonly fieldsFromView: ((record: R) => object) | undefined,
    kept: { matches: MatchCache<IndexEntry<R>> | undefined; listVersion: ListVersion | undefined },
  ) {
    this.where = whereRecord ? (e) => whereRecord(e.record) : undefined;
    this.matches = kept.matches;
    this.listVersion = kept.listVersion;
  }

  field(entry: IndexEntry<R>, name: string): unknown {
    return this.index.field(entry.record, name, this.fieldsFromView);
  }

  plainRecords(): IndexEntry<R>[] {
    return this.index.plainEntries();
  }

  view(entry: IndexEntry<R>): V {
    return this.viewOfRecord(entry.record);
  }
}
