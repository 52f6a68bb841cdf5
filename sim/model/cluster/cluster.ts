import type { SimEngine } from '../engine/sim-engine.ts';
import type { AdminAuth } from '../auth/admin-auth.ts';
import type { NodeRegistry } from '../nodes/node-registry.ts';
import type { RaftGroups } from '../raft/raft-groups.ts';
import type { ClusterConfig } from '../config/cluster-config.ts';
import type { Tenants } from '../broker/tenants.ts';
import type { Users } from '../broker/users.ts';
import type { AclRules } from '../broker/acl-rules.ts';
import type { Blacklist } from '../broker/blacklist.ts';
import type { Schemas } from '../broker/schemas.ts';
import type { TopicRewriteRules } from '../broker/topic-rewrite-rules.ts';
import type { AutoSubscribeRules } from '../mqtt/auto-subscribe-rules.ts';
import type { Topics } from '../storage/topics.ts';
import type { StorageEngine } from '../storage/storage-engine.ts';
import type { ConsumerOffsets } from '../storage/consumer-offsets.ts';
import type { Connectors } from '../connectors/connectors.ts';
import type { MqttBroker } from '../mqtt/mqtt-broker.ts';
import type { Monitor } from '../mqtt/monitor.ts';
import type { Mq9 } from '../mq9/mq9.ts';
import type { SimNetwork } from '../net/sim-network.ts';
import type { InvariantRegistry } from '../invariants/invariant-registry.ts';
import { resolveClusterOptions, type ClusterOptions, type ResolvedClusterOptions } from '../nodes/cluster-options.ts';
import { composeCluster } from './compose-cluster.ts';

/** Every part of the model starts at `start()`, in this order; a part never calls another from its constructor. */
interface Startable {
  start?(): void;
  seedDemo?(): void;
}

const asStartable = (part: object): Startable => part as Startable;

/**
 * One simulated cluster on one virtual clock: its parts (built by `composeCluster`, each with the
 * narrow interfaces it uses), started in order. The drivers (HTTP layer, control interface, chaos and
 * scenario runners) reach the parts through it. Nothing here reads the wall clock or Math.random; the
 * HTTP layer is the only place where wall time is mapped onto virtual time.
 */
/** Virtual time between two progress calls of the warm-up (see `Cluster.start`). */
const WARM_UP_STEP_MS = 60_000;

/** How far the warm-up has gone: virtual time run of the total, and the MQTT population so far. */
export interface WarmUpProgress {
  doneMs: number;
  totalMs: number;
  clients: number;
  connections: number;
}

export class Cluster {
  readonly options: ResolvedClusterOptions;
  readonly engine: SimEngine;
  /** Messages between nodes (Raft RPCs, replica fetches) with latency, loss and partitions. */
  readonly network: SimNetwork;
  /** Named invariant checkers the parts register; chaos runs check them after every event. */
  readonly invariants: InvariantRegistry;
  readonly nodes: NodeRegistry;
  readonly raft: RaftGroups;
  readonly config: ClusterConfig;
  readonly auth: AdminAuth;
  readonly tenants: Tenants;
  readonly users: Users;
  readonly acl: AclRules;
  readonly blacklist: Blacklist;
  readonly schemas: Schemas;
  readonly rewriteRules: TopicRewriteRules;
  readonly autoSubscribe: AutoSubscribeRules;
  readonly topics: Topics;
  readonly storage: StorageEngine;
  readonly offsets: ConsumerOffsets;
  readonly connectors: Connectors;
  readonly mqtt: MqttBroker;
  readonly monitor: Monitor;
  readonly mq9: Mq9;
  private started = false;

  constructor(options: ClusterOptions) {
    this.options = resolveClusterOptions(options);
    const parts = composeCluster(this.options);
    this.invariants = parts.invariants;
    this.engine = parts.engine;
    this.network = parts.network;
    this.nodes = parts.nodes;
    this.raft = parts.raft;
    this.config = parts.config;
    this.auth = parts.auth;
    this.tenants = parts.tenants;
    this.users = parts.users;
    this.acl = parts.acl;
    this.blacklist = parts.blacklist;
    this.schemas = parts.schemas;
    this.rewriteRules = parts.rewriteRules;
    this.autoSubscribe = parts.autoSubscribe;
    this.topics = parts.topics;
    this.storage = parts.storage;
    this.offsets = parts.offsets;
    this.connectors = parts.connectors;
    this.mqtt = parts.mqtt;
    this.monitor = parts.monitor;
    this.mq9 = parts.mq9;
  }

  /** The parts in start order: infrastructure first, then metadata, then traffic. */
  private parts(): Startable[] {
    return (
      [
        this.nodes,
        this.raft,
        this.config,
        this.auth,
        this.tenants,
        this.users,
        this.acl,
        this.blacklist,
        this.schemas,
        this.rewriteRules,
        this.autoSubscribe,
        this.topics,
        this.storage,
        this.offsets,
        this.connectors,
        this.mqtt,
        this.monitor,
        this.mq9,
      ] as object[]
    ).map(asStartable);
  }

  /**
   * Brings the cluster up: parts start, and with the demo workload each part seeds its population.
   * The warm-up runs in steps of one virtual minute with `onWarmUp` called after each (the run is
   * the same as in one step: events run in the same order, and nothing is scheduled between steps).
   */
  start(onWarmUp?: (progress: WarmUpProgress) => void): this {
    if (this.started) return this;
    this.started = true;
    const { seed, nodes, workload, epochMs, warmUpMs } = this.options;
    this.engine.record('cluster.start', { seed, nodes, workload, epochMs, warmUpMs });
    for (const part of this.parts()) part.start?.();
    if (workload === 'demo') for (const part of this.parts()) part.seedDemo?.();
    if (warmUpMs > 0 && !onWarmUp) this.engine.runUntil(epochMs);
    else if (warmUpMs > 0 && onWarmUp) {
      const from = epochMs - warmUpMs;
      for (let t = Math.min(epochMs, from + WARM_UP_STEP_MS); ; t = Math.min(epochMs, t + WARM_UP_STEP_MS)) {
        this.engine.runUntil(t);
        onWarmUp({ doneMs: t - from, totalMs: warmUpMs, clients: this.mqtt.clientCount, connections: this.mqtt.connectionCount });
        if (t === epochMs) break;
      }
    }
    return this;
  }

  now(): number {
    return this.engine.now();
  }
}
