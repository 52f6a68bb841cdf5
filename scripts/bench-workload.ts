/**
 * Benchmark of the MQTT demo workload at scale (issue 5): N simulated clients (`mqsim serve
 * --clients N`: fleet devices over four tenants, ~70% connected, ~1.5 subscriptions each, seeded
 * publishes, reconnects and flapping) run for some virtual hours with the monitor sampling every
 * series every 60 virtual seconds. Prints wall time, simulated events per second, speed against real
 * time and peak memory, for the workload and for a baseline of fewer clients measured in the same
 * run, with the ratios between them.
 *
 *   npm run bench:workload -- [--clients 100000] [--virtual-hours 1] [--baseline-clients 10000] [--seed 1] [--heap-mb 1536]
 *
 * Each size runs in its own Node process (so peak RSS is that run's), with the V8 old-space limit
 * `--heap-mb` (the live heap of 100,000 clients is ~0.9 GB; the limit keeps V8 from letting garbage
 * pile up to twice that before collecting). Targets: 100,000 clients for one virtual hour in at most
 * 60 s of wall time and 2 GB of memory. Figures on a shared machine are noisy.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../sim/model/cluster/cluster.ts';
import { argText } from './bench/script-args.ts';

function positiveNumber(name: string, fallback: string, { integer = false, allowZero = false } = {}): number {
  const raw = argText(name, fallback);
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || (integer && !Number.isInteger(n))) {
    process.stderr.write(
      `bench-workload: --${name} must be a ${integer ? 'whole ' : ''}number${allowZero ? ' >= 0' : ' > 0'}, got ${JSON.stringify(raw)}\n`,
    );
    process.exit(2);
  }
  return n;
}

interface RunFigures {
  clients: number;
  virtualHours: number;
  setupMs: number;
  runMs: number;
  events: number;
  traceEntries: number;
  series: number;
  connections: number;
  peakRssMb: number;
  peakHeapMb: number;
  traceHash: string;
}

/** One run, in this process: build and seed the cluster, then run the virtual hours in 10-minute steps. */
function runHere(clients: number, virtualHours: number, seed: string): RunFigures {
  let peakHeap = 0;
  const notePeak = (): void => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  };
  const t0 = performance.now();
  const cluster = new Cluster({ seed, workload: 'demo', nodes: 3 });
  cluster.mqtt.demo.setTargetSize(clients);
  cluster.start();
  const t1 = performance.now();
  notePeak();
  const totalMs = virtualHours * 3_600_000;
  for (let done = 0; done < totalMs; done += 600_000) {
    cluster.engine.advance(Math.min(600_000, totalMs - done));
    notePeak();
  }
  const t2 = performance.now();
  return {
    clients,
    virtualHours,
    setupMs: t1 - t0,
    runMs: t2 - t1,
    events: cluster.engine.eventsProcessed,
    traceEntries: cluster.engine.trace.length,
    series: cluster.monitor.seriesCount,
    connections: cluster.mqtt.connectionCount,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 1e6,
    traceHash: cluster.engine.trace.hash.slice(0, 16),
  };
}

/** One run in a child process with the heap limit; its figures come back as JSON on stdout. */
function runInChild(clients: number, virtualHours: number, seed: string, heapMb: number): RunFigures {
  const script = fileURLToPath(import.meta.url);
  const res = spawnSync(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      '--import',
      'tsx',
      script,
      '--child',
      '--clients',
      String(clients),
      '--virtual-hours',
      String(virtualHours),
      '--seed',
      seed,
    ],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  if (res.status !== 0) throw new Error(`run with ${clients} clients failed (exit ${res.status}):\n${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as RunFigures;
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function describeRun(label: string, r: RunFigures): string {
  const wallS = (r.setupMs + r.runMs) / 1000;
  const speed = (r.virtualHours * 3_600_000) / r.runMs;
  return [
    `${label}: ${fmt(r.clients)} clients, ${r.virtualHours} virtual hour(s)`,
    `  wall time     ${fmt(wallS, 1)} s (setup ${fmt(r.setupMs / 1000, 1)} s + run ${fmt(r.runMs / 1000, 1)} s)`,
    `  events        ${fmt(r.events)} simulated events (${fmt(r.events / (r.runMs / 1000))}/s), ${fmt(r.traceEntries)} trace entries (${fmt(r.traceEntries / (r.runMs / 1000))}/s)`,
    `  speed         ${fmt(speed, 1)}x real time`,
    `  memory        peak RSS ${fmt(r.peakRssMb)} MB, peak heap used ${fmt(r.peakHeapMb)} MB`,
    `  model         ${fmt(r.connections)} connected at the end, ${fmt(r.series)} monitor series, trace ${r.traceHash}`,
  ].join('\n');
}

if (process.argv.includes('--child')) {
  const figures = runHere(
    positiveNumber('clients', '100000', { integer: true }),
    positiveNumber('virtual-hours', '1'),
    argText('seed', '1'),
  );
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else {
  const clients = positiveNumber('clients', '100000', { integer: true });
  const hours = positiveNumber('virtual-hours', '1');
  const baselineClients = positiveNumber('baseline-clients', '10000', { integer: true, allowZero: true });
  const heapMb = positiveNumber('heap-mb', '1536', { integer: true });
  const seed = argText('seed', '1');
  process.stdout.write(`bench-workload: seed ${seed}, heap limit ${heapMb} MB, Node ${process.version}; one process per run\n\n`);
  const baseline = baselineClients > 0 ? runInChild(baselineClients, hours, seed, heapMb) : undefined;
  if (baseline) process.stdout.write(`${describeRun('baseline', baseline)}\n\n`);
  const main = runInChild(clients, hours, seed, heapMb);
  process.stdout.write(`${describeRun('workload', main)}\n\n`);
  const wallS = (main.setupMs + main.runMs) / 1000;
  if (baseline) {
    const wallRatio = (main.setupMs + main.runMs) / (baseline.setupMs + baseline.runMs);
    process.stdout.write(
      `ratio: ${fmt(main.clients / baseline.clients, 1)}x the clients took ${fmt(wallRatio, 2)}x the wall time ` +
        `(${fmt(wallRatio / (main.clients / baseline.clients), 2)}x per client) and ${fmt(main.peakRssMb / baseline.peakRssMb, 2)}x the peak RSS\n`,
    );
  }
  const perHour = wallS / hours;
  const metTime = perHour <= 60;
  const metMemory = main.peakRssMb <= 2048;
  process.stdout.write(
    `target (100,000 clients, 1 virtual hour, <= 60 s wall, <= 2 GB): wall ${fmt(perHour, 1)} s per virtual hour ${metTime ? 'MET' : 'NOT MET'}, ` +
      `peak RSS ${fmt(main.peakRssMb)} MB ${metMemory ? 'MET' : 'NOT MET'}${main.clients < 100_000 ? ` (measured with ${fmt(main.clients)} clients)` : ''}\n`,
  );
}
