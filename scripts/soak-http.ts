/**
 * HTTP soak of `mqsim serve`: N keep-alive clients for S seconds (after a warm-up) against the real
 * HTTP server in a child process; prints throughput, latency, errors and the server's retained
 * memory after the warm-up and at the end (after full GCs). Exit 1 when any request failed or the
 * retained heap grew more than --max-growth (default 0.10). See scripts/soak/soak-run.ts.
 *
 *   npm run soak:http -- --clients 200 --seconds 60 [--nodes 3] [--warm-up 10] [--max-growth 0.10] [--json]
 */
import { runSoak } from './soak/soak-run.ts';
import { argNumber } from './bench/script-args.ts';

const clients = Math.round(argNumber('clients', 200, { positive: true }));
const nodes = Math.round(argNumber('nodes', 3, { positive: true }));
const seconds = argNumber('seconds', 60, { positive: true });
const warmUpSeconds = argNumber('warm-up', 10, { positive: true });
const maxGrowth = argNumber('max-growth', 0.1, { positive: true });
const mb = (b: number): string => `${(b / 1e6).toFixed(1)} MB`;
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

process.stderr.write(
  `soak-http: ${clients} keep-alive clients, ${warmUpSeconds} s warm-up + ${seconds} s measured, against mqsim serve (${nodes} nodes, workload none)\n`,
);
const r = await runSoak({ clients, nodes, seconds, warmUpSeconds, onProgress: (l) => process.stderr.write(`  ${l}\n`) });
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
else {
  console.log(
    `requests      ${r.requests.total} (list ${r.requests.list}, create ${r.requests.create}, delete ${r.requests.delete}); ${r.requests.perSecond} req/s while measured`,
  );
  console.log(`latency       p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`);
  console.log(`errors        ${r.errors.total}${r.errors.samples.length ? `: ${r.errors.samples.join(' | ')}` : ''}`);
  console.log(
    `heap (GC'd)   ${mb(r.memory.afterWarmUp.heapUsed)} after warm-up → ${mb(r.memory.atEnd.heapUsed)} at end: ${pct(r.memory.heapGrowth)} (limit ${pct(maxGrowth)})`,
  );
  console.log(
    `rss           ${mb(r.memory.afterWarmUp.rss)} → ${mb(r.memory.atEnd.rss)}: ${pct(r.memory.rssGrowth)} (reported, not judged)`,
  );
  console.log(`left-over     ${r.leftoverTenants} soak tenants (every create was deleted again)`);
}
const ok = r.errors.total === 0 && r.memory.heapGrowth <= maxGrowth && r.leftoverTenants === 0;
if (!ok) process.stderr.write('soak-http: FAILED\n');
process.exitCode = ok ? 0 : 1;
