/**
 * List benchmark (issue 14): every list endpoint of the contract, each list filled with N records
 * (10,000 by default) through the model, one 100-record page (the fifth) asked for in default order,
 * sorted (descending) and filtered then sorted. In one run, the same requests go to
 *
 * - the simulator: `mqsim serve`'s server (one node, no workload, live clock) in its own process;
 * - a bare node:http server in its own process answering each request with the very bytes the
 *   simulator answered to it (recorded first; the bodies are checked identical before measuring);
 *
 * with undici at a fixed concurrency from this process, the two servers taking turns per query.
 * Prints requests per second and p99 latency of both and their ratio against the target (simulator
 * ≥ 0.7 of bare) and writes reports/bench/lists.json. A benchmark: it reports, it does not fail.
 *
 *   npm run bench:lists [-- --records 10000] [--seconds 3] [--warm-up 1] [--concurrency 16] [--lists id,id] [--quick]
 *
 * `--quick`: 300 records, 0.3 s per measurement (a smoke test of the machinery, not figures).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './bench/http-load.ts';
import {
  LIST_CASES,
  countsOf,
  recordAnswers,
  requestsOf,
  send,
  startBareServer,
  startSimServer,
  type ListRequest,
  type RecordedListAnswer,
} from './bench/list-bench.ts';
import { argNumber, argText } from './bench/script-args.ts';
import type { SpawnedTarget } from '../suites/targets/spawned-target.ts';

const quick = process.argv.includes('--quick');
const records = argNumber('records', quick ? 300 : 10_000, { positive: true });
const seconds = argNumber('seconds', quick ? 0.3 : 3, { positive: true });
const warmUpSeconds = argNumber('warm-up', quick ? 0.2 : 1, { positive: true });
const concurrency = argNumber('concurrency', 16, { positive: true });
const only = argText('lists', '');
const TARGET = 0.7;
const OUT = fileURLToPath(new URL('../reports/bench/', import.meta.url));
const log = (s: string): void => void process.stderr.write(`bench-lists: ${s}\n`);

const cases = only ? LIST_CASES.filter((c) => only.split(',').includes(c.id)) : LIST_CASES;
if (cases.length === 0) throw new Error(`bench-lists: no list endpoint among ${JSON.stringify(only)}`);
const requests: ListRequest[] = cases.flatMap(requestsOf);

interface Row {
  request: ListRequest;
  records: number;
  page: number;
  bytes: number;
  sim: LoadResult;
  bare: LoadResult;
  ratio: number;
}

const load = (url: string, r: ListRequest): Promise<LoadResult> =>
  runLoad({
    url,
    method: r.method,
    path: r.url,
    ...(r.body !== undefined ? { body: () => JSON.parse(r.body!) as unknown } : {}),
    concurrency,
    seconds,
    warmUpSeconds,
  });

const startedAt = new Date();
const loadBefore = loadavg();
const targets: SpawnedTarget[] = [];
const rows: Row[] = [];
try {
  log(`starting the simulator and filling ${cases.length} lists with ${records.toLocaleString('en-US')} records each`);
  const sim = await startSimServer(records, only ? cases.map((c) => c.id) : undefined);
  targets.push(sim);
  const recorded: RecordedListAnswer[] = await recordAnswers(sim.url, requests);
  mkdirSync(OUT, { recursive: true });
  const recordedFile = `${OUT}list-answers.json`;
  const bare = await startBareServer(recorded, recordedFile);
  targets.push(bare);
  // Same bytes: the bare server answers each request with the simulator's body for it.
  for (const [i, r] of requests.entries()) {
    const got = await send(bare.url, r);
    if (got.status !== recorded[i].status || got.body !== recorded[i].answer) throw new Error(`bare answer differs for ${r.url}`);
  }
  for (const [i, r] of requests.entries()) {
    log(`${r.id} ${r.kind}`);
    const simFigures = await load(sim.url, r);
    const bareFigures = await load(bare.url, r);
    const { total, page } = countsOf(recorded[i]);
    rows.push({
      request: r,
      records: total,
      page,
      bytes: Buffer.byteLength(recorded[i].answer),
      sim: simFigures,
      bare: bareFigures,
      ratio: Number((simFigures.perSecond / Math.max(1, bareFigures.perSecond)).toFixed(2)),
    });
  }
} finally {
  for (const t of targets) await t.stop();
}

const loadAfter = loadavg();
const met = rows.filter((r) => r.ratio >= TARGET).length;
const worst = rows.reduce((w, r) => (r.ratio < w.ratio ? r : w), rows[0]);
const fmt = (n: number): string => n.toLocaleString('en-US');
const header = `| list | query | records | sim req/s | bare req/s | ratio | sim p99 ms | bare p99 ms |`;
const table = [
  header,
  '|---|---|--:|--:|--:|--:|--:|--:|',
  ...rows.map(
    (r) =>
      `| ${r.request.id} | ${r.request.kind} | ${fmt(r.records)} | ${fmt(r.sim.perSecond)} | ${fmt(r.bare.perSecond)} | ${r.ratio.toFixed(2)} | ${r.sim.p99Ms} | ${r.bare.p99Ms} |` +
      (r.sim.errors || r.bare.errors ? ` errors: ${r.sim.errors}/${r.bare.errors} ${r.sim.firstError ?? r.bare.firstError ?? ''}` : ''),
  ),
];
const summary =
  `${met} of ${rows.length} queries at or above the target ${TARGET} (simulator req/s ÷ bare req/s); lowest ${worst.ratio.toFixed(2)} ` +
  `(${worst.request.id} ${worst.request.kind})`;
const setup =
  `${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ` +
  `load average ${loadBefore[0].toFixed(1)} before / ${loadAfter[0].toFixed(1)} after; ${fmt(records)} records per list, page ${100} records, ` +
  `${concurrency} connections, ${seconds} s per measurement after ${warmUpSeconds} s warm-up${quick ? ' (--quick: not figures)' : ''}`;
process.stdout.write(`${setup}\n\n${table.join('\n')}\n\n${summary}\n`);
writeFileSync(
  `${OUT}lists.json`,
  `${JSON.stringify({ startedAt: startedAt.toISOString(), setup, target: TARGET, met, rows, summary }, null, 2)}\n`,
);
