import { SimEngine } from '../engine/sim-engine.ts';
import { AdminAuth, type AdminSettings } from '../auth/admin-auth.ts';
import { NodeRegistry } from './node-registry.ts';
import { RaftGroups } from './raft-groups.ts';
import { ClusterConfig } from '../config/cluster-config.ts';
import { Tenants } from '../broker/tenants.ts';
import { Users } from '../broker/users.ts';
import { AclRules } from '../broker/acl-rules.ts';
import { Blacklist } from '../broker/blacklist.ts';
import { Schemas } from '../broker/schemas.ts';
import { TopicRewriteRules } from '../broker/topic-rewrite-rules.ts';
import { AutoSubscribeRules } from '../broker/auto-subscribe-rules.ts';
import { Topics } from '../storage/topics.ts';
import { StorageEngine } from '../storage/storage-engine.ts';
import { ConsumerOffsets } from '../storage/consumer-offsets.ts';
import { Connectors } from '../connectors/connectors.ts';
import { MqttBroker } from '../mqtt/mqtt-broker.ts';
import { Monitor } from '../mqtt/monitor.ts';
import { Mq9 } from '../mq9/mq9.ts';
import { SimNetwork } from '../net/sim-network.ts';
import { InvariantRegistry } from '../invariants/invariant-registry.ts';

/** 2026-01-01T00:00:00Z: the default start of virtual time, so runs read the same everywhere. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

export type WorkloadName = 'demo' | 'none';

export interface ClusterOptions {
  seed: string | number;
  /** Virtual time at which the cluster is handed over (served, tested), Unix ms. */
  epochMs?: number;
  /**
   * Virtual history before `epochMs`: the cluster starts this long before it and `start()` runs the
   * workload up to `epochMs`, so a served demo already has an hour of monitor samples. Default 0.
   */
  warmUpMs?: number;
  /** Number of simulated nodes (1-9). */
  nodes?: number;
  /** Address the nodes register (their `node_ip`) and listen on. */
  host?: string;
  /** HTTP port of node 1; node N listens on basePort + N - 1. */
  basePort?: number;
  clusterName?: string;
  workload?: WorkloadName;
  admin?: Partial<AdminSettings>;
  /** Static `meta_runtime` settings: how many offset and data consensus groups to run (default 1 each). */
  metaRuntime?: { offset_raft_group_num?: number; data_raft_group_num?: number };
  /** Static `mqtt_runtime.secret_free_login`: MQTT clients without a user name may log in (default false). */
  secretFreeLogin?: boolean;
}

export interface ResolvedClusterOptions {
  seed: string;
  epochMs: number;
  warmUpMs: number;
  nodes: number;
  host: string;
  basePort: number;
  clusterName: string;
  workload: WorkloadName;
  admin: AdminSettings;
  metaRuntime: { offset_raft_group_num: number; data_raft_group_num: number };
  secretFreeLogin: boolean;
}

/** Every part of the model starts at `start()`, in this order; a part never calls another from its constructor. */
interface Startable {
  start?(): void;
  seedDemo?(): void;
}

const asStartable = (part: object): Startable => part as Startable;

/**
 * The composition root of the model: one simulated cluster on one virtual clock. Every part gets the
 * cluster and reaches the others through it at call time. Nothing here reads the wall clock or
 * Math.random; the HTTP layer is the only place where wall time is mapped onto virtual time.
 */
export class Cluster {
  readonly options: ResolvedClusterOptions;
  readonly engine: SimEngine;
  /** Messages between nodes (Raft RPCs, replica fetches) with latency, loss and partitions. */
  readonly network: SimNetwork;
  /** Named invariant checkers the parts register; chaos runs check them after every event. */
  readonly invariants = new InvariantRegistry();
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
    const nodes = options.nodes ?? 3;
    if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) throw new Error(`--nodes must be an integer from 1 to 9, got ${options.nodes}`);
    this.options = {
      seed: String(options.seed),
      epochMs: options.epochMs ?? DEFAULT_EPOCH_MS,
      warmUpMs: options.warmUpMs ?? 0,
      nodes,
      host: options.host ?? '127.0.0.1',
      basePort: options.basePort ?? 58080,
      clusterName: options.clusterName ?? 'mqsim-cluster',
      workload: options.workload ?? 'none',
      admin: {
        username: options.admin?.username ?? 'admin',
        password: options.admin?.password ?? 'admin',
        jwtSecret: options.admin?.jwtSecret ?? 'mqsim-change-me-in-production-0123456789',
        tokenTtlHours: options.admin?.tokenTtlHours ?? 8,
      },
      metaRuntime: {
        offset_raft_group_num: options.metaRuntime?.offset_raft_group_num ?? 1,
        data_raft_group_num: options.metaRuntime?.data_raft_group_num ?? 1,
      },
      secretFreeLogin: options.secretFreeLogin ?? false,
    };
    if (!(this.options.warmUpMs >= 0) || this.options.warmUpMs > this.options.epochMs)
      throw new Error(`warm-up must be between 0 and the epoch, got ${this.options.warmUpMs} ms`);
    this.engine = new SimEngine({ seed: this.options.seed, epochMs: this.options.epochMs - this.options.warmUpMs });
    this.network = new SimNetwork(this.engine, this.engine.random.fork('net'), (id) => this.nodes.get(id)?.online ?? false);
    this.nodes = new NodeRegistry(this);
    this.raft = new RaftGroups(this);
    this.config = new ClusterConfig(this);
    this.auth = new AdminAuth(this);
    this.tenants = new Tenants(this);
    this.users = new Users(this);
    this.acl = new AclRules(this);
    this.blacklist = new Blacklist(this);
    this.schemas = new Schemas(this);
    this.rewriteRules = new TopicRewriteRules(this);
    this.autoSubscribe = new AutoSubscribeRules(this);
    this.topics = new Topics(this);
    this.storage = new StorageEngine(this);
    this.offsets = new ConsumerOffsets(this);
    this.connectors = new Connectors(this);
    this.mqtt = new MqttBroker(this);
    this.monitor = new Monitor(this);
    this.mq9 = new Mq9(this);
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

  /** Brings the cluster up: parts start, and with the demo workload each part seeds its population. */
  start(): this {
    if (this.started) return this;
    this.started = true;
    const { seed, nodes, workload, epochMs, warmUpMs } = this.options;
    this.engine.record('cluster.start', { seed, nodes, workload, epochMs, warmUpMs });
    for (const part of this.parts()) part.start?.();
    if (workload === 'demo') for (const part of this.parts()) part.seedDemo?.();
    if (warmUpMs > 0) this.engine.runUntil(epochMs);
    return this;
  }

  now(): number {
    return this.engine.now();
  }
}
