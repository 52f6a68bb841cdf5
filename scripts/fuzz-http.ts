/**
 * Long fuzz run of the admin HTTP layer (issue 7, item 1): 100 000+ generated malformed requests
 * through AdminApp.handle, with the properties of sim/admin-api/fuzz.test.ts (no 5xx, always an envelope,
 * nothing lost, prototypes untouched). Prints the count, seed, time and status histogram; on a
 * failure, the shrunk request and the replay seed/path, and exits 1.
 *
 *   npx tsx scripts/fuzz-http.ts [--runs 100000] [--seed N]
 */
import fc from 'fast-check';
import type { ApiResponse } from '../sim/admin-api/core/api-exchange.ts';
import { answerProblem, anyMalformedRequest, describeRequest, KEEP_PREFIX } from '../sim/admin-api/fuzz-requests.ts';
import { InProcessSim } from '../sim/admin-api/in-process-client.ts';
import { argNumber } from './bench/script-args.ts';

const runs = argNumber('runs', 100_000);
const seed = argNumber('seed', Date.now() % 2 ** 31);

async function main(): Promise<number> {
  const sim = new InProcessSim({ workload: 'none', nodes: 3, seed: 1 });
  const tenants = [0, 1, 2].map((i) => `${KEEP_PREFIX}-tenant-${i}`);
  const users = [0, 1, 2].map((i) => `${KEEP_PREFIX}-user-${i}`);
  for (const t of tenants) await sim.post('/api/cluster/tenant/create', { tenant_name: t });
  for (const u of users)
    await sim.post('/api/cluster/user/create', { tenant: tenants[0], username: u, password: 'pw', is_superuser: false });
  sim.advance(1000);
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

  const histogram = new Map<number, number>();
  let sent = 0;
  const started = performance.now();
  const result = await fc.check(
    fc.asyncProperty(anyMalformedRequest, async (req) => {
      sim.advance(25);
      const res: ApiResponse = await sim.app.handle(req);
      sent++;
      histogram.set(res.status, (histogram.get(res.status) ?? 0) + 1);
      const problem = answerProblem(req, res);
      if (problem) throw new Error(problem);
      if (sent % 20_000 === 0) process.stderr.write(`  ${sent} requests, ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    }),
    { seed, numRuns: runs },
  );
  const seconds = (performance.now() - started) / 1000;

  const lost = [...tenants.filter((t) => !sim.cluster.tenants.has(t))];
  const listed = (await sim.get(`/api/cluster/user/list?tenant=${tenants[0]}&limit=100`)).json?.data?.data ?? [];
  const names = new Set(listed.map((u: { username: string }) => u.username));
  lost.push(...users.filter((u) => !names.has(u)));
  const polluted =
    Object.getOwnPropertyNames(Object.prototype).sort().join(',') !== protoBefore || ({} as Record<string, unknown>).polluted !== undefined;

  console.log(
    `fuzz-http: ${sent} requests (${runs} runs asked), seed ${seed}, ${seconds.toFixed(1)} s, ${Math.round(sent / seconds)} req/s`,
  );
  console.log(
    `statuses: ${[...histogram.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  );
  let failed = false;
  if (result.failed) {
    failed = true;
    const shrunk = result.counterexample?.[0];
    console.log(
      `FAILED after ${result.numRuns} runs (${result.numShrinks} shrinks): ${(result.errorInstance as Error)?.message ?? String(result.errorInstance)}`,
    );
    if (shrunk) console.log(`  shrunk request: ${describeRequest(shrunk)}`);
    console.log(`  replay: npx tsx scripts/fuzz-http.ts --seed ${seed} (fast-check path ${result.counterexamplePath})`);
  }
  if (lost.length) {
    failed = true;
    console.log(`LOST records created before the fuzz: ${lost.join(', ')}`);
  }
  if (polluted) {
    failed = true;
    console.log('Object.prototype was polluted');
  }
  if (!failed) console.log('ok: no 5xx, every answer a well-formed envelope, nothing lost, prototypes untouched');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(2);
  },
);
