import type { NodeLifecycleListener, SimNode } from '../nodes/node-registry.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SimNetwork } from '../net/sim-network.ts';

/** The nodes as the storage engine sees them: placement, liveness, local clocks and lifecycle events. */
interface StorageNodes {
  get(id: number): SimNode | undefined;
  all(): readonly SimNode[];
  online(): readonly SimNode[];
  /** A node's own wall clock (virtual time plus its skew). */
  localNow(id: number): number;
  onLifecycle(listener: NodeLifecycleListener): () => void;
}

/** The metadata groups the storage engine writes shard changes to, and the controller's seat. */
interface StorageRaft {
  write(groupName: string, kind: string): unknown;
  tryWrite(groupName: string, kind: string): boolean;
  dataGroupFor(key: string): string;
  metaLeaderId(): number | null;
}

/** The parts of the cluster the storage engine and its replication and controller run on. */
export interface StoragePeers {
  /** Virtual time, scheduling, the trace and the seeded random source. */
  engine: SimEngine;
  nodes: StorageNodes;
  network: Pick<SimNetwork, 'send' | 'reachable'>;
  raft: StorageRaft;
}
