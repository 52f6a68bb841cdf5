import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import { runLoad } from './http-load.ts';
import { LIST_CASES, countsOf, recordAnswers, requestsOf, send, startBareServer, startSimServer } from './list-bench.ts';

describe('list benchmark machinery (npm run bench:lists)', () => {
  it('has a case for every list endpoint of the contract', () => {
    const lists = CONTRACT.filter((e) => e.list).map((e) => e.id);
    expect(LIST_CASES.map((c) => c.id).sort()).toEqual([...lists].sort());
  });

  it('serves the same bytes from the simulator and the bare server, and measures both', async () => {
    const id = 'cluster.tenant.list';
    const requests = requestsOf(LIST_CASES.find((c) => c.id === id)!);
    const sim = await startSimServer(600, [id]);
    let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
    try {
      const recorded = await recordAnswers(sim.url, requests);
      // 600 tenants and the default one; the fifth page of 100 is full in default order.
      expect(countsOf(recorded[0])).toEqual({ total: 601, page: 100 });
      const file = join(mkdtempSync(join(tmpdir(), 'bench-lists-')), 'answers.json');
      bare = await startBareServer(recorded, file);
      for (const [i, r] of requests.entries()) {
        const fromSim = await send(sim.url, r);
        const fromBare = await send(bare.url, r);
        expect(fromBare.body).toBe(recorded[i].answer);
        expect(fromSim.body).toBe(fromBare.body);
        expect(fromBare.status).toBe(fromSim.status);
      }
      for (const url of [sim.url, bare.url]) {
        const r = await runLoad({ url, method: 'GET', path: requests[1].url, concurrency: 2, seconds: 0.2, warmUpSeconds: 0.1 });
        expect(r.errors).toBe(0);
        expect(r.requests).toBeGreaterThan(0);
      }
    } finally {
      await bare?.stop();
      await sim.stop();
    }
  }, 60_000);
});
