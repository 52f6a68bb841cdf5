import { describe, expect, it } from 'vitest';
import { announcedPathRate, MARGIN, PathBudget } from './path-budget.ts';

/**
 * A budget on a virtual clock: sleepers wake in time order, the clock jumping to each wake once every
 * caller is waiting. Returns the send times it let through.
 */
function virtualBudget(limit: number) {
  let now = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  const budget = new PathBudget(
    limit,
    () => now,
    (ms) => new Promise<void>((wake) => sleepers.push({ at: now + ms, wake })),
  );
  const sent: { path: string; at: number }[] = [];
  const one = async (path: string) => {
    await budget.take(path);
    sent.push({ path, at: now });
  };
  /** Runs the sends to completion on the virtual clock. */
  const send = async (...paths: string[]) => {
    let done = false;
    const all = Promise.all(paths.map(one)).then(() => void (done = true));
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      sleepers.sort((a, b) => a.at - b.at);
      const next = sleepers.shift();
      if (!next) continue;
      now = Math.max(now, next.at);
      next.wake();
    }
    await all;
  };
  return { budget, sent, send };
}

/**
 * Would a server's bucket of `limit` tokens refilled `limit` per second, full at the start, have
 * taken every send? (The reference server's limiter and the simulator's.)
 */
function serverBucketRefuses(sent: readonly { path: string; at: number }[], path: string, limit: number): number {
  let tokens = limit;
  let at = 0;
  let refused = 0;
  for (const s of sent.filter((x) => x.path === path)) {
    tokens = Math.min(limit, tokens + ((s.at - at) / 1000) * limit);
    at = s.at;
    if (tokens >= 1) tokens -= 1;
    else refused++;
  }
  return refused;
}

describe('PathBudget', () => {
  it('keeps one path within the server bucket of its limit, and paths do not share a budget', async () => {
    const { sent, send } = virtualBudget(50);
    for (let i = 0; i < 400; i++) await send('/api/a');
    for (let i = 0; i < 40; i++) await send('/api/b');
    expect(serverBucketRefuses(sent, '/api/a', 50)).toBe(0);
    // A burst of the bucket, then the refill rate: 400 requests take about (400 − 48) / 47.5 s.
    const last = sent.filter((s) => s.path === '/api/a').at(-1)!.at;
    expect(last).toBeGreaterThan(((400 - 50) / 50) * 1000);
    expect(last).toBeLessThan(((400 - 50 + MARGIN.tokens) / (50 * MARGIN.rate)) * 1000 + 50);
    // /api/b's requests went at once, although /api/a had used its budget.
    expect(new Set(sent.filter((s) => s.path === '/api/b').map((s) => s.at)).size).toBe(1);
  });

  it('keeps concurrent callers of one path within the limit', async () => {
    const { sent, send } = virtualBudget(10);
    await send(...Array.from({ length: 60 }, () => '/api/a'));
    expect(sent).toHaveLength(60);
    expect(serverBucketRefuses(sent, '/api/a', 10)).toBe(0);
    // Without the budget the same burst would have been refused 50 times.
    expect(
      serverBucketRefuses(
        sent.map((s) => ({ ...s, at: 0 })),
        '/api/a',
        10,
      ),
    ).toBe(50);
  });

  it('holds a path for a Retry-After, for every caller, and leaves the others alone', async () => {
    const { budget, sent, send } = virtualBudget(50);
    budget.hold('/api/a', 2000);
    await send('/api/a', '/api/b', '/api/a');
    expect(sent.filter((s) => s.path === '/api/a').map((s) => s.at)).toEqual([2000, 2000]);
    // /api/b went at once, while /api/a was held.
    expect(sent.find((s) => s.path === '/api/b')!.at).toBe(0);
  });

  it('follows a new limit', async () => {
    const { budget, sent, send } = virtualBudget(50);
    budget.setLimit(4);
    for (let i = 0; i < 4; i++) await send('/api/a');
    expect(serverBucketRefuses(sent, '/api/a', 4)).toBe(0);
    // Two tokens (four less the margin) at once, then one per 1 / (4 × 0.95) s.
    expect(sent.map((s) => s.at)).toEqual([0, 0, 264, 527]);
  });

  it('reads the limit a config get answer announces', () => {
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: 20 } } })).toBe(20);
    expect(announcedPathRate({ code: 0, data: { ClusterLimit: { max_admin_http_uri_rate: 7 } } })).toBe(7);
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: 0 } } })).toBe(0);
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: -1 } } })).toBeUndefined();
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: '50' } } })).toBeUndefined();
    expect(announcedPathRate({ code: 0, data: null })).toBeUndefined();
  });
});
