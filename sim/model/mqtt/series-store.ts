/** Rows per chunk of storage: chunks are added as rows are needed, never copied or grown. */
const CHUNK_BITS = 12;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;

/** The typed arrays of CHUNK_ROWS rows. */
interface Chunk {
  /** Point dates, as Unix seconds minus the store's `dateBase`: row i uses [i * points, (i + 1) * points). */
  dates: Int32Array;
  /**
   * Point values: series s of row i uses [(i * width + s) * points, ...). Every monitor value is a
   * whole count (a gauge of connections, topics or subscriptions, or the count within one interval),
   * far below 2^32 per minute, so 32-bit integers hold them exactly at half the memory of doubles.
   */
  values: Uint32Array;
  /** Ring position of the oldest point, and number of points, per row. */
  head: Uint16Array;
  count: Uint16Array;
  /** Previous cumulative total per series, and the sample that last saw the row's counters (-1: never). */
  previous: Float64Array;
  seenAt: Int32Array;
  /** Sum of the sources of each series in the sample `accAt` (see `accumulate`). */
  acc: Float64Array;
  accAt: Int32Array;
  used: Uint8Array;
}

/**
 * Compact storage of monitor series: rings of the last `points` points in typed arrays, allocated in
 * chunks of 4,096 rows, so a row of two series costs about 800 bytes and no object per
 * point. Series come in rows of `width` series sampled together (a counter pair such as
 * success/failure of one subscription): a row's series share their dates. Per row it also keeps, for
 * counters, the previous cumulative total of each series and the sample in which it was last seen,
 * and an accumulator for totals summed over several sources in one sample.
 */
export class SeriesStore {
  private readonly chunks: Chunk[] = [];
  private rows = 0;
  private live = 0;
  private readonly free: number[] = [];
  /** The first date appended: dates are kept relative to it (exact within ±68 years of it). */
  private dateBase: number | undefined;

  constructor(
    readonly width: number,
    readonly points: number,
  ) {}

  /** Rows allocated and not released (each holds at least one point once appended to). */
  get liveRows(): number {
    return this.live;
  }

  /** Rows allocated so far, released ones included: iterate 0..highWater-1 with `isUsed`. */
  get highWater(): number {
    return this.rows;
  }

  private newChunk(): Chunk {
    const n = CHUNK_ROWS;
    return {
      dates: new Int32Array(n * this.points),
      values: new Uint32Array(n * this.width * this.points),
      head: new Uint16Array(n),
      count: new Uint16Array(n),
      previous: new Float64Array(n * this.width),
      seenAt: new Int32Array(n),
      acc: new Float64Array(n * this.width),
      accAt: new Int32Array(n),
      used: new Uint8Array(n),
    };
  }

  private chunk(row: number): Chunk {
    return this.chunks[row >> CHUNK_BITS];
  }

  /** A new empty row. */
  allocate(): number {
    let r = this.free.pop();
    if (r === undefined) {
      r = this.rows++;
      if ((r & CHUNK_MASK) === 0) this.chunks.push(this.newChunk());
    }
    const c = this.chunk(r);
    const i = r & CHUNK_MASK;
    c.used[i] = 1;
    c.head[i] = 0;
    c.count[i] = 0;
    c.seenAt[i] = -1;
    c.accAt[i] = -1;
    for (let s = 0; s < this.width; s++) {
      c.previous[i * this.width + s] = 0;
      c.acc[i * this.width + s] = 0;
    }
    this.live++;
    return r;
  }

  isUsed(row: number): boolean {
    return this.chunk(row).used[row & CHUNK_MASK] === 1;
  }

  release(row: number): void {
    const c = this.chunk(row);
    c.used[row & CHUNK_MASK] = 0;
    c.count[row & CHUNK_MASK] = 0;
    this.free.push(row);
    this.live--;
  }

  /** Adds `value` to series `s` of the row's total for sample `sample` (the first add of a sample starts from 0); true on that first add. */
  accumulate(row: number, s: number, sample: number, value: number): boolean {
    const c = this.chunk(row);
    const i = row & CHUNK_MASK;
    const first = c.accAt[i] !== sample;
    if (first) {
      c.accAt[i] = sample;
      for (let k = 0; k < this.width; k++) c.acc[i * this.width + k] = 0;
    }
    c.acc[i * this.width + s] += value;
    return first;
  }

  accumulated(row: number, s: number): number {
    return this.chunk(row).acc[(row & CHUNK_MASK) * this.width + s];
  }

  /**
   * The count within the interval of a cumulative counter at sample `sample`: the difference from the
   * total of the previous sample, or the whole total when the row was not seen in the previous sample
   * or the counter went down (it was reset). Remembers `total` for the next sample.
   */
  delta(row: number, s: number, sample: number, total: number): number {
    const c = this.chunk(row);
    const i = row & CHUNK_MASK;
    const j = i * this.width + s;
    const prev = c.seenAt[i] === sample - 1 ? c.previous[j] : 0;
    c.previous[j] = total;
    return total >= prev ? total - prev : total;
  }

  /** Marks the row's counters as seen in `sample` (after its `delta`s). */
  markSeen(row: number, sample: number): void {
    this.chunk(row).seenAt[row & CHUNK_MASK] = sample;
  }

  /** Appends one point to the row: `v0` to series 0, `v1` to series 1 (whole counts below 2^32); the oldest beyond `points` goes. */
  append(row: number, date: number, v0: number, v1 = 0): void {
    if (!(v0 >= 0 && v0 <= 0xffffffff && Number.isInteger(v0) && v1 >= 0 && v1 <= 0xffffffff && Number.isInteger(v1))) {
      throw new Error(`monitor values are whole counts below 2^32, got ${v0}, ${v1}`);
    }
    const c = this.chunk(row);
    const i = row & CHUNK_MASK;
    const p = this.points;
    let n = c.count[i];
    let h = c.head[i];
    if (n === p) {
      h = (h + 1) % p;
      c.head[i] = h;
      n--;
    }
    const slot = (h + n) % p;
    this.dateBase ??= date;
    c.dates[i * p + slot] = date - this.dateBase;
    c.values[i * this.width * p + slot] = v0;
    if (this.width > 1) c.values[(i * this.width + 1) * p + slot] = v1;
    c.count[i] = n + 1;
  }

  /** Drops the row's points dated at or before `oldest`; returns how many points remain. */
  expire(row: number, oldest: number): number {
    const c = this.chunk(row);
    const i = row & CHUNK_MASK;
    const p = this.points;
    let n = c.count[i];
    if (this.dateBase === undefined) return n;
    const limit = oldest - this.dateBase;
    let h = c.head[i];
    while (n > 0 && c.dates[i * p + h] <= limit) {
      h = (h + 1) % p;
      n--;
    }
    c.head[i] = h;
    c.count[i] = n;
    return n;
  }

  /** The points of series `s` of the row, oldest first. */
  read(row: number, s: number): { date: number; value: number }[] {
    const c = this.chunk(row);
    const i = row & CHUNK_MASK;
    const p = this.points;
    const n = c.count[i];
    const h = c.head[i];
    const out: { date: number; value: number }[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const slot = (h + k) % p;
      out[k] = { date: c.dates[i * p + slot] + this.dateBase!, value: c.values[(i * this.width + s) * p + slot] };
    }
    return out;
  }
}
