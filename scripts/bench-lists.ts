/**
 * List benchmark (issue 14): every list endpoint of the contract, each list filled with N records
 * (10,000 by default) through the model, one 100-record page (the fifth) asked for in default order,
 * sorted (descending) and filtered then sorted. In one run, the same requests go to
 *
 * - the simulator: `mqsim serve`'s server (one node, no workload, live clock) in its own process;
 * - a bare node:http server in its own process answering each request with the very bytes the
 *   simulator answered to it (recorded first; the bodies are checked identical before measuring);
 *
 * with undici at a fixed concurrency from this process, the two servers taking turns per query. Each
 * query is asked again and again, as a dashboard polls a page: the simulator sends the response it cached
 * for it (sim/admin-api/response-cache.ts) until a write changes the list. `--computed` switches the response
 * cache off (MQSIM_RESPONSE_CACHE=0), so every answer is paged, serialized and encoded afresh: what the first
 * read after a write costs.
 * Prints requests per second and p99 latency of both and their ratio against the target (simulator
 * ≥ 0.7 of bare) and writes reports/bench/lists.json. A benchmark: it reports, it does not fail.
 *
 *   npm run bench:lists [-- --records 10000] [--rounds 3] [--seconds 1] [--warm-up 0.5] [--concurrency 16] [--lists id,id] [--computed] [--quick]
 *
 * Per query, `rounds` rounds, each measuring the simulator then the bare server (`seconds` after
 * `warm-up`), so a burst of load from elsewhere on a small machine falls on one round rather than on
 * one server: the ratio is the median of the rounds' ratios, req/s and p99 the medians of the rounds.
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
import { median } from './bench/median.ts';

const quick = process.argv.includes('--quick');
const records = argNumber('records', quick ? 300 : 10_000, { positive: true });
const seconds = argNumber('seconds', quick ? 0.3 : 1, { positive: true });
const warmUpSeconds = argNumber('warm-up', quick ? 0.2 : 0.5, { positive: true });
const rounds = argNumber('rounds', quick ? 1 : 3, { positive: true });
const concurrency = argNumber('concurrency', 16, { positive: true });
const only = argText('lists', '');
const computed = process.argv.includes('--computed');
// The simulator's process inherits the environment: off there too.
if (computed) process.env.MQSIM_RESPONSE_CACHE = '0';
const TARGET = 0.7;
const OUT = fileURLToPath(new URL('../reports/bench/', import.meta.url));
const log = (s: string): void => void process.stderr.write(`bench-lists: ${s}\n`);

const cases = only ? LIST_CASES.filter((c) => only.split(',').includes(c.id)) : LIST_CASES;
if (cases.length === 0) throw new Error(`bench-lists: no list endpoint among ${JSON.stringify(only)}`);
const requests: ListRequest[] = cases.flatMap(requestsOf);

/** Medians over the rounds; the server's CPU time per request when it could be read. */
interface Figures {
  perSecond: number;
  p99Ms: number;
  cpuUsPerRequest?: number;
  errors: number;
  firstError?: string;
}

interface Row {
  request: ListRequest;
  records: number;
  page: number;
  bytes: number;
  /** Medians over the rounds. */
  sim: Figures;
  bare: Figures;
  /** Bare CPU time per request ÷ the simulator's (medians), when both were read. */
  cpuRatio?: number;
  /** Median of the rounds' ratios. */
  ratio: number;
  /** Each round's simulator ÷ bare. */
  roundRatios: number[];
}

const ratioOf = (sim: number, bare: number): number => Number((sim / Math.max(1, bare)).toFixed(2));
const summarize = (runs: LoadResult[]): Figures => {
  const firstError = runs.find((r) => r.firstError)?.firstError;
  const cpu = runs.map((r) => r.serverCpuUsPerRequest).filter((x): x is number => x !== undefined);
  return {
    perSecond: Math.round(median(runs.map((r) => r.perSecond))),
    p99Ms: Number(median(runs.map((r) => r.p99Ms)).toFixed(2)),
    ...(cpu.length === runs.length ? { cpuUsPerRequest: Number(median(cpu).toFixed(1)) } : {}),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    ...(firstError ? { firstError } : {}),
  };
};

