/**
 * Published benchmarks (issue 7): `npm run bench` measures, in one run on this machine,
 *
 * 1. HTTP: requests per second and p50/p99 latency of `mqsim serve` (the real CLI, default 3 nodes and
 *    demo workload, in its own process) on a list endpoint (GET /api/cluster/tenant/list) and a create
 *    endpoint (POST /api/cluster/tenant/create, a new tenant each time), with undici at a fixed
 *    concurrency; against two baselines under the same load:
 *    - a bare node:http server answering the very bytes recorded from mqsim (goal: mqsim ≥ 0.6 of it);
 *    - Stoplight Prism's mock server (`prism mock`) on the OpenAPI document of `mqsim openapi`
 *      (goal: mqsim ≥ 5× faster). When Prism cannot run, the reason is printed and recorded instead.
 * 2. Simulator: events per second and speed against real time of the consensus and storage
 *    benchmarks (scripts/bench-raft.ts, scripts/bench-storage.ts, imported).
 * 3. Suites: run time of the conformance suites against the in-process simulator (scripts/bench-conform.ts).
 *
 * Writes reports/bench/{http,simulator,conform,summary}.json (reports/ is not committed) and prints a
 * summary. Figures depend on the machine and its load: compare ratios measured in the same run.
 *
 *   npm run bench [-- --seconds 5] [--rounds 3] [--concurrency 32] [--parts http,simulator,conform]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { benchRaft } from './bench-raft.ts';
import { benchStorage } from './bench-storage.ts';
import { benchConform } from './bench-conform.ts';
import { runLoad, type LoadResult } from './bench/http-load.ts';
import { MQSIM_BIN, spawnPrintingUrl, spawnPrism, type SpawnedTarget } from '../suites/targets/spawned-target.ts';
import type { RecordedAnswer } from './bench/bare-server.ts';
import { MQSIM_VERSION } from '../sim/version.ts';
import { argNumber, argText } from './bench/script-args.ts';

const seconds = argNumber('seconds', 5, { positive: true });
const rounds = argNumber('rounds', 3, { positive: true });
const warmUpSeconds = argNumber('warm-up', 2, { positive: true });
const concurrency = argNumber('concurrency', 32, { positive: true });
const parts = new Set(argText('parts', 'http,simulator,conform').split(','));
const OUT = fileURLToPath(new URL('../reports/bench/', import.meta.url));
mkdirSync(OUT, { recursive: true });
const write = (name: string, data: unknown): void => writeFileSync(`${OUT}${name}.json`, `${JSON.stringify(data, null, 2)}\n`);
const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);

const LIST = { method: 'GET' as const, path: '/api/cluster/tenant/list' };
const CREATE = {
  method: 'POST' as const,
  path: '/api/cluster/tenant/create',
  body: (n: number) => ({ tenant_name: `bench-${process.pid}-${n}`, desc: 'bench' }),
};
// Prism's mock checks that a bearer token is present; mqsim lets loopback peers in without one and
// ignores the header from them, so every target gets the same header and neither verifies a token.
const HEADERS = { authorization: 'Bearer bench' };

interface EndpointFigures {
  mqsim: LoadResult;
  bare: LoadResult;
  prism: LoadResult | { unavailable: string };
  mqsimVsBare: number;
  mqsimVsPrism: number | null;
  /** Requests per second of every round, per server. */
  rounds: Record<string, number[]>;
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

/** The answer headers a client sees from mqsim, minus those Node's server adds itself. */
function replayableHeaders(h: Record<string, string>): Record<string, string> {
  const { date: _d, connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...rest } = h;
  return rest;
}

/** Median by requests per second (the run whose figures are reported whole). */
function medianRun(runs: LoadResult[]): LoadResult {
  const sorted = [...runs].sort((a, b) => a.perSecond - b.perSecond);
  return { ...sorted[Math.floor(sorted.length / 2)], errors: runs.reduce((n, r) => n + r.errors, 0) };
}

type TargetName = 'mqsim' | 'bare' | 'prism';
type Targets = { name: TargetName; target: SpawnedTarget }[];
type Runs = Record<string, Record<string, LoadResult[]>>;

/** Starts `mqsim serve` and lifts its admin API's per-path rate limit (50/s by default), or most of the load would be 429s. */
async function startMqsim(): Promise<SpawnedTarget> {
  log('starting mqsim serve (3 nodes, demo workload)');
  const mqsim = await spawnPrintingUrl(process.execPath, [MQSIM_BIN, 'serve', '--port', '0'], 'mqsim serve');
  const set = await post(mqsim.url, '/api/cluster/config/set', {
    config_type: 'ClusterLimit',
    config: JSON.stringify({ max_admin_http_uri_rate: 1_000_000_000 }),
  });
  if (set.status !== 200 || JSON.parse(set.body).code !== 0) {
    await mqsim.stop();
    throw new Error(`could not lift the rate limit: ${set.body}`);
  }
  return mqsim;
}

