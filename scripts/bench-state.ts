/**
 * Cost of durable state: writes per second and latency of `mqsim serve --state FILE` (every write
 * answered only once its journal record is fsynced, group commit) against the same run without
 * --state (in memory only), with 1 client and with 32 concurrent clients.
 *
 *   npm run bench:state -- [--seconds 5] [--port 62100] [--dir /tmp]
 *
 * Each variant is a fresh `mqsim serve --workload none --nodes 1` child process on --port; the load
 * is tenant creates over real HTTP (keep-alive connections, one per client), each a model write. The
 * admin rate limit (ClusterLimit.max_admin_http_uri_rate, 50 per second per path by default) is
 * lifted first with config/set (0 = no limit), in both variants. The goal: with 32 clients the state
 * run keeps at least half the in-memory rate (that is what group commit is for). --dir names where
 * the state file goes (its disk is what is measured).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argNumber, argText } from './bench/script-args.ts';
import { runLoad, type LoadResult } from './bench/http-load.ts';
import { startServe, type ServedProcess } from './cli/testing/serve-process.ts';

const seconds = argNumber('seconds', 5, { positive: true });
const port = argNumber('port', 62100, { positive: true });
const dir = mkdtempSync(join(argText('dir', tmpdir()), 'mqsim-bench-state-'));
const CLIENTS = [1, 32] as const;

async function liftRateLimit(s: ServedProcess): Promise<void> {
  const res = await fetch(`${s.url}/api/cluster/config/set`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ config_type: 'ClusterLimit', config: JSON.stringify({ max_admin_http_uri_rate: 0 }) }),
  });
  const answer = (await res.json()) as { code: number };
  if (answer.code !== 0) throw new Error(`config/set refused: ${JSON.stringify(answer)}`);
}

/** One fresh serve process per measure, so the journal's summary (records per fsync) is that measure's. */
async function measure(variant: 'memory' | 'state', clients: number): Promise<LoadResult & { journal?: string }> {
  const file = join(dir, `bench-${clients}.state`);
  const s = await startServe([
    '--port',
    String(port),
    '--workload',
    'none',
    '--nodes',
    '1',
    ...(variant === 'state' ? ['--state', file] : []),
  ]);
  let r: LoadResult;
  try {
    await liftRateLimit(s);
    r = await runLoad({
      url: s.url,
      method: 'POST',
      path: '/api/cluster/tenant/create',
      body: (n) => ({ tenant_name: `bench-${variant}-${clients}-${n}` }),
      concurrency: clients,
      seconds,
      warmUpSeconds: 1,
      ...(s.child.pid !== undefined ? { serverPid: s.child.pid } : {}),
    });
  } finally {
    s.child.kill('SIGTERM');
    await s.exit;
  }
  if (r.errors > 0) throw new Error(`${variant}, ${clients} client(s): ${r.errors} failed requests, first: ${r.firstError}`);
  const journal = /journal: (.*)/.exec(s.stderr())?.[1];
  if (variant === 'state' && !journal) process.stdout.write(`no journal summary from serve: ${s.stderr()}\n`);
  return { ...r, ...(journal ? { journal: `${journal}; file ${(statSync(file).size / 1e6).toFixed(1)} MB` } : {}) };
}

async function main(): Promise<void> {
  process.stdout.write(
    `mqsim serve --workload none --nodes 1 on port ${port}; tenant creates over HTTP, ${seconds} s per measure after 1 s of warm-up;\n` +
      `admin rate limit lifted with config/set ClusterLimit.max_admin_http_uri_rate = 0 (no limit) in both runs; state file in ${dir}\n\n`,
  );
  try {
    const memory = new Map<number, LoadResult>();
    const state = new Map<number, LoadResult & { journal?: string }>();
    for (const clients of CLIENTS) {
      memory.set(clients, await measure('memory', clients));
      state.set(clients, await measure('state', clients));
    }
    process.stdout.write('clients  variant   writes/s   p50 ms   p99 ms   server CPU µs/write\n');
    for (const clients of CLIENTS) {
      for (const [name, r] of [
        ['memory', memory.get(clients)!],
        ['--state', state.get(clients)!],
      ] as const) {
        process.stdout.write(
          `${String(clients).padStart(7)}  ${name.padEnd(8)} ${String(r.perSecond).padStart(9)} ${r.p50Ms.toFixed(2).padStart(8)} ${r.p99Ms.toFixed(2).padStart(8)}   ${r.serverCpuUsPerRequest ?? '?'}\n`,
        );
      }
    }
    process.stdout.write('\njournal of the --state runs, as serve reports it at shutdown:\n');
    for (const clients of CLIENTS)
      process.stdout.write(`${String(clients).padStart(7)} client(s): ${state.get(clients)!.journal ?? '?'}\n`);
    process.stdout.write('\nratio --state / in memory (writes/s; goal with 32 clients: >= 0.5)\n');
    for (const clients of CLIENTS) {
      const ratio = state.get(clients)!.perSecond / memory.get(clients)!.perSecond;
      const goal = clients === 32 ? (ratio >= 0.5 ? '  (goal met)' : '  (goal NOT met)') : '';
      process.stdout.write(`${String(clients).padStart(7)} client(s): ${ratio.toFixed(2)}${goal}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
