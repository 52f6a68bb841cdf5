import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Cluster } from '../../model/cluster/cluster.ts';
import type { DeliverySink } from '../../model/mqtt/delivery.ts';
import { openFileLimit } from './fd-limit.ts';
import { Login } from './login.ts';
import { PublishEncoder } from './publish-encoding.ts';
import { PacketParsers } from './packet-parsers.ts';
import { WireConnection, type WireHost } from './wire-connection.ts';
import { applyWireOp, type WireOp, type WireOpAnswer } from '../../model/cluster-ops/wire-ops.ts';
import type { OutputGate } from './durable-outbox.ts';

/** One journaled model operation of a network connection. */
export interface WireJournalEntry {
  /** Virtual time it ran at. */
  at: number;
  nodeId: number;
  op: WireOp;
  answer: unknown;
}

export interface MqttListenerOptions {
  /** Address to listen on. */
  host: string;
  /** Port of node 1; node K listens on port + K - 1. 0: every node gets an ephemeral port. */
  port: number;
  /** Brings virtual time up to wall time (live mode), before every op and on a ticker. */
  syncClock: () => void;
  /** Called with every op applied to the model (`mqsim serve --state` journals them). */
  journal?: (entry: WireJournalEntry) => void;
  /** Packets wait until what was journaled before them is durable (the acknowledgement of an op after its record). */
  outputGate?: OutputGate;
  /** Broker bugs (an exception while handling a packet); the connection is closed, the listener goes on. */
  onInternalError?: (error: unknown) => void;
  /** Time a new connection has to send CONNECT, ms (default 10 000). */
  connectTimeoutMs?: number;
  /**
   * Sockets open at once over all node listeners; beyond it new ones are closed at once. Default: the
   * process's open-file limit minus 512 kept for everything else (HTTP listeners, files), at least 64.
   */
  maxSockets?: number;
}

export interface MqttListeners {
  /** The port of each node's listener, by index (node id - 1). */
  readonly ports: readonly number[];
  /** Sockets open now. */
  readonly socketCount: number;
  /** Sockets closed at once because `maxSockets` were open. */
  readonly refusedSockets: number;
  readonly maxSockets: number;
  /** Ends every connection as lost (wills go out, the journal records it), then stops listening. */
  close(): Promise<void>;
}

/** How often virtual time is brought up to wall time while nothing else happens (delayed wills, expiries). */
const TICK_MS = 250;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const RESERVED_FILES = 512;

/**
 * `mqsim serve --mqtt-port`: one MQTT TCP listener per simulated node, speaking MQTT 3.1, 3.1.1 and
 * 5 (mqtt-packet does the bytes). A client lands on the node whose port it connected to; everything
 * it does that changes the model goes through `applyWireOp` and the journal. Each node's registered
 * MQTT port becomes the real one, so config get and the node records show where to connect.
 */
export async function startMqttListeners(cluster: Cluster, options: MqttListenerOptions): Promise<MqttListeners> {
  const login = new Login(cluster);
  const encoder = new PublishEncoder();
  const parsers = new PacketParsers();
  const connections = new Set<WireConnection>();
  /** QoS 2 packet ids received and not released, per client: they outlive a connection (MQTT §4.3.3). */
  const inboundQos2 = new Map<string, Set<number>>();
  const internalError = (e: unknown): void => options.onInternalError?.(e);
  const limit = options.maxSockets ?? Math.max(64, (openFileLimit() ?? 10_000 + RESERVED_FILES) - RESERVED_FILES);
  let sockets = 0;
  let refused = 0;
  let assigned = 0;
  const assignPrefix = `mqsim-${randomBytes(3).toString('hex')}`;

  const hostFor = (nodeId: number): WireHost => ({
    cluster,
    nodeId,
    login,
    encoder,
    parsers,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.outputGate ? { outputGate: options.outputGate } : {}),
    apply<T extends WireOp>(op: T, sink?: DeliverySink): WireOpAnswer<T> {
      // Synced once, here: the op runs (and is journaled) at exactly the virtual time read after it.
      options.syncClock();
      const at = cluster.now();
      const answer = applyWireOp(cluster, op, sink);
      options.journal?.({ at, nodeId, op, answer });
      return answer;
    },
    touch(tenant, clientId, connectionId) {
      options.syncClock();
      cluster.mqtt.touch(tenant, clientId, connectionId);
    },
    inboundQos2(key) {
      let ids = inboundQos2.get(key);
      if (!ids) inboundQos2.set(key, (ids = new Set()));
      return ids;
    },
    forgetInboundQos2(key) {
      inboundQos2.delete(key);
    },
    assignClientId: () => `${assignPrefix}-${++assigned}`,
    internalError,
    released(connection) {
      if (connections.delete(connection)) sockets--;
    },
  });

  const servers: Server[] = [];
  const ports: number[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  };
  try {
    for (const node of cluster.nodes.all()) {
      const host = hostFor(node.id);
      const server = createServer({ noDelay: true }, (socket: Socket) => {
        if (sockets >= limit) {
          // Full: close at once, before reading anything (MQTT lets a server close a connection it cannot serve).
          refused++;
          socket.on('error', () => {});
          socket.destroy();
          return;
        }
        sockets++;
        try {
          connections.add(new WireConnection(socket, host));
        } catch (e) {
          sockets--;
          internalError(e);
          socket.destroy();
        }
      });
      const wanted = options.port === 0 ? 0 : options.port + node.id - 1;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(wanted, options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      // Once listening, accept failures (EMFILE when the process is out of file descriptors) must not end the process.
      server.on('error', internalError);
      servers.push(server);
      const actual = (server.address() as AddressInfo).port;
      node.ports.mqttTcp = actual;
      ports.push(actual);
    }
  } catch (e) {
    await closeAll();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new Error(
        `MQTT port ${err.message.split(':').pop()} is already in use; pick another with --mqtt-port (node K uses port + K - 1, 0 picks free ports)`,
        { cause: e },
      );
    throw e;
  }

  const ticker = setInterval(() => {
    try {
      options.syncClock();
    } catch (e) {
      internalError(e);
    }
  }, TICK_MS);
  ticker.unref();

  return {
    ports,
    get socketCount() {
      return sockets;
    },
    get refusedSockets() {
      return refused;
    },
    maxSockets: limit,
    async close() {
      clearInterval(ticker);
      for (const s of servers) s.close();
      for (const c of [...connections]) c.shutdown();
      await closeAll();
    },
  };
}