/** Records one answer of each endpoint from mqsim, byte for byte, for the bare baseline. */
async function recordAnswers(url: string): Promise<RecordedAnswer[]> {
  const list = await fetch(url + LIST.path);
  const listAnswer = {
    ...LIST,
    status: list.status,
    headers: replayableHeaders(Object.fromEntries(list.headers)),
    body: await list.text(),
  };
  const created = await post(url, CREATE.path, { tenant_name: 'bench-recorded', desc: 'bench' });
  return [
    listAnswer,
    { method: CREATE.method, path: CREATE.path, status: created.status, headers: replayableHeaders(created.headers), body: created.body },
  ];
}

/** Starts the Prism mock of mqsim's OpenAPI document; the reason instead when it cannot run. */
async function startPrism(targets: Targets): Promise<string | undefined> {
  const openapi = `${OUT}openapi.json`;
  execFileSync(process.execPath, [MQSIM_BIN, 'openapi', '--out', openapi], { stdio: 'ignore' });
  try {
    log('starting prism mock');
    targets.push({ name: 'prism', target: await spawnPrism(openapi) });
    return undefined;
  } catch (e) {
    const problem = (e as Error).message;
    log(`Prism could not be measured: ${problem}`);
    return problem;
  }
}

/**
 * Rounds that take turns between the servers, so a burst of load from other work on the machine
 * falls on all of them rather than on one; each figure is the median of its rounds.
 */
async function runRounds(targets: Targets, runs: Runs): Promise<void> {
  for (const [name, ep] of [
    ['list', LIST],
    ['create', CREATE],
  ] as const) {
    for (let round = 1; round <= rounds; round++) {
      for (const { name: who, target } of targets) {
        log(`round ${round}/${rounds}: ${who} ${ep.method} ${ep.path}`);
        runs[name][who].push(await runLoad({ url: target.url, ...ep, headers: HEADERS, concurrency, seconds, warmUpSeconds }));
      }
    }
  }
}

/** Each endpoint's median figures per server and mqsim's ratios against the baselines. */
function endpointFigures(runs: Runs, prismProblem: string | undefined): Record<string, EndpointFigures> {
  const results: Record<string, EndpointFigures> = {};
  for (const name of ['list', 'create']) {
    const mq = medianRun(runs[name].mqsim);
    const ba = medianRun(runs[name].bare);
    const pr = runs[name].prism.length > 0 ? medianRun(runs[name].prism) : undefined;
    results[name] = {
      mqsim: mq,
      bare: ba,
      prism: pr ?? { unavailable: prismProblem ?? 'not run' },
      mqsimVsBare: Number((mq.perSecond / ba.perSecond).toFixed(3)),
      mqsimVsPrism: pr && pr.perSecond > 0 ? Number((mq.perSecond / pr.perSecond).toFixed(2)) : null,
      rounds: Object.fromEntries(Object.entries(runs[name]).map(([who, rs]) => [who, rs.map((r) => r.perSecond)])),
    };
  }
  return results;
}

async function benchHttp(): Promise<Record<string, unknown>> {
  const targets: Targets = [];
  let recorded: RecordedAnswer[];
  let prismProblem: string | undefined;
  const runs: Runs = {
    list: { mqsim: [], bare: [], prism: [] },
    create: { mqsim: [], bare: [], prism: [] },
  };
  try {
    const mqsim = await startMqsim();
    targets.push({ name: 'mqsim', target: mqsim });
    recorded = await recordAnswers(mqsim.url);
    const recordedFile = `${OUT}recorded-answers.json`;
    writeFileSync(recordedFile, JSON.stringify(recorded));
    targets.push({
      name: 'bare',
      target: await spawnPrintingUrl(process.execPath, ['--import', 'tsx', 'scripts/bench/bare-server.ts', recordedFile], 'bare server'),
    });
    prismProblem = await startPrism(targets);
    await runRounds(targets, runs);
  } finally {
    for (const { target } of targets) await target.stop();
  }

  return {
    setup: {
      concurrency,
      seconds,
      warmUpSeconds,
      rounds,
      mqsim: 'mqsim serve --port 0 (3 nodes, demo workload, envelope A), admin rate limit lifted through POST /api/cluster/config/set',
      bare: 'node:http answering the bytes recorded from mqsim (scripts/bench/bare-server.ts)',
      prism: 'prism mock -v warn <mqsim openapi document> (@stoplight/prism-cli 5.14.2)',
      client: `undici Pool, ${concurrency} keep-alive connections, one request in flight per connection`,
      answerBytes: Object.fromEntries(recorded.map((r) => [`${r.method} ${r.path}`, Buffer.byteLength(r.body)])),
    },
    endpoints: endpointFigures(runs, prismProblem),
  };
}

