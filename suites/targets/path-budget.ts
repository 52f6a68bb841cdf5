/**
 * Client-side budget per request path, for a server that limits each admin path on its own
 * (`max_admin_http_uri_rate`: 50 requests per second per path by default). Requests to different
 * paths never wait for each other; requests to one path take a token from that path's bucket.
 *
 * The bucket mirrors the server's: the reference server's limiter (governor, GCRA) and the simulator
 * keep a bucket of N tokens refilled at N per second, full at the start. The client's holds a little
 * less and refills a little slower (`MARGIN`), so requests that arrive closer together than they were
 * sent still find a token: a server alone with this client never answers 429.
 *
 * A 429 holds the path until its `Retry-After` has passed (`hold`), for every caller at once, and
 * empties its bucket (the server's is empty); a server announcing another limit (config get's
 * `cluster_limit.max_admin_http_uri_rate`) sets it (`setLimit`).
 */
export class PathBudget {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly heldUntil = new Map<string, number>();

  constructor(
    private limit: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  get perSecond(): number {
    return this.limit;
  }

  /** A new limit per second (0 or less: no limit). */
  setLimit(limit: number): void {
    this.limit = limit;
  }

  private get capacity(): number {
    return Math.max(1, this.limit - MARGIN.tokens);
  }

  private get refillPerMs(): number {
    return (this.limit * MARGIN.rate) / 1000;
  }

  /** Waits until a request to `path` fits the budget and counts it as sent. */
  async take(path: string): Promise<void> {
    for (;;) {
      const t = this.now();
      const held = this.heldUntil.get(path) ?? 0;
      if (held > t) {
        await this.sleep(held - t);
        continue;
      }
      if (!(this.limit > 0)) return;
      const bucket = this.buckets.get(path) ?? { tokens: this.capacity, at: t };
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (t - bucket.at) * this.refillPerMs);
      bucket.at = t;
      this.buckets.set(path, bucket);
      // Checked and taken with no await between: callers waiting on one path cannot both take the last token.
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil((1 - bucket.tokens) / this.refillPerMs));
    }
  }

  /** No request to `path` before `ms` from now (a 429's Retry-After), and an empty bucket after. */
  hold(path: string, ms: number): void {
    const until = this.now() + ms;
    if (until > (this.heldUntil.get(path) ?? 0)) this.heldUntil.set(path, until);
    this.buckets.set(path, { tokens: 0, at: this.now() });
  }
}

/** How much below the server's bucket the client's stays: tokens fewer, and the refill rate's share. */
export const MARGIN = { tokens: 2, rate: 0.95 };

/** The spec's default `max_admin_http_uri_rate`: requests per second per admin path. */
export const SPEC_PATH_RATE = 50;

/**
 * The per-path limit a config get answer announces (`cluster_limit.max_admin_http_uri_rate`), if any;
 * 0 when it announces 0, which disables the limit (a decision of the contract).
 */
export function announcedPathRate(json: unknown): number | undefined {
  const data = (json as { data?: unknown } | undefined)?.data as
    Record<string, { max_admin_http_uri_rate?: unknown } | undefined> | undefined;
  const rate = (data?.cluster_limit ?? data?.ClusterLimit)?.max_admin_http_uri_rate;
  return typeof rate === 'number' && Number.isInteger(rate) && rate >= 0 ? rate : undefined;
}
