import { failed } from '../errors/operation-error.ts';
import type { ResolvedClusterOptions } from './cluster-options.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { NodeRecord } from '../../../contract/records.ts';

/** Roles a node may have (config `roles`). */
type NodeRole = 'meta' | 'broker' | 'engine';

/** Port numbers of a node; nodes on one host get distinct ports, offset by their index. */
interface NodePorts {
  http: number;
  grpc: number;
  mqttTcp: number;
  mqttTls: number;
  mqttWebsocket: number;
  mqttWebsockets: number;
  mqttQuic: number;
  storageTcp: number;
  prometheus: number;
}

/** One simulated broker node. */
export interface SimNode {
  readonly id: number;
  readonly ip: string;
  readonly ports: NodePorts;
  readonly roles: NodeRole[];
  /** `ip:http_port` while the node is registered; empty when it has no registered HTTP address. */
  httpAddr: string;
  /** In the broker node list (its process runs and has registered). */
  online: boolean;
  /** All configured listener ports accept connections (what `/health/ready` reports). */
  portsReady: boolean;
  /** Virtual Unix ms of the current process start and of registration. */
  startTime: number;
  registerTime: number;
  storageFold: string[];
  /**
   * Removed from every consensus membership by node leave. Its data directory still holds the old
   * identity, so it may rejoin only after a wipe (node leave, rule 4).
   */
  removed: boolean;
  /**
   * How far this node's wall clock is off the cluster's true (virtual) time, in ms; 0 unless a
   * scenario skews it. The node stamps with its own clock (record timestamps as storage leader, its
   * start time) and measures timeouts with it (ISR lag as storage leader), so a step of the offset
   * acts like an NTP step on that node. Raft timers run on durations and do not see an offset.
   */
  clockSkewMs: number;
}

/** Options of a node (re)start. */
export interface NodeStartOptions {
  /** The node's data directory was wiped: it joins as a new node. Required after a node leave. */
  wiped?: boolean;
}

/**
 * What happened to a node's process, for parts that keep per-node state (storage replicas, MQTT
 * connections):
 * - `crash`: the process died; memory is lost, persisted data (Raft term, vote, log; storage) stays.
 * - `stop`: graceful stop (leaderships handed over first); persisted data stays.
 * - `restart`: the process is back on its persisted data (after a crash or a stop).
 * - `start`: the process is back on a wiped data directory: it joins as a new node.
 * - `leave`: node leave removed it from every consensus membership (it may still run, if forced).
 */
export type NodeLifecycleKind = 'crash' | 'stop' | 'restart' | 'start' | 'leave';

export interface NodeLifecycleEvent {
  kind: NodeLifecycleKind;
  nodeId: number;
}

export type NodeLifecycleListener = (e: NodeLifecycleEvent) => void;

/** The success text of node leave (rule 5). */
function nodeLeaveText(id: number): string {
  return `Node ${id} removed from the cluster. Wipe its data directory before rejoining as a new node.`;
}

function nodePorts(basePort: number, index: number): NodePorts {
  return {
    http: basePort + index,
    grpc: 1228 + index,
    mqttTcp: 1883 + index * 10,
    mqttTls: 8883 + index * 10,
    mqttWebsocket: 8083 + index * 10,
    mqttWebsockets: 8084 + index * 10,
    mqttQuic: 9083 + index * 10,
    storageTcp: 1778 + index,
    prometheus: 9091 + index,
  };
}

/** A consensus group as node lifecycle checks see it. */
interface NodeRaftGroup {
  readonly name: string;
  isVoter(nodeId: number): boolean;
}

/** What node lifecycle changes tell the consensus groups (and ask of them before a node rejoins). */
interface NodeRaft {
  groups(): readonly NodeRaftGroup[];
  requireLeadersFor(groups: readonly NodeRaftGroup[], doing: string): void;
  onNodeStopping(nodeId: number): void;
  onNodeDown(nodeId: number): void;
  onNodeUp(nodeId: number): void;
  onNodeWiped(nodeId: number): void;
  addVoter(nodeId: number): string[];
  removeVoter(nodeId: number): string[];
}

export interface NodeRegistryDeps {
  options: Pick<ResolvedClusterOptions, 'nodes' | 'host' | 'basePort'>;
  engine: Pick<SimEngine, 'now' | 'record'>;
  /** Built after the registry: read at call time. */
  readonly raft: NodeRaft;
}

