import { OperationError } from '../../errors/operation-error.ts';
import { Cluster } from '../../cluster/cluster.ts';
import { SeededRandom } from '../../engine/seeded-random.ts';
import { defaultShardConfig } from '../storage-engine.ts';
import type { StorageBugs } from '../storage-settings.ts';
import { crashNode, restartNode, runChecked, type SeenViolation } from './storage-support.ts';

/** One fault of a schedule, at a virtual time from the start of the chaos phase. */
export type StorageFault =
  | { atMs: number; kind: 'crash' | 'restart' | 'isolate'; node: number }
  | { atMs: number; kind: 'heal' }
  | { atMs: number; kind: 'loss'; rate: number };

export interface StorageChaosOptions {
  seed: string | number;
  nodes: number;
  shards: number;
  replicas: number;
  /** Length of the chaos phase (virtual ms). */
  durationMs: number;
  faults: readonly StorageFault[];
  /** Records written per virtual second, spread over the shards. */
  writesPerSecond: number;
  bugs?: StorageBugs;
  lagTimeMs?: number;
  /** Small segments make rolls (and PreSealUp failovers) part of the run. */
  maxSegmentSize?: number;
}

export interface StorageChaosResult {
  cluster: Cluster;
  /** Storage invariants broken during the run, first of each. */
  violations: SeenViolation[];
  /** After healing, restarting every node and letting replication settle. */
  convergence: string[];
  written: number;
  refused: number;
}

/**
 * Test driver: a cluster with `shards` replicated shards, a seeded produce load and a fault
 * schedule, checked after every event; then every fault is healed and replication settles.
 */
export function runStorageChaos(o: StorageChaosOptions): StorageChaosResult {
  const cluster = new Cluster({ seed: o.seed, nodes: o.nodes }).start();
  cluster.storage.bugs = { ...o.bugs };
  if (o.lagTimeMs !== undefined) cluster.storage.settings.replica_lag_time_max_ms = o.lagTimeMs;
  const warm = runChecked(cluster, 2_000);
  const names = Array.from({ length: o.shards }, (_, i) => `chaos-${i}`);
  for (const name of names) {
    cluster.storage.createShard({
      shard_name: name,
      config: { ...defaultShardConfig(o.replicas, 'EngineSegment'), max_segment_size: o.maxSegmentSize ?? 2_000 },
    });
  }
  const rng = new SeededRandom(`${o.seed}/chaos-load`);
  const engine = cluster.engine;
  let written = 0;
  let refused = 0;
  let produce = true;
  const period = Math.max(1, Math.floor(1000 / o.writesPerSecond));
  const write = (): void => {
    if (!produce) return;
    try {
      cluster.storage.appendToShard(rng.pick(names), { payload: `w${written + refused}` });
      written++;
    } catch (e) {
      if (!(e instanceof OperationError)) throw e;
      refused++;
    }
    engine.after(period, 'test.produce', write);
  };
  engine.after(period, 'test.produce', write);
  for (const f of o.faults) engine.after(f.atMs, 'test.fault', () => applyFault(cluster, f));
  const during = runChecked(cluster, o.durationMs);
  produce = false;
  cluster.network.heal();
  for (const n of cluster.nodes.all()) if (!n.online) restartNode(cluster, n.id);
  const settle = runChecked(cluster, 3 * cluster.storage.settings.replica_lag_time_max_ms);
  const violations = [...warm, ...during, ...settle].filter((v, i, all) => all.findIndex((x) => x.name === v.name) === i);
  return { cluster, violations, convergence: cluster.storage.convergenceProblems(), written, refused };
}

function applyFault(cluster: Cluster, f: StorageFault): void {
  const node = 'node' in f ? cluster.nodes.get(f.node) : undefined;
  switch (f.kind) {
    case 'crash':
      if (node?.online) crashNode(cluster, f.node);
      return;
    case 'restart':
      if (node && !node.online) restartNode(cluster, f.node);
      return;
    case 'isolate':
      cluster.network.isolate(
        f.node,
        cluster.nodes.all().map((n) => n.id),
      );
      return;
    case 'heal':
      cluster.network.heal();
      return;
    case 'loss':
      // Lossy links also duplicate and reorder (jitter) messages.
      cluster.network.configureAll({ loss: f.rate, duplicate: f.rate / 2, jitterMs: f.rate > 0 ? 30 : 0 });
      return;
  }
}

/**
 * A seeded fault schedule: every `everyMs`, one of: crash a running node (at most `maxDown` down at
 * once), restart a crashed one, isolate a node, heal the network, or change the message loss.
 */
export function seededFaults(
  seed: string | number,
  nodes: number,
  durationMs: number,
  everyMs: number,
  maxDown = Math.max(1, Math.floor((nodes - 1) / 2)),
): StorageFault[] {
  const rng = new SeededRandom(`${seed}/faults`);
  const down = new Set<number>();
  const out: StorageFault[] = [];
  for (let at = everyMs; at < durationMs; at += everyMs) {
    const roll = rng.next();
    const up = Array.from({ length: nodes }, (_, i) => i + 1).filter((n) => !down.has(n));
    if (roll < 0.35 && down.size < maxDown) {
      const node = rng.pick(up);
      down.add(node);
      out.push({ atMs: at, kind: 'crash', node });
    } else if (roll < 0.7 && down.size > 0) {
      const node = rng.pick([...down]);
      down.delete(node);
      out.push({ atMs: at, kind: 'restart', node });
    } else if (roll < 0.8) out.push({ atMs: at, kind: 'isolate', node: rng.pick(up) });
    else if (roll < 0.9) out.push({ atMs: at, kind: 'heal' });
    else out.push({ atMs: at, kind: 'loss', rate: rng.pick([0, 0.05, 0.2]) });
  }
  return out;
}
