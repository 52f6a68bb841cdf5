/**
 * Client-side budget per request path, for a server that limits each admin path on its own
 * (`max_admin_http_uri_rate`: 50 requests per second per path by default). Requests to different
 * paths never wait for each other; requests to one path wait so that no window of `windowMs` holds
 * more than `limit` of them.
 *
 * A sliding window rather than a token bucket: a bucket of capacity N refilling N per second lets 2N
 * requests into one second (a full burst, then the refill), which a server counting per second
 * window refuses; at most N in any window of a second is within both a bucket of N and a per-second
 * counter of N. The window is a little longer than a second to absorb network jitter (two requests
 * sent a second apart may arrive closer).
 *
 * A 429 answer holds the path until its `Retry-After` has passed (`hold`), for every caller at once;
 * a server announcing another limit (config get's `cluster_limit.max_admin_http_uri_rate`) sets it (`setLimit`).
 */
export class PathBudget {
  /** Send times within the last window, oldest first, per path. */
  private readonly sent = new Map<string, number[]>();
  private readonly heldUntil = new Map<string, number>();

  constructor(
    private limit: number,
    private readonly windowMs = DEFAULT_WINDOW_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  get perSecond(): number {
    return this.limit;
  }

  /** A new limit per window (0 or less: no limit). */
  setLimit(limit: number): void {
    this.limit = limit;
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
      const times = this.sent.get(path) ?? [];
      while (times.length > 0 && times[0]! <= t - this.windowMs) times.shift();
      // Checked and counted with no await between: callers waiting on one path cannot both take the last place.
      if (times.length < this.limit) {
        times.push(t);
        this.sent.set(path, times);
        return;
      }
      await this.sleep(times[times.length - this.limit]! + this.windowMs - t);
    }
  }

  /** No request to `path` before `ms` from now (a 429's Retry-After). */
  hold(path: string, ms: number): void {
    const until = this.now() + ms;
    if (until > (this.heldUntil.get(path) ?? 0)) this.heldUntil.set(path, until);
  }
}

/** A second plus a margin for requests that travel at different speeds. */
export const DEFAULT_WINDOW_MS = 1_050;

/** The spec's default `max_admin_http_uri_rate`: requests per second per admin path. */
export const SPEC_PATH_RATE = 50;

/** The per-path limit a config get answer announces (`cluster_limit.max_admin_http_uri_rate`), if any. */
export function announcedPathRate(json: unknown): number | undefined {
  const data = (json as { data?: unknown } | undefined)?.data as
    Record<string, { max_admin_http_uri_rate?: unknown } | undefined> | undefined;
  const rate = (data?.cluster_limit ?? data?.ClusterLimit)?.max_admin_http_uri_rate;
  return typeof rate === 'number' && Number.isInteger(rate) && rate > 0 ? rate : undefined;
}
