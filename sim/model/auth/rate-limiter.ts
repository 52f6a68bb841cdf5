/**
 * `max_admin_http_uri_rate`: at most N requests per second per request path, as a token bucket that
 * refills continuously on virtual time. The spec does not show the answer to an excess request; the
 * simulator refuses it with HTTP 429 and `Retry-After` (a decision recorded in the contract).
 */
export class PathRateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private ratePerSecond: () => number) {}

  /** Takes one token for `path`; returns 0 when admitted, else the milliseconds until one is free. */
  take(path: string, nowMs: number): number {
    const rate = this.ratePerSecond();
    if (!(rate > 0)) return 0; // 0 or absent means "no limit"
    const bucket = this.buckets.get(path) ?? { tokens: rate, at: nowMs };
    bucket.tokens = Math.min(rate, bucket.tokens + ((nowMs - bucket.at) / 1000) * rate);
    bucket.at = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(path, bucket);
      return 0;
    }
    this.buckets.set(path, bucket);
    return Math.ceil(((1 - bucket.tokens) / rate) * 1000);
  }

  /**
   * Reserves the next slot for `path` whether or not one is free now (a queue, as the real server's
   * governor `until_ready` does): returns 0 when admitted at once, else the milliseconds the request
   * must wait for its slot. Later requests queue behind the reserved ones.
   */
  reserve(path: string, nowMs: number): number {
    const rate = this.ratePerSecond();
    if (!(rate > 0)) return 0;
    const bucket = this.buckets.get(path) ?? { tokens: rate, at: nowMs };
    bucket.tokens = Math.min(rate, bucket.tokens + ((Math.max(nowMs, bucket.at) - bucket.at) / 1000) * rate);
    bucket.at = Math.max(nowMs, bucket.at);
    bucket.tokens -= 1;
    this.buckets.set(path, bucket);
    return bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens / rate) * 1000);
  }
}
