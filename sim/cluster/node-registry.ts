import type { Cluster } from './cluster.ts';

/** Roles a node may have (config `roles`). */
export type NodeRole = 'meta' | 'broker' | 'engine';

/** Port numbers of a node; nodes on one host get distinct ports, offset by their index. */
export interface NodePorts {
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
}

export function nodePorts(basePort: number, index: number): NodePorts {
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

/** The nodes of the cluster, numbered from 1, created at start from `--nodes`. */
export class NodeRegistry {
  private readonly byId = new Map<number, SimNode>();

  constructor(private readonly cluster: Cluster) {}

  start(): void {
    const { nodes, host, basePort } = this.cluster.options;
    const now = this.cluster.now();
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
      };
      this.byId.set(id, node);
      this.cluster.engine.record('node.register', { id, httpAddr: node.httpAddr });
    }
  }

  get(id: number): SimNode | undefined {
    return this.byId.get(id);
  }

  /** Every node ever part of the cluster, by id. */
  all(): SimNode[] {
    return [...this.byId.values()];
  }

  /** The broker node list: nodes whose process runs and is registered. */
  online(): SimNode[] {
    return this.all().filter((n) => n.online);
  }
}
