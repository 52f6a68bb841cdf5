import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PathBudget } from './path-budget.ts';
import { UrlTarget } from './url-target.ts';

/**
 * A strict server: per path a bucket of `limit` tokens refilled `limit` per second, full at the start
 * (the reference server's limiter, governor's GCRA, and the simulator's); a request finding no token
 * is refused with 429 and `Retry-After: 1`. It announces its limit in config get, as the spec's
 * `cluster_limit.max_admin_http_uri_rate`, and can refuse a path's first requests on purpose.
 */
class StrictServer {
  readonly arrivals: { path: string; at: number; status: number }[] = [];
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refuseFirst = new Map<string, number>();
  private server?: Server;

  constructor(private readonly limit: number) {}

  /** The first `n` requests to `path` get 429 with `Retry-After: seconds`, whatever the bucket holds. */
  refuse(path: string, n: number): void {
    this.refuseFirst.set(path, n);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const at = performance.now();
      const status = this.admit(path, at) ? 200 : 429;
      this.arrivals.push({ path, at, status });
      const data = path === '/api/cluster/config/get' ? { cluster_limit: { max_admin_http_uri_rate: this.limit } } : null;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '1' } : {}) });
      res.end(JSON.stringify(status === 200 ? { code: 0, message: 'success', data } : { code: 429, message: 'rate limited', data: null }));
    });
    // A fixed port when the machine asks for one (MQSIM_TEST_PORT), else any free one.
    await new Promise<void>((r) => this.server!.listen(Number(process.env.MQSIM_TEST_PORT ?? 0), '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  private admit(path: string, at: number): boolean {
    const forced = this.refuseFirst.get(path) ?? 0;
    if (forced > 0) {
      this.refuseFirst.set(path, forced - 1);
      return false;
    }
    const b = this.buckets.get(path) ?? { tokens: this.limit, at };
    b.tokens = Math.min(this.limit, b.tokens + ((at - b.at) / 1000) * this.limit);
    b.at = at;
    this.buckets.set(path, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function strictTarget(limit: number): Promise<{ server: StrictServer; target: UrlTarget }> {
  const server = new StrictServer(limit);
  const url = await server.start();
  open.push(server);
  const target = await UrlTarget.create({ url });
  open.push(target);
  return { server, target };
}

describe('UrlTarget against a server that limits each path', () => {
  it('never exceeds the limit the server announces on any path, with callers at once, and never waits on a free path', async () => {
    const { server, target } = await strictTarget(20);
    // The run reads config get first (as conform's capabilities do): the target takes the announced 20/s.
    await target.request({ method: 'GET', path: '/api/cluster/config/get' });
    const started = performance.now();
    const caller = (path: string, n: number) => async () => {
      for (let i = 0; i < n; i++) await target.request({ method: 'POST', path, body: { i } });
    };
    // Four callers at once: three share the hot path (60 requests), one has a path of its own.
    await Promise.all([caller('/api/hot', 20)(), caller('/api/hot', 20)(), caller('/api/hot', 20)(), caller('/api/cold', 15)()]);
    expect(server.arrivals.filter((a) => a.status === 429)).toEqual([]);
    const hot = server.arrivals.filter((a) => a.path === '/api/hot');
    expect(hot).toHaveLength(60);
    // At 20/s after a burst: 60 requests take at least (60 − 20) / 20 s.
    expect(performance.now() - started).toBeGreaterThan(1900);
    // The cold path was not held back by the hot one: its 15 requests were all in while the hot path
    // still had a third of its requests to wait for (a second at 20/s), however loaded the machine.
    const cold = server.arrivals.filter((a) => a.path === '/api/cold');
    expect(Math.max(...cold.map((a) => a.at))).toBeLessThan(hot[40]!.at);
  }, 20_000);

  it('after a 429 waits its Retry-After on that path, for every caller, and goes on elsewhere meanwhile', async () => {
    const { server, target } = await strictTarget(50);
    server.refuse('/api/held', 1);
    // The client has taken in the 429 when it holds the path: only then is a second request its to hold.
    const holds = vi.spyOn(PathBudget.prototype, 'hold');
    const held = target.request({ method: 'GET', path: '/api/held' });
    while (holds.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const refusedAt = server.arrivals.find((a) => a.status === 429)!.at;
    const again = target.request({ method: 'GET', path: '/api/held' });
    const other = await target.request({ method: 'GET', path: '/api/other' });
    expect(other.status).toBe(200);
    expect((await held).status).toBe(200);
    expect((await held).retries).toBe(1);
    expect((await again).status).toBe(200);
    const heldArrivals = server.arrivals.filter((a) => a.path === '/api/held');
    expect(heldArrivals.map((a) => a.status)).toEqual([429, 200, 200]);
    // Nothing reached the held path within the second Retry-After asked for.
    for (const a of heldArrivals.slice(1)) expect(a.at - refusedAt).toBeGreaterThanOrEqual(995);
    // The other path went on meanwhile: it arrived before the held path's retry.
    expect(server.arrivals.find((a) => a.path === '/api/other')!.at).toBeLessThan(heldArrivals[1]!.at);
    holds.mockRestore();
  }, 20_000);
});
