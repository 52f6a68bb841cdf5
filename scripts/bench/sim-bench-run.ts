import type { Cluster } from '../../sim/model/cluster/cluster.ts';
import type { SeededRandom } from '../../sim/model/engine/seeded-random.ts';

/** The faults of the simulator benchmarks, one a virtual minute. */
export type MinuteFault = 'crash' | 'stop' | 'isolate' | 'lossy';

/**
 * A fault every virtual minute, each undone by the next minute's tick: a node crashed or stopped
 * (then restarted), isolated (then healed), or all links made lossy, duplicating and jittery (then
 * clean). `victim` picks the node; the kind is drawn from `kinds` with the run's seeded random.
 * Returns the number of faults applied so far.
 */
export function faultEveryMinute(cluster: Cluster, rng: SeededRandom, kinds: readonly MinuteFault[], victim: () => number): () => number {
  const { engine, nodes, network } = cluster;
  const ids = nodes.all().map((n) => n.id);
  let faults = 0;
  let undo: (() => void) | null = null;
  engine.every(60_000, 'bench.fault', () => {
    if (undo) {
      undo();
      undo = null;
      return;
    }
    faults++;
    const node = victim();
    switch (kinds[rng.int(0, kinds.length - 1)]) {
      case 'crash':
        nodes.crash(node);
        undo = () => nodes.restart(node);
        break;
      case 'stop':
        nodes.stop(node);
        undo = () => nodes.restart(node);
        break;
      case 'isolate':
        network.isolate(node, ids);
        undo = () => network.heal();
        break;
      case 'lossy':
        network.configureAll({ loss: 0.05, duplicate: 0.05, jitterMs: 20 });
        undo = () => network.heal();
    }
  });
  return () => faults;
}

export interface MeasuredRun {
  events: number;
  realMs: number;
  /** CPU time of this process: the figure to compare when the machine is shared with other work. */
  cpuMs: number;
  /** With `check`: the violations that stopped the run. */
  invariantViolated?: unknown;
}

class StopRun extends Error {}

/**
 * Runs `minutes` of virtual time and measures it. With `check`, every registered invariant checker
 * runs after every event and the run stops at the first violation.
 */
export function runMeasured(cluster: Cluster, minutes: number, check: boolean): MeasuredRun {
  const { engine } = cluster;
  const eventsBefore = engine.eventsProcessed;
  const end = cluster.now() + minutes * 60_000;
  let checked = 0;
  let invariantViolated: unknown;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  if (check) {
    engine.onEvent = () => {
      const violations = cluster.invariants.checkAll(cluster.now(), ++checked);
      if (violations.length > 0) {
        invariantViolated = violations;
        throw new StopRun();
      }
    };
  }
  try {
    engine.runUntil(end);
  } catch (e) {
    if (!(e instanceof StopRun)) throw e;
  } finally {
    engine.onEvent = null;
  }
  const realMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const events = check ? checked : engine.eventsProcessed - eventsBefore;
  return { events, realMs, cpuMs: (cpu.user + cpu.system) / 1000, ...(invariantViolated ? { invariantViolated } : {}) };
}

/** Throughput and speed of a measured run. */
export interface SpeedFigures {
  events: number;
  realMs: number;
  cpuMs: number;
  eventsPerSec: number;
  eventsPerCpuSec: number;
  /** Virtual time simulated per unit of real (and CPU) time. */
  speedVsRealTime: number;
  speedVsCpuTime: number;
}

export function speedFigures(minutes: number, run: MeasuredRun): SpeedFigures {
  const { events, realMs, cpuMs } = run;
  return {
    events,
    realMs,
    cpuMs,
    eventsPerSec: Math.round(events / (realMs / 1000)),
    eventsPerCpuSec: Math.round(events / (cpuMs / 1000)),
    speedVsRealTime: Math.round((minutes * 60_000) / realMs),
    speedVsCpuTime: Math.round((minutes * 60_000) / cpuMs),
  };
}
