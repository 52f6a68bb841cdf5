import { describe, expect, it } from 'vitest';
import { runSoak } from './soak-run.ts';

/**
 * Issue 7: 200 concurrent keep-alive clients for 60 s against `mqsim serve`'s real HTTP server (in a
 * child process) make no request fail, and the server's retained heap (after full GCs) grows at most
 * 10 % between the end of a 10 s warm-up and the end. The load is listings plus create+delete pairs
 * of tenants, so the model's data ends as it started and any growth is the server's, not the data's.
 * Takes about 75 s.
 */
describe('HTTP soak', () => {
  it('200 keep-alive clients for 60 s: no errors, retained heap grows at most 10 %', async () => {
    const r = await runSoak({ clients: 200, seconds: 60, warmUpSeconds: 10 });
    const figures = `${r.requests.total} requests (${r.requests.perSecond}/s), heap ${r.memory.afterWarmUp.heapUsed} → ${r.memory.atEnd.heapUsed} (${(r.memory.heapGrowth * 100).toFixed(1)} %)`;
    expect(r.errors.samples, figures).toEqual([]);
    expect(r.errors.total).toBe(0);
    expect(r.requests.create, 'the load must have written').toBeGreaterThan(1000);
    expect(r.leftoverTenants).toBe(0);
    expect(r.memory.heapGrowth, figures).toBeLessThanOrEqual(0.1);
  }, 150_000);
});