/** The nodes of the cluster, numbered from 1, created at start from `--nodes`. */
export class NodeRegistry {
  private readonly byId = new Map<number, SimNode>();
  private readonly listeners = new Set<NodeLifecycleListener>();

  constructor(private readonly deps: NodeRegistryDeps) {}

  /**
   * Without arguments: the part's start hook, which creates the nodes of `--nodes`. With a node id:
   * that node's process starts again (see `startNode`).
   */
  start(): void;
  start(id: number, options?: NodeStartOptions): SimNode;
  start(id?: number, options: NodeStartOptions = {}): SimNode | void {
    if (id !== undefined) return this.startNode(id, options);
    if (this.byId.size > 0) return;
    const { nodes, host, basePort } = this.deps.options;
    const now = this.deps.engine.now();
    for (let i = 0; i < nodes; i++) {
      const id = i + 1;
      const ports = nodePorts(basePort, i);
      const node: SimNode = {
        id,
        ip: host,
        ports,
        roles: ['meta', 'broker', 'engine'],
        httpAddr: `${host}:${ports.http}`,
        online: true,
        portsReady: true,
        startTime: now,
        registerTime: now,
        storageFold: [`./data/node-${id}/engine`],
        removed: false,
        clockSkewMs: 0,
      };
      this.byId.set(id, node);
      this.deps.engine.record('node.register', { id, httpAddr: node.httpAddr });
    }
  }

  get(id: number): SimNode | undefined {
    return this.byId.get(id);
  }

  /** Every node ever part of the cluster, by id. */
  all(): SimNode[] {
    return [...this.byId.values()];
  }

  /** The node record the API shows (times in Unix seconds). */
  view(node: SimNode): NodeRecord {
    const p = node.ports;
    const extend = {
      mqtt: {
        grpc_addr: `${node.ip}:${p.grpc}`,
        mqtt_addr: `${node.ip}:${p.mqttTcp}`,
        mqtts_addr: `${node.ip}:${p.mqttTls}`,
        websocket_addr: `${node.ip}:${p.mqttWebsocket}`,
        websockets_addr: `${node.ip}:${p.mqttWebsockets}`,
        quic_addr: `${node.ip}:${p.mqttQuic}`,
      },
    };
    return {
      roles: [...node.roles],
      extend: [...Buffer.from(JSON.stringify(extend), 'utf8')],
      node_id: node.id,
      node_ip: node.ip,
      grpc_addr: `${node.ip}:${p.grpc}`,
      http_addr: node.httpAddr,
      engine_addr: `${node.ip}:${p.storageTcp}`,
      start_time: Math.floor(node.startTime / 1000),
      register_time: Math.floor(node.registerTime / 1000),
      storage_fold: [...node.storageFold],
    };
  }

  /** The broker node list: nodes whose process runs and is registered. */
  online(): SimNode[] {
    return this.all().filter((n) => n.online);
  }

  private require(id: number): SimNode {
    const node = this.byId.get(id);
    if (!node)
      throw failed(
        `Node ${id} does not exist; known nodes: ${this.all()
          .map((n) => n.id)
          .join(', ')}`,
      );
    return node;
  }

