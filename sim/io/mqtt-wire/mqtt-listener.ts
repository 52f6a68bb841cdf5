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

/** The socket cap: the option, or the open-file limit minus what is kept for everything else (at least 64). */
function socketCap(maxSockets: number | undefined): number {
  return maxSockets ?? Math.max(64, (openFileLimit() ?? 10_000 + RESERVED_FILES) - RESERVED_FILES);
}

/** The connections open over all node listeners, against the socket cap. */
class SocketBook {
  readonly connections = new Set<WireConnection>();
  open = 0;
  refused = 0;

  constructor(readonly max: number) {}

  released(connection: WireConnection): void {
    if (this.connections.delete(connection)) this.open--;
  }
}

/**
 * What every node's connections share (login, encoder, parsers, the QoS 2 ids that outlive a
 * connection, assigned client ids), and the host each node's connections are given.
 */
function hostMaker(cluster: Cluster, options: MqttListenerOptions, book: SocketBook, internalError: (e: unknown) => void) {
  const login = new Login(cluster);
  const encoder = new PublishEncoder();
  const parsers = new PacketParsers();
  /** QoS 2 packet ids received and not released, per client: they outlive a connection (MQTT §4.3.3). */
  const inboundQos2 = new Map<string, Set<number>>();
  let assigned = 0;
  const assignPrefix = `mqsim-${randomBytes(3).toString('hex')}`;
  return (nodeId: number): WireHost => ({
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
    released: (connection) => book.released(connection),
  });
}

/** A node's socket handler: a connection for each socket, or an immediate close once the cap is reached. */
function acceptor(host: WireHost, book: SocketBook): (socket: Socket) => void {
  return (socket) => {
    if (book.open >= book.max) {
      // Full: close at once, before reading anything (MQTT lets a server close a connection it cannot serve).
      book.refused++;
      socket.on('error', () => {});
      socket.destroy();
      return;
    }
    book.open++;
    try {
      book.connections.add(new WireConnection(socket, host));
    } catch (e) {
      book.open--;
      host.internalError(e);
      socket.destroy();
    }
  };
}

/** Starts listening; the listen error (a port in use) rejects. */
function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServers(servers: readonly Server[]): Promise<void> {
  return Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => undefined);
}

/** A port in use, said in the options' words; any other error as it is. */
function listenFailure(e: unknown): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err.code !== 'EADDRINUSE') return e;
  return new Error(
    `MQTT port ${err.message.split(':').pop()} is already in use; pick another with --mqtt-port (node K uses port + K - 1, 0 picks free ports)`,
    { cause: e },
  );
}

/** One listening server per node (node K on port + K - 1); its registered MQTT port becomes the real one. */
async function listenOnEveryNode(
  cluster: Cluster,
  options: MqttListenerOptions,
  handlerFor: (nodeId: number) => (socket: Socket) => void,
  internalError: (e: unknown) => void,
): Promise<{ servers: Server[]; ports: number[] }> {
  const servers: Server[] = [];
  const ports: number[] = [];
  try {
    for (const node of cluster.nodes.all()) {
      const server = createServer({ noDelay: true }, handlerFor(node.id));
      await listen(server, options.port === 0 ? 0 : options.port + node.id - 1, options.host);
      // Once listening, accept failures (EMFILE when the process is out of file descriptors) must not end the process.
      server.on('error', internalError);
      servers.push(server);
      const actual = (server.address() as AddressInfo).port;
      node.ports.mqttTcp = actual;
      ports.push(actual);
    }
  } catch (e) {
    await closeServers(servers);
    throw listenFailure(e);
  }
  return { servers, ports };
}

/** Brings virtual time up to wall time every TICK_MS while nothing else does (delayed wills, expiries). */
function startClockTicker(syncClock: () => void, internalError: (e: unknown) => void): NodeJS.Timeout {
  const ticker = setInterval(() => {
    try {
      syncClock();
    } catch (e) {
      internalError(e);
    }
  }, TICK_MS);
  ticker.unref();
  return ticker;
}

/**
 * `mqsim serve --mqtt-port`: one MQTT TCP listener per simulated node, speaking MQTT 3.1, 3.1.1 and
 * 5 (mqtt-packet does the bytes). A client lands on the node whose port it connected to; everything
 * it does that changes the model goes through `applyWireOp` and the journal. Each node's registered
 * MQTT port becomes the real one, so config get and the node records show where to connect.
 */
export async function startMqttListeners(cluster: Cluster, options: MqttListenerOptions): Promise<MqttListeners> {
  const internalError = (e: unknown): void => options.onInternalError?.(e);
  const book = new SocketBook(socketCap(options.maxSockets));
  const hostFor = hostMaker(cluster, options, book, internalError);
  const { servers, ports } = await listenOnEveryNode(cluster, options, (nodeId) => acceptor(hostFor(nodeId), book), internalError);
  const ticker = startClockTicker(options.syncClock, internalError);
  return {
    ports,
    get socketCount() {
      return book.open;
    },
    get refusedSockets() {
      return book.refused;
    },
    maxSockets: book.max,
    async close() {
      clearInterval(ticker);
      for (const s of servers) s.close();
      for (const c of [...book.connections]) c.shutdown();
      await closeServers(servers);
    },
  };
}
