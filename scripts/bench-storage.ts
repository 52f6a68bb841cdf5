/**
 * Benchmark of the storage engine with real replication: a 5-node cluster (default consensus groups)
 * with 1,000 shards of 3 replicas runs one virtual hour under a light seeded produce load, with a
 * fault every virtual minute (crash, graceful stop or isolation of a node, undone a minute later).
 * Prints simulated events per second, speed against real time and peak memory.
 *
 *   npx tsx scripts/bench-storage.ts [--seed 1] [--minutes 60] [--shards 1000] [--writes-per-sec 20] [--check]
 *
 * `--check` runs every registered invariant checker (storage and Raft) after every event and fails
 * on a violation.
 */
import { pathToFileURL } from 'node:url';
import { OperationError } from '../sim/model/errors/operation-error.ts';
import { Cluster } from '../sim/model/cluster/cluster.ts';
import { defaultShardConfig } from '../sim/model/storage/storage-engine.ts';
import { faultEveryMinute, runMeasured, speedFigures, type SpeedFigures } from './bench/sim-bench-run.ts';
import { argNumber, argText } from './bench/script-args.ts';

export interface StorageBenchOptions {
  seed: string;
  minutes: number;
  shards: number;
  writesPerSec: number;
  /** Run every invariant checker after every event; stops at the first violation. */
  check: boolean;
}

export interface StorageBenchResult extends SpeedFigures {
  options: StorageBenchOptions;
  groups: string[];
  setupMs: number;
  written: number;
  refused: number;
  faults: number;
  fetches: number;
  segments: { live: number; isrFull: number; unavailable: number };
  network: unknown;
  memory: { peakRss: number; peakHeap: number };
  violations: unknown;
  invariantViolated?: unknown;
}

/** One benchmark run (importable: `npm run bench` calls it); the CLI below prints it. */
export function benchStorage({ seed, minutes, shards: shardCount, writesPerSec, check }: StorageBenchOptions): StorageBenchResult {
  const setupStarted = performance.now();
  const cluster = new Cluster({ seed, nodes: 5, workload: 'none' }).start();
  const { engine, network, nodes, storage } = cluster;
  const ids = nodes.all().map((n) => n.id);
  const rng = engine.random.fork('bench-storage');

  // Consensus groups elect their leaders first; shard creation writes to the data group.
  engine.advance(2_000);
  const names: string[] = [];
  for (let i = 0; i < shardCount; i++) {
    const name = `bench-${i}`;
    for (let attempt = 0; ; attempt++) {
      try {
        storage.createShard({ shard_name: name, config: { ...defaultShardConfig(3, 'EngineSegment'), max_segment_size: 64 * 1024 } });
        break;
      } catch (e) {
        if (!(e instanceof OperationError) || attempt > 50) throw e;
        engine.advance(100);
      }
    }
    names.push(name);
  }
  const setupMs = performance.now() - setupStarted;

  // A light seeded produce load over random shards; refusals (no live leader) are counted.
  let written = 0;
  let refused = 0;
  const payload = 'x'.repeat(100);
  engine.every(Math.max(1, Math.round(1000 / writesPerSec)), 'bench.produce', () => {
    try {
      storage.appendToShard(rng.pick(names), { key: `k${rng.int(0, 999)}`, payload });
      written++;
    } catch (e) {
      if (!(e instanceof OperationError)) throw e;
      refused++;
    }
  });

  // A fault every virtual minute on a random node, each undone by the next minute's tick.
  const faults = faultEveryMinute(cluster, rng, ['crash', 'stop', 'isolate'], () => rng.pick(ids));

  let peakRss = 0;
  let peakHeap = 0;
  const sampleMemory = (): void => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  engine.every(60_000, 'bench.memory', sampleMemory);

  const run = runMeasured(cluster, minutes, check);
  const { invariantViolated } = run;
  sampleMemory();

  const writtenInRun = written;
  const refusedInRun = refused;
  // Not measured: the last fault was undone at the end of the hour; let replication settle.
  engine.advance(30_000);

  let isrFull = 0;
  let segments = 0;
  let unavailable = 0;
  for (const shard of storage.all()) {
    for (const seg of shard.segments) {
      segments++;
      if (seg.isr.length === seg.replicas.length) isrFull++;
      if (!seg.available) unavailable++;
    }
  }
  const fetches = storage.replication.all().reduce((n, f) => n + f.requests, 0);

  return {
    options: { seed, minutes, shards: shardCount, writesPerSec, check },
    groups: cluster.raft.names(),
    setupMs,
    ...speedFigures(minutes, run),
    written: writtenInRun,
    refused: refusedInRun,
    faults: faults(),
    fetches,
    segments: { live: segments, isrFull, unavailable },
    network: network.snapshotStats(),
    memory: { peakRss, peakHeap },
    violations: storage.invariants.violations(),
    ...(invariantViolated ? { invariantViolated } : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = benchStorage({
    seed: argText('seed', '1'),
    minutes: argNumber('minutes', 60, { positive: true }),
    shards: argNumber('shards', 1000, { positive: true }),
    writesPerSec: argNumber('writes-per-sec', 20),
    check: process.argv.includes('--check'),
  });
  const { seed, minutes, shards, check } = r.options;
  if (r.invariantViolated) {
    console.error('invariant violated:', r.invariantViolated);
    process.exit(1);
  }
  console.log(
    `bench-storage: 5 nodes, groups ${r.groups.join(', ')}, ${shards} shards x 3 replicas, ${minutes} virtual min, seed ${seed}${check ? ', invariants checked after every event' : ''}`,
  );
  console.log(`  setup            ${(r.setupMs / 1000).toFixed(2)} s real (cluster start and shard creation)`);
  console.log(`  events           ${r.events.toLocaleString('en-US')} in ${(r.realMs / 1000).toFixed(2)} s real`);
  console.log(
    `  events/s         ${r.eventsPerSec.toLocaleString('en-US')} (per CPU second: ${r.eventsPerCpuSec.toLocaleString('en-US')})`,
  );
  console.log(
    `  speed            ${r.speedVsRealTime.toLocaleString('en-US')}x real time (per CPU time: ${r.speedVsCpuTime.toLocaleString('en-US')}x)`,
  );
  console.log(
    `  writes           ${r.written.toLocaleString('en-US')} appended, ${r.refused.toLocaleString('en-US')} refused; faults ${r.faults}; fetch requests ${r.fetches.toLocaleString('en-US')}`,
  );
  console.log(
    `  segments         ${r.segments.live} live; 30 s after the run: ${r.segments.isrFull} with a full ISR, ${r.segments.unavailable} unavailable`,
  );
  console.log(`  network          ${JSON.stringify(r.network)}`);
  console.log(`  memory           peak rss ${Math.round(r.memory.peakRss / 1e6)} MB, peak heap ${Math.round(r.memory.peakHeap / 1e6)} MB`);
  console.log(`  violations       ${JSON.stringify(r.violations)}`);
}