  /**
   * Subscribes to node lifecycle events; returns the unsubscribe function. Listeners run after the
   * registry and the consensus groups have applied the change, in subscription order.
   */
  onLifecycle(listener: NodeLifecycleListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private emit(kind: NodeLifecycleKind, nodeId: number): void {
    for (const listener of [...this.listeners]) listener({ kind, nodeId });
  }

  /** Takes the node's process down: it leaves the broker node list and its ports close. */
  private down(id: number, kind: 'crash' | 'stop'): SimNode {
    const node = this.require(id);
    if (!node.online) throw failed(`Node ${id} is already stopped`);
    // A graceful stop hands the node's leaderships over while it can still send.
    if (kind === 'stop') this.deps.raft.onNodeStopping(id);
    node.online = false;
    node.portsReady = false;
    this.deps.engine.record(`node.${kind}`, { id });
    this.deps.raft.onNodeDown(id);
    this.emit(kind, id);
    return node;
  }

  /** Graceful stop: the groups the node leads hand leadership over, then the process stops. */
  stop(id: number): SimNode {
    return this.down(id, 'stop');
  }

  /** The process dies at once: its memory (Raft roles, commit index) is lost; persisted state survives. */
  crash(id: number): SimNode {
    return this.down(id, 'crash');
  }

  /** The process comes back on its persisted state (after a crash or a stop) and registers again. */
  restart(id: number): SimNode {
    return this.startNode(id, {});
  }

  /**
   * The node's process starts again and registers. Without `wiped` it comes back on its persisted
   * state (a `restart`). A node removed by node leave still carries its old identity in its data
   * directory, so it may rejoin only as a new node, after a wipe (rule 4); it then becomes a voter of
   * every consensus group again. A node that is still a member may not be wiped: it would forget the
   * votes and log entries the groups count on.
   */
  startNode(id: number, options: NodeStartOptions = {}): SimNode {
    const node = this.require(id);
    const wiped = options.wiped === true;
    if (node.online) throw failed(`Node ${id} is already running`);
    if (node.removed && !wiped) {
      throw failed(
        `Node ${id} was removed from the cluster; wipe its data directory before it rejoins as a new node (start it with wiped=true)`,
      );
    }
    if (wiped && !node.removed) {
      const groups = this.deps.raft
        .groups()
        .filter((g) => g.isVoter(id))
        .map((g) => g.name);
      if (groups.length > 0) {
        throw failed(
          `Node ${id} is still a voter of ${groups.join(', ')}; a wiped member would forget its votes and log. Remove it with node leave first, or start it without wiping`,
        );
      }
    }
    if (wiped && node.removed) this.deps.raft.requireLeadersFor(this.deps.raft.groups(), `adding node ${id}`);
    const now = this.localNow(id);
    if (wiped) this.deps.raft.onNodeWiped(id);
    node.online = true;
    node.portsReady = true;
    node.startTime = now;
    node.registerTime = now;
    this.deps.engine.record('node.start', { id, wiped });
    this.deps.raft.onNodeUp(id);
    try {
      // Rejoining commits one membership change per group (it may time out: the node then runs
      // outside some memberships and stays `removed`).
      if (node.removed) {
        this.deps.raft.addVoter(id);
        node.removed = false;
      }
    } finally {
      this.emit(wiped ? 'start' : 'restart', id);
    }
    return node;
  }

  /** The node's own reading of the clock: true virtual time plus its skew (unknown nodes: no skew). */
  localNow(id: number): number {
    return this.deps.engine.now() + (this.byId.get(id)?.clockSkewMs ?? 0);
  }

  /** Sets a node's clock offset (a deterministic fault: the same seed and steps give the same run). */
  setClockSkew(id: number, offsetMs: number): void {
    const node = this.require(id);
    if (!Number.isFinite(offsetMs)) throw new Error(`clock skew must be a finite number of ms, got ${offsetMs}`);
    node.clockSkewMs = offsetMs;
    this.deps.engine.record('node.clock-skew', { id, offsetMs });
  }

  /** Whether every configured listener of the node accepts connections (`/health/ready`). */
  setPortsReady(id: number, ready: boolean): void {
    const node = this.require(id);
    if (node.portsReady === ready) return;
    node.portsReady = ready;
    this.deps.engine.record('node.ports', { id, ready });
  }

  /**
   * Node leave (`POST /api/cluster/node/leave`), rules 1-5: a live node is refused unless `force`
   * (rule 1); every group holding the node must keep a safe quorum or nothing changes (rule 2); a
   * node in no membership — including an id never seen — is a success without effect (rule 3); a
   * removed node must be wiped before rejoining (rule 4, enforced by `start`). Returns the rule-5 text.
   */
  leave(id: number, force = false): string {
    const node = this.byId.get(id);
    if (node?.online && !force) {
      throw failed(
        `Node ${id} is still registered (alive). Stop its process first, or pass force=true. Removing a live node would orphan it.`,
      );
    }
    const groups = this.deps.raft.removeVoter(id);
    if (groups.length > 0) {
      if (node) node.removed = true;
      this.deps.engine.record('node.leave', { id, force, groups });
      this.emit('leave', id);
    }
    return nodeLeaveText(id);
  }
}
