import { AdminAuth } from '../auth/admin-auth.ts';
import { AclRules } from '../broker/acl-rules.ts';
import { AutoSubscribeRules } from '../mqtt/auto-subscribe-rules.ts';
import { Blacklist } from '../broker/blacklist.ts';
import { Schemas } from '../broker/schemas.ts';
import { Tenants } from '../broker/tenants.ts';
import { TopicRewriteRules } from '../broker/topic-rewrite-rules.ts';
import { Users } from '../broker/users.ts';
import { ClusterConfig } from '../config/cluster-config.ts';
import { Connectors } from '../connectors/connectors.ts';
import { SimEngine } from '../engine/sim-engine.ts';
import { InvariantRegistry } from '../invariants/invariant-registry.ts';
import { Mq9 } from '../mq9/mq9.ts';
import { Monitor } from '../mqtt/monitor.ts';
import { MqttBroker } from '../mqtt/mqtt-broker.ts';
import { SimNetwork } from '../net/sim-network.ts';
import { ConsumerOffsets } from '../storage/consumer-offsets.ts';
import { StorageEngine } from '../storage/storage-engine.ts';
import { Topics } from '../storage/topics.ts';
import type { ResolvedClusterOptions } from '../nodes/cluster-options.ts';
import { NodeRegistry } from '../nodes/node-registry.ts';
import { RaftGroups } from '../raft/raft-groups.ts';

/** The parts of one simulated cluster, in construction (and start) order. */
export interface ClusterParts {
  /** Named invariant checkers the parts register; chaos runs check them after every event. */
  invariants: InvariantRegistry;
  engine: SimEngine;
  /** Messages between nodes (Raft RPCs, replica fetches) with latency, loss and partitions. */
  network: SimNetwork;
  nodes: NodeRegistry;
  raft: RaftGroups;
  config: ClusterConfig;
  auth: AdminAuth;
  tenants: Tenants;
  users: Users;
  acl: AclRules;
  blacklist: Blacklist;
  schemas: Schemas;
  rewriteRules: TopicRewriteRules;
  autoSubscribe: AutoSubscribeRules;
  topics: Topics;
  storage: StorageEngine;
  offsets: ConsumerOffsets;
  connectors: Connectors;
  mqtt: MqttBroker;
  monitor: Monitor;
  mq9: Mq9;
}

/**
 * The composition root of the model: builds every part with the narrow interfaces it uses, nothing
 * more. The order is fixed (it is the order of the parts' random forks, hence of the trace); a part
 * that calls a later-built one at run time receives it through a getter on the parts being assembled,
 * read only after construction. No part calls another from its constructor.
 */
export function composeCluster(options: ResolvedClusterOptions): Readonly<ClusterParts> {
  const p = {} as ClusterParts;
  p.invariants = new InvariantRegistry();
  const engine = (p.engine = new SimEngine({ seed: options.seed, epochMs: options.epochMs - options.warmUpMs }));
  p.network = new SimNetwork(engine, engine.random.fork('net'), (id) => p.nodes.get(id)?.online ?? false);
  p.nodes = new NodeRegistry({
    options,
    engine,
    get raft() {
      return p.raft;
    },
  });
  p.raft = new RaftGroups({ engine, network: p.network, options, nodes: p.nodes, invariants: p.invariants });
  p.config = new ClusterConfig({ engine, options, raft: p.raft, nodes: p.nodes });
  p.auth = new AdminAuth({ admin: options.admin, engine, config: p.config });
  p.tenants = new Tenants(engine);
  p.users = new Users(engine);
  p.acl = new AclRules(engine);
  p.blacklist = new Blacklist(engine);
  p.schemas = new Schemas(engine);
  p.rewriteRules = new TopicRewriteRules(engine);
  p.autoSubscribe = new AutoSubscribeRules({
    engine,
    get mqtt() {
      return p.mqtt;
    },
  });
  p.topics = new Topics({
    engine,
    nodes: p.nodes,
    config: p.config,
    raft: p.raft,
    tenants: p.tenants,
    get storage() {
      return p.storage;
    },
    get mqtt() {
      return p.mqtt;
    },
  });
  p.storage = new StorageEngine({
    engine,
    nodes: p.nodes,
    network: p.network,
    raft: p.raft,
    invariants: p.invariants,
    topics: p.topics,
    get offsets() {
      return p.offsets;
    },
  });
  p.offsets = new ConsumerOffsets({ engine, raft: p.raft, topics: p.topics, storage: p.storage });
  p.connectors = new Connectors({ engine, nodes: p.nodes, topics: p.topics, storage: p.storage });
  p.mqtt = new MqttBroker({
    engine,
    config: p.config,
    nodes: p.nodes,
    tenants: p.tenants,
    users: p.users,
    acl: p.acl,
    blacklist: p.blacklist,
    rewriteRules: p.rewriteRules,
    schemas: p.schemas,
    topics: p.topics,
    storage: p.storage,
    connectors: p.connectors,
  });
  p.monitor = new Monitor({ engine, mqtt: p.mqtt, topics: p.topics, connectors: p.connectors });
  p.mq9 = new Mq9(engine);
  return p;
}