function benchSimulator(): Record<string, unknown> {
  log('simulator: bench-raft (5 nodes, 60 virtual min)');
  const raft = benchRaft({ seed: '1', minutes: 60, writesPerSec: 5, check: false });
  log('simulator: bench-storage (5 nodes, 1,000 shards x 3, 60 virtual min)');
  const storage = benchStorage({ seed: '1', minutes: 60, shards: 1000, writesPerSec: 20, check: false });
  const pick = (r: typeof raft | typeof storage) => ({
    events: r.events,
    realMs: Math.round(r.realMs),
    eventsPerSec: r.eventsPerSec,
    eventsPerCpuSec: r.eventsPerCpuSec,
    speedVsRealTime: r.speedVsRealTime,
    speedVsCpuTime: r.speedVsCpuTime,
  });
  return {
    raft: { ...pick(raft), violations: raft.violations, detail: raft },
    storage: { ...pick(storage), violations: storage.violations, detail: storage },
  };
}

const startedAt = new Date().toISOString();
const summary: Record<string, unknown> = {
  startedAt,
  mqsimVersion: MQSIM_VERSION,
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
};
const lines: string[] = [];
const fmt = (r: LoadResult | { unavailable: string }): string =>
  'unavailable' in r
    ? `unavailable (${r.unavailable})`
    : `${r.perSecond.toLocaleString('en-US')} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${r.errors ? `, ${r.errors} errors (${r.firstError})` : ''}`;

if (parts.has('http')) {
  const http = await benchHttp();
  write('http', http);
  summary.http = http;
  const eps = http.endpoints as Record<string, EndpointFigures>;
  lines.push(
    `HTTP, ${concurrency} connections, median of ${rounds} rounds of ${seconds} s (each after ${warmUpSeconds} s warm-up), servers taking turns:`,
  );
  for (const [name, label] of [
    ['list', 'GET /api/cluster/tenant/list'],
    ['create', 'POST /api/cluster/tenant/create'],
  ]) {
    const e = eps[name];
    lines.push(`  ${label}`);
    lines.push(`    mqsim serve     ${fmt(e.mqsim)}`);
    lines.push(
      `    bare node:http  ${fmt(e.bare)}   → mqsim/bare ${e.mqsimVsBare} (goal ≥ 0.6: ${e.mqsimVsBare >= 0.6 ? 'met' : 'NOT met'})`,
    );
    lines.push(
      `    prism mock      ${fmt(e.prism)}${e.mqsimVsPrism !== null ? `   → mqsim/prism ${e.mqsimVsPrism}x (goal ≥ 5x: ${e.mqsimVsPrism >= 5 ? 'met' : 'NOT met'})` : ''}`,
    );
  }
}
if (parts.has('simulator')) {
  const sim = benchSimulator();
  write('simulator', sim);
  summary.simulator = sim;
  const r = sim.raft as { eventsPerSec: number; speedVsRealTime: number; realMs: number };
  const s = sim.storage as { eventsPerSec: number; speedVsRealTime: number; realMs: number };
  lines.push('Simulator (one virtual hour each, with a fault every virtual minute):');
  lines.push(
    `  consensus (bench-raft, 5 nodes, 4 groups)      ${r.eventsPerSec.toLocaleString('en-US')} events/s, ${r.speedVsRealTime.toLocaleString('en-US')}x real time (${(r.realMs / 1000).toFixed(1)} s)`,
  );
  lines.push(
    `  storage (bench-storage, 1,000 shards x 3)      ${s.eventsPerSec.toLocaleString('en-US')} events/s, ${s.speedVsRealTime.toLocaleString('en-US')}x real time (${(s.realMs / 1000).toFixed(1)} s)`,
  );
}
if (parts.has('conform')) {
  log('conformance suites against the in-process simulator');
  const conform = await benchConform(1, ['in-process']);
  write('conform', conform);
  summary.conform = conform;
  const c = conform['in-process'];
  lines.push(
    `Conformance suites, in-process simulator: ${(c.medianMs / 1000).toFixed(2)} s for ${c.checks} checks (${c.failed} failed); budget ${c.budgetMs / 1000} s`,
  );
}
summary.finishedAt = new Date().toISOString();
write('summary', summary);
process.stdout.write(
  `mqsim ${MQSIM_VERSION}, Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}); ${startedAt}\n${lines.join('\n')}\nJSON: reports/bench/{http,simulator,conform,summary}.json\n`,
);
