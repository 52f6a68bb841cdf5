import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from './core/api-exchange.ts';
import { answerProblem, anyMalformedRequest, describeRequest, KEEP_PREFIX, prototypeSnapshot } from './fuzz-requests.ts';
import { InProcessSim } from './in-process-client.ts';

/**
 * Fuzzing the admin HTTP layer in-process with generated malformed requests (generators in
 * fuzz-requests.ts; `npx tsx scripts/fuzz-http.ts` runs 100 000+ of them; fuzz-sockets.test.ts sends a
 * sample over a real socket). Properties: never a 5xx, always a well-formed envelope (raw endpoints
 * excepted), nothing created beforehand is lost, and Object.prototype stays clean. FUZZ_RUNS / FUZZ_SEED
 * override the defaults.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

const KEEP_TENANTS = [0, 1, 2].map((i) => `${KEEP_PREFIX}-tenant-${i}`);
const KEEP_USERS = [0, 1, 2].map((i) => `${KEEP_PREFIX}-user-${i}`);

function expectClean(): void {
  const probe = {} as Record<string, unknown>;
  for (const k of ['polluted', 'x', 'a', 'isAdmin']) expect(probe[k], k).toBeUndefined();
}

describe('fuzzing the admin HTTP layer in-process', () => {
  it(`${RUNS} malformed requests: no 5xx, always an envelope, nothing lost, prototypes untouched`, async () => {
    const sim = new InProcessSim({ workload: 'none', nodes: 3, seed: 1 });
    for (const t of KEEP_TENANTS) expect((await sim.post('/api/cluster/tenant/create', { tenant_name: t })).json.code).toBe(0);
    for (const u of KEEP_USERS)
      expect(
        (await sim.post('/api/cluster/user/create', { tenant: KEEP_TENANTS[0], username: u, password: 'pw', is_superuser: false })).json
          .code,
      ).toBe(0);
    sim.advance(1000);
    const before = prototypeSnapshot();

    await fc.assert(
      fc.asyncProperty(anyMalformedRequest, async (req) => {
        sim.advance(25); // keep under the per-path rate limit most of the time (429 is fine, but hides the handler)
        const res: ApiResponse = await sim.app.handle(req);
        const problem = answerProblem(req, res);
        if (problem) throw new Error(`${problem}\n  request: ${describeRequest(req)}`);
      }),
      { seed: SEED, numRuns: RUNS },
    );

    expect(prototypeSnapshot()).toBe(before);
    expectClean();
    for (const t of KEEP_TENANTS) expect(sim.cluster.tenants.has(t), t).toBe(true);
    const users = await sim.get(`/api/cluster/user/list?tenant=${KEEP_TENANTS[0]}&limit=100`);
    expect(users.json.data.data.map((u: { username: string }) => u.username).sort()).toEqual(KEEP_USERS);
  }, 120_000);
});
