/**
 * Benchmark of the consensus part alone: a 5-node cluster with the default consensus groups (meta,
 * mqtt, offset, data) runs one virtual hour on the simulated network, with a fault every virtual
 * minute (crash or graceful stop of a group leader, then restart; a partition, then heal; lossy,
 * duplicating, reordering links, then clean) and a light write load. Prints simulated events per
 * second, speed against real time and memory.
 *
 *   npx tsx scripts/bench-raft.ts [--seed 1] [--minutes 60] [--writes-per-sec 5] [--check]
 *
 * `--check` runs every invariant checker after every event (slower) and fails on a violation.
 */
import { pathToFileURL } from 'node:url';
import { Cluster } from '../sim/model/cluster/cluster.ts';
import { faultEveryMinute, runMeasured, speedFigures, type SpeedFigures } from './bench/sim-bench-run.ts';
import { argNumber, argText } from './bench/script-args.ts';

export interface RaftBenchOptions {
  seed: string;
  minutes: number;
  writesPerSec: number;
  /** Run every invariant checker after every event; stops at the first violation. */
  check: boolean;
}

export interface RaftBenchResult extends SpeedFigures {
  options: RaftBenchOptions;
  groups: string[];
  writes: number;
  faults: number;
  terms: string;
  network: unknown;
  memory: { heapUsed: number; heapDelta: number; rss: number };
  /** Consensus violations seen (raft.violations) and, with `check`, the first invariant violated. */
  violations: unknown;
  invariantViolated?: unknown;
}

/** One benchmark run (importable: `npm run bench` calls it); the CLI below prints it. */
export function benchRaft({ seed, minutes, writesPerSec, check }: RaftBenchOptions): RaftBenchResult {
  const cluster = new Cluster({ seed, nodes: 5, workload: 'none' }).start();
  const { engine, network, nodes, raft } = cluster;
  const ids = nodes.all().map((n) => n.id);
  const rng = engine.random.fork('bench-raft');
  const groups = raft.names();
  let writes = 0;

  // A light write load: proposals to a random group's leader (not awaited), as model parts make them.
  if (writesPerSec > 0) {
    engine.every(Math.max(1, Math.round(1000 / writesPerSec)), 'bench.write', () => {
      if (raft.tryWrite(rng.pick(groups), 'bench.write')) writes++;
    });
  }

  // A fault every virtual minute (on a random group's leader), each undone by the next.
  const faults = faultEveryMinute(
    cluster,
    rng,
    ['crash', 'stop', 'isolate', 'lossy'],
    () => raft.get(rng.pick(groups))!.leaderId ?? rng.pick(ids),
  );

  const heapBefore = process.memoryUsage().heapUsed;
  const run = runMeasured(cluster, minutes, check);
  const { invariantViolated } = run;
  const mem = process.memoryUsage();

  return {
    options: { seed, minutes, writesPerSec, check },
    groups,
    ...speedFigures(minutes, run),
    writes,
    faults: faults(),
    terms: raft
      .groups()
      .map((g) => `${g.name}=${g.term}`)
      .join(' '),
    network: network.snapshotStats(),
    memory: { heapUsed: mem.heapUsed, heapDelta: mem.heapUsed - heapBefore, rss: mem.rss },
    violations: raft.violations.all(),
    ...(invariantViolated ? { invariantViolated } : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = benchRaft({
    seed: argText('seed', '1'),
    minutes: argNumber('minutes', 60, { positive: true }),
    writesPerSec: argNumber('writes-per-sec', 5),
    check: process.argv.includes('--check'),
  });
  const { seed, minutes, check } = r.options;
  if (r.invariantViolated) {
    console.error('invariant violated:', r.invariantViolated);
    process.exit(1);
  }
  console.log(
    `bench-raft: 5 nodes, groups ${r.groups.join(', ')}, ${minutes} virtual min, seed ${seed}${check ? ', invariants checked after every event' : ''}`,
  );
  console.log(`  events           ${r.events.toLocaleString('en-US')} in ${(r.realMs / 1000).toFixed(2)} s real`);
  console.log(
    `  events/s         ${r.eventsPerSec.toLocaleString('en-US')} (per CPU second: ${r.eventsPerCpuSec.toLocaleString('en-US')})`,
  );
  console.log(
    `  speed            ${r.speedVsRealTime.toLocaleString('en-US')}x real time (per CPU time: ${r.speedVsCpuTime.toLocaleString('en-US')}x)`,
  );
  console.log(`  writes proposed  ${r.writes}; faults ${r.faults}; terms ${r.terms}`);
  console.log(`  network          ${JSON.stringify(r.network)}`);
  console.log(
    `  memory           heap ${Math.round(r.memory.heapUsed / 1e6)} MB (+${Math.round(r.memory.heapDelta / 1e6)} MB), rss ${Math.round(r.memory.rss / 1e6)} MB`,
  );
  console.log(`  violations       ${JSON.stringify(r.violations)}`);
}
