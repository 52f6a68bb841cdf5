/**
 * Benchmark of the MQTT demo workload at scale (issue 5): N simulated clients (`mqsim serve
 * --clients N`: fleet devices over four tenants, ~70% connected, ~1.5 subscriptions each, seeded
 * publishes, reconnects and flapping) run for some virtual hours with the monitor sampling every
 * series every 60 virtual seconds. Prints wall time, simulated events per second, speed against real
 * time and peak memory, for the workload and for a baseline of fewer clients measured in the same
 * run, with the ratios between them. With `--before-rev REV` the baseline is instead the same
 * workload on the sources of revision REV (extracted beside this checkout), run in turns with this
 * checkout's for `--rounds` rounds: the ratio of the medians, wall and CPU time, and whether the
 * trace hashes are equal.
 *
 *   npm run bench:workload -- [--clients 100000] [--virtual-hours 1] [--baseline-clients 10000] [--seed 1] [--heap-mb 1536]
 *   npm run bench:workload -- --before-rev main [--rounds 3]   # the same size at an earlier revision, in turns
 *
 * Each size runs in its own Node process (so peak RSS is that run's), with the V8 old-space limit
 * `--heap-mb` (the live heap of 100,000 clients is ~0.9 GB; the limit keeps V8 from letting garbage
 * pile up to twice that before collecting). Targets: 100,000 clients for one virtual hour in at most
 * 20 s of wall time and 1 GB of memory. Figures on a shared machine are noisy: compare CPU times.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { argText } from './bench/script-args.ts';
import { CHECKOUT_ROOT, checkoutBefore } from './bench/before-checkout.ts';
import type { WorkloadRunFigures } from './bench/workload-run.ts';

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

type RunFigures = WorkloadRunFigures;

/** One run in a child process with the heap limit, from the sources under `root`; its figures come back as JSON on stdout. */
function runInChild(root: string, clients: number, virtualHours: number, seed: string, heapMb: number): RunFigures {
  const script = fileURLToPath(new URL('./bench/workload-run.ts', import.meta.url));
  const args = ['--root', root, '--clients', String(clients), '--virtual-hours', String(virtualHours), '--seed', seed];
  const res = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
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
    `  CPU time      ${r.cpuMs === undefined ? 'not measured' : `${fmt(r.cpuMs / 1000, 1)} s (user + system, set-up and run)`}`,
    `  memory        peak RSS ${fmt(r.peakRssMb)} MB, peak heap used ${fmt(r.peakHeapMb)} MB`,
    `  model         ${fmt(r.connections)} connected at the end, ${fmt(r.series)} monitor series, trace ${r.traceHash}`,
  ].join('\n');
}

const wallOf = (r: RunFigures): number => (r.setupMs + r.runMs) / 1000;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The same workload at an earlier revision, run in turns with this checkout's: the ratio of medians. */
function compareWithBefore(rev: string, rounds: number, clients: number, hours: number, seed: string, heapMb: number): RunFigures {
  const before = checkoutBefore(rev);
  try {
    const runs: { now: RunFigures[]; was: RunFigures[] } = { now: [], was: [] };
    for (let i = 0; i < rounds; i++) {
      // In turns, so a busy moment of the shared machine touches both alike.
      runs.was.push(runInChild(before.dir, clients, hours, seed, heapMb));
      runs.now.push(runInChild(CHECKOUT_ROOT, clients, hours, seed, heapMb));
      const [w, n] = [runs.was[i], runs.now[i]];
      process.stdout.write(
        `round ${i + 1}: before (${rev}) ${fmt(wallOf(w), 1)} s wall, ${fmt(w.cpuMs / 1000, 1)} s CPU, ${fmt(w.peakRssMb)} MB; ` +
          `this checkout ${fmt(wallOf(n), 1)} s wall, ${fmt(n.cpuMs / 1000, 1)} s CPU, ${fmt(n.peakRssMb)} MB; traces ${w.traceHash === n.traceHash ? 'equal' : `DIFFER (${w.traceHash} vs ${n.traceHash})`}\n`,
      );
    }
    const med = (xs: RunFigures[], f: (r: RunFigures) => number): number => median(xs.map(f));
    const last = runs.now[runs.now.length - 1];
    process.stdout.write(
      `\n${describeRun(`before (${rev}), last round`, runs.was[runs.was.length - 1])}\n\n${describeRun('this checkout, last round', last)}\n\n`,
    );
    process.stdout.write(
      `ratio this checkout / before, medians of ${rounds}: wall ${fmt(med(runs.now, wallOf) / med(runs.was, wallOf), 2)}, ` +
        `CPU ${fmt(med(runs.now, (r) => r.cpuMs) / med(runs.was, (r) => r.cpuMs), 2)}, peak RSS ${fmt(med(runs.now, (r) => r.peakRssMb) / med(runs.was, (r) => r.peakRssMb), 2)}\n`,
    );
    return {
      ...last,
      setupMs: med(runs.now, (r) => r.setupMs),
      runMs: med(runs.now, (r) => r.runMs),
      peakRssMb: med(runs.now, (r) => r.peakRssMb),
    };
  } finally {
    before.remove();
  }
}

const clients = positiveNumber('clients', '100000', { integer: true });
const hours = positiveNumber('virtual-hours', '1');
const baselineClients = positiveNumber('baseline-clients', '10000', { integer: true, allowZero: true });
const heapMb = positiveNumber('heap-mb', '1536', { integer: true });
const rounds = positiveNumber('rounds', '1', { integer: true });
const beforeRev = argText('before-rev', '');
const seed = argText('seed', '1');
process.stdout.write(`bench-workload: seed ${seed}, heap limit ${heapMb} MB, Node ${process.version}; one process per run\n\n`);
let main: RunFigures;
if (beforeRev) main = compareWithBefore(beforeRev, rounds, clients, hours, seed, heapMb);
else {
  const baseline = baselineClients > 0 ? runInChild(CHECKOUT_ROOT, baselineClients, hours, seed, heapMb) : undefined;
  if (baseline) process.stdout.write(`${describeRun('baseline', baseline)}\n\n`);
  main = runInChild(CHECKOUT_ROOT, clients, hours, seed, heapMb);
  process.stdout.write(`${describeRun('workload', main)}\n\n`);
  if (baseline) {
    const wallRatio = wallOf(main) / wallOf(baseline);
    process.stdout.write(
      `ratio: ${fmt(main.clients / baseline.clients, 1)}x the clients took ${fmt(wallRatio, 2)}x the wall time ` +
        `(${fmt(wallRatio / (main.clients / baseline.clients), 2)}x per client) and ${fmt(main.peakRssMb / baseline.peakRssMb, 2)}x the peak RSS\n`,
    );
  }
}
const perHour = wallOf(main) / hours;
process.stdout.write(
  `target (100,000 clients, 1 virtual hour, <= 20 s wall, <= 1 GB): wall ${fmt(perHour, 1)} s per virtual hour ${perHour <= 20 ? 'MET' : 'NOT MET'}, ` +
    `peak RSS ${fmt(main.peakRssMb)} MB ${main.peakRssMb <= 1024 ? 'MET' : 'NOT MET'}${main.clients < 100_000 ? ` (measured with ${fmt(main.clients)} clients)` : ''}\n`,
);
