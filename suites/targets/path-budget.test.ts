import { describe, expect, it } from 'vitest';
import { announcedPathRate, PathBudget } from './path-budget.ts';

/**
 * A budget on a virtual clock: sleepers wake in time order, the clock jumping to each wake once every
 * caller is waiting. Returns the send times it let through.
 */
function virtualBudget(limit: number, windowMs = 1000) {
  let now = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  const budget = new PathBudget(
    limit,
    windowMs,
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

/** The most sends to one path inside any window of `windowMs` (a window starting at each send). */
function busiestWindow(sent: readonly { path: string; at: number }[], path: string, windowMs: number): number {
  const times = sent.filter((s) => s.path === path).map((s) => s.at);
  return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));
}

describe('PathBudget', () => {
  it('lets at most the limit into any window of one path, and paths do not share a budget', async () => {
    const { sent, send } = virtualBudget(5);
    for (let i = 0; i < 23; i++) await send('/api/a');
    for (let i = 0; i < 5; i++) await send('/api/b');
    expect(busiestWindow(sent, '/api/a', 1000)).toBe(5);
    // 23 requests at 5 per window: the last starts in the fifth window.
    expect(sent.filter((s) => s.path === '/api/a').at(-1)!.at).toBe(4000);
    // /api/b's first five went at once, although /api/a had used its budget.
    expect(sent.filter((s) => s.path === '/api/b').map((s) => s.at)).toEqual([4000, 4000, 4000, 4000, 4000]);
  });

  it('keeps concurrent callers of one path within the limit', async () => {
    const { sent, send } = virtualBudget(3);
    await send(...Array.from({ length: 10 }, () => '/api/a'));
    expect(sent).toHaveLength(10);
    expect(busiestWindow(sent, '/api/a', 1000)).toBe(3);
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
    budget.setLimit(2);
    for (let i = 0; i < 4; i++) await send('/api/a');
    expect(sent.map((s) => s.at)).toEqual([0, 0, 1000, 1000]);
  });

  it('reads the limit a config get answer announces', () => {
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: 20 } } })).toBe(20);
    expect(announcedPathRate({ code: 0, data: { ClusterLimit: { max_admin_http_uri_rate: 7 } } })).toBe(7);
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: 0 } } })).toBeUndefined();
    expect(announcedPathRate({ code: 0, data: { cluster_limit: { max_admin_http_uri_rate: '50' } } })).toBeUndefined();
    expect(announcedPathRate({ code: 0, data: null })).toBeUndefined();
  });
});