const load = (target: SpawnedTarget, r: ListRequest): Promise<LoadResult> =>
  runLoad({
    url: target.url,
    ...(target.child.pid !== undefined ? { serverPid: target.child.pid } : {}),
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
    const simRuns: LoadResult[] = [];
    const bareRuns: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      simRuns.push(await load(sim, r));
      bareRuns.push(await load(bare, r));
    }
    const { total, page } = countsOf(recorded[i]);
    const roundRatios = simRuns.map((s, k) => ratioOf(s.perSecond, bareRuns[k].perSecond));
    const simFigures = summarize(simRuns);
    const bareFigures = summarize(bareRuns);
    rows.push({
      request: r,
      records: total,
      page,
      bytes: Buffer.byteLength(recorded[i].answer),
      sim: simFigures,
      bare: bareFigures,
      ...(simFigures.cpuUsPerRequest && bareFigures.cpuUsPerRequest
        ? { cpuRatio: Number((bareFigures.cpuUsPerRequest / simFigures.cpuUsPerRequest).toFixed(2)) }
        : {}),
      ratio: Number(median(roundRatios).toFixed(2)),
      roundRatios,
    });
  }
} finally {
  for (const t of targets) await t.stop();
}

const loadAfter = loadavg();
const met = rows.filter((r) => r.ratio >= TARGET).length;
const worst = rows.reduce((w, r) => (r.ratio < w.ratio ? r : w), rows[0]);
const fmt = (n: number): string => n.toLocaleString('en-US');
const header = `| list | query | records | sim req/s | bare req/s | ratio | rounds | sim p99 ms | bare p99 ms | sim CPU µs/req | bare CPU µs/req | CPU ratio |`;
const table = [
  header,
  '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ...rows.map(
    (r) =>
      `| ${r.request.id} | ${r.request.kind} | ${fmt(r.records)} | ${fmt(r.sim.perSecond)} | ${fmt(r.bare.perSecond)} | ${r.ratio.toFixed(2)} | ${r.roundRatios.map((x) => x.toFixed(2)).join(' ')} | ${r.sim.p99Ms} | ${r.bare.p99Ms} | ${r.sim.cpuUsPerRequest ?? '–'} | ${r.bare.cpuUsPerRequest ?? '–'} | ${r.cpuRatio?.toFixed(2) ?? '–'} |` +
      (r.sim.errors || r.bare.errors ? ` errors: ${r.sim.errors}/${r.bare.errors} ${r.sim.firstError ?? r.bare.firstError ?? ''}` : ''),
  ),
];
const cpuRows = rows.filter((r) => r.cpuRatio !== undefined);
const cpuMet = cpuRows.filter((r) => r.cpuRatio! >= TARGET).length;
const summary =
  `${met} of ${rows.length} queries at or above the target ${TARGET} (simulator req/s ÷ bare req/s, median of the rounds); lowest ${worst.ratio.toFixed(2)} ` +
  `(${worst.request.id} ${worst.request.kind})` +
  (cpuRows.length > 0
    ? `\n${cpuMet} of ${cpuRows.length} at or above it by server CPU time per request (bare ÷ simulator; steadier than req/s where the host steals CPU time); ` +
      `median CPU ratio ${median(cpuRows.map((r) => r.cpuRatio!)).toFixed(2)}`
    : '');
const setup =
  `${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ` +
  `load average ${loadBefore[0].toFixed(1)} before / ${loadAfter[0].toFixed(1)} after; ${fmt(records)} records per list, page ${100} records, ` +
  `${concurrency} connections, median of ${rounds} rounds of ${seconds} s per server after ${warmUpSeconds} s warm-up, ` +
  `${computed ? 'response cache off (--computed: every answer computed afresh)' : 'response cache on'}${quick ? ' (--quick: not figures)' : ''}`;
process.stdout.write(`${setup}\n\n${table.join('\n')}\n\n${summary}\n`);
writeFileSync(
  `${OUT}${computed ? 'lists-computed' : 'lists'}.json`,
  `${JSON.stringify({ startedAt: startedAt.toISOString(), setup, target: TARGET, met, cpuMet, rows, summary }, null, 2)}\n`,
);
