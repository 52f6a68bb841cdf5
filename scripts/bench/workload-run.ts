/**
 * One run of the demo workload at scale, in this process, from the sources under `--root` (this
 * checkout by default, or an earlier revision's extracted by before-checkout.ts): build and seed the
 * cluster, then run the virtual hours in 10-minute steps. Prints its figures as one JSON line. Run
 * by bench-workload.ts in a child process per run (so peak RSS is that run's).
 *
 *   node --import tsx scripts/bench/workload-run.ts --root DIR --clients N --virtual-hours H --seed S
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argNumber, argText } from './script-args.ts';
import { CHECKOUT_ROOT } from './before-checkout.ts';

export interface WorkloadRunFigures {
  clients: number;
  virtualHours: number;
  setupMs: number;
  runMs: number;
  /** CPU time of the process (user + system) over set-up and run: steadier than wall time on a shared machine. */
  cpuMs: number;
  events: number;
  traceEntries: number;
  series: number;
  connections: number;
  peakRssMb: number;
  peakHeapMb: number;
  traceHash: string;
}

interface ClusterLike {
  start(): unknown;
  mqtt: { demo: { setTargetSize(n: number): void }; connectionCount: number };
  engine: { advance(ms: number): number; eventsProcessed: number; trace: { length: number; hash: string } };
  monitor: { seriesCount: number };
}

const root = argText('root', CHECKOUT_ROOT);
const clients = argNumber('clients', 100_000, { positive: true });
const virtualHours = argNumber('virtual-hours', 1, { positive: true });
const seed = argText('seed', '1');

const { Cluster } = (await import(pathToFileURL(join(root, 'sim/model/cluster/cluster.ts')).href)) as {
  Cluster: new (o: { seed: string; workload: 'demo'; nodes: number }) => ClusterLike;
};
let peakHeap = 0;
const notePeak = (): void => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
};
const cpu0 = process.cpuUsage();
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
const cpu = process.cpuUsage(cpu0);
const figures: WorkloadRunFigures = {
  clients,
  virtualHours,
  setupMs: t1 - t0,
  runMs: t2 - t1,
  cpuMs: (cpu.user + cpu.system) / 1000,
  events: cluster.engine.eventsProcessed,
  traceEntries: cluster.engine.trace.length,
  series: cluster.monitor.seriesCount,
  connections: cluster.mqtt.connectionCount,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
  peakHeapMb: peakHeap / 1e6,
  traceHash: cluster.engine.trace.hash.slice(0, 16),
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
