import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Agent, request } from 'undici';
import { type Cluster } from '../../model/cluster/cluster.ts';
import type { ServedApi } from '../../admin-api/served-api.ts';
import type { ApiResponse } from '../../admin-api/core/api-exchange.ts';
import { AdminApp } from '../../admin-api/admin-app.ts';
import type { EnvelopeForm } from '../../admin-api/envelope.ts';
import type { PeerReply, PeerTransport } from '../../admin-api/core/handler-types.ts';
import { MAX_BODY_BYTES } from '../../admin-api/core/parse-request.ts';
import { LiveConnectors } from '../live-connectors/live-connectors.ts';
import { outageAwareSink } from '../../model/connectors/simulated-sink.ts';
import { CORS_HEADERS, isPreflight, preflightAnswer } from '../http/cors.ts';
import { controlHttpAnswer, type ControlHttpAnswer, type ControlHttpRequest } from '../control/control-http.ts';
import { startNatsBridge, type NatsBridge } from '../nats/nats-bridge.ts';
import { journaled, journaledMqtt, type JournaledWrite } from '../state/state-file.ts';
import type { ReplaySteps } from '../state/state-replay.ts';
import { SYSTEM_WALL_CLOCK } from './wall-clock.ts';
import { createServedModel, replayOnto, type RecordedRun, type ServedModel, type ServedModelOptions } from './served-model.ts';
import { sealedWrite } from '../state/journal-secrets.ts';
import type { DialectName } from '../../switches/dialects.ts';
import { StaticUi } from '../http/static-ui.ts';
import { startMqttListeners, type MqttListeners, type WireJournalEntry } from '../mqtt-wire/mqtt-listener.ts';
import type { OutputGate } from '../mqtt-wire/durable-outbox.ts';
import { JournalFailure } from '../state/state-keeper.ts';
import { dropNetworkConnections, encodeWireOp, wireAnswerText } from '../../model/cluster-ops/wire-ops.ts';

export interface ClusterServerOptions extends ServedModelOptions {
  /** HTTP port of node 1; node N listens on port + N - 1. 0 gives every node an ephemeral port. */
  port?: number;
  envelope?: EnvelopeForm;
  /** Called for every unexpected exception inside a handler (a bug; the client gets a 500 envelope). */
  onInternalError?: (error: unknown) => void;
  /** Deliberately broken behaviours to switch on (ids of sim/faults); see AdminAppOptions. */
  deviations?: readonly string[];
  /** Longest wait for a request's complete headers, in ms (default 10 000); tests shorten it. */
  headersTimeoutMs?: number;
  /** Longest wait for a whole request, headers and body, in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept, in ms (default 5 000). */
  keepAliveTimeoutMs?: number;
  /** Serve the simulator's control interface under /_sim/ (loopback peers only); off by default. */
  control?: boolean;
  /** Answer the mq9 protocol subjects over this NATS server (e.g. nats://127.0.0.1:4222). */
  nats?: string;
  /** Size of the demo client population (`--clients`); default: the hand-made demo (~60). */
  clients?: number;
  /** Connectors of types webhook, mqtt, redis, postgres, mysql, rabbitmq, file deliver for real (`--live-connectors`). */
  liveConnectors?: boolean;
  /**
   * Resume a recorded run (`mqsim serve --state`): these model writes are applied again at their
   * virtual times before the listeners open, then virtual time runs on from `virtualNow`. The other
   * options must be the recorded run's. Throws a StateFileError when the replay answers differently.
   */
  resume?: RecordedRun;
  /** How the resume's replay proceeds (default: every write, time moved at once). */
  resumeSteps?: ReplaySteps;
  /**
   * Called with every request (API, control interface, MQTT listener) that changed the model, to
   * journal it, in the order the model took them. When it returns a promise, the API's and the
   * control interface's answers wait for it (the record is durable); MQTT packets wait through
   * `durableOutput`.
   */
  onModelWrite?: (write: JournaledWrite) => void | Promise<void>;
  /** What the MQTT listeners send waits until everything journaled before it is durable (see OutputGate). */
  durableOutput?: OutputGate;
  /**
   * `spec` (default) or `robustmq`: answer as the real server does where it differs from the spec
   * (sim/dialects). Its switches come before `deviations`; its envelope applies unless `envelope` is given.
   */
  dialect?: DialectName;
  /** A built dashboard to serve from the API's origin, with the real server's SPA fallback (static-ui.ts). */
  ui?: string;
  /**
   * MQTT listener port of node 1 (`--mqtt-port`); node K listens on mqttPort + K - 1, 0 gives every
   * node an ephemeral port. Absent: no MQTT listener.
   */
  mqttPort?: number;
  /** Sockets the MQTT listeners hold at once (default: from the open-file limit); tests lower it. */
  mqttMaxSockets?: number;
  /** Time an MQTT connection has to send CONNECT, ms (default 10 000); tests shorten it. */
  mqttConnectTimeoutMs?: number;
  /** The endpoints served and their handlers (default: the built-in API); see AdminAppOptions. */
  api?: ServedApi;
}

export interface RunningCluster {
  /** Base URL of node 1. */
  baseUrl: string;
  /** Base URL of every node, by index (node id - 1). */
  nodeUrls: string[];
  cluster: Cluster;
  app: AdminApp;
  /** The MQTT listeners, when `mqttPort` was given. */
  mqtt?: MqttListeners;
  close(): Promise<void>;
}

/** Timeouts that keep slow or half-open connections from holding a listener (ms). */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often live mode moves virtual time on without requests (ms of wall time). */
const LIVE_TICK_MS = 200;

/** Reaches other nodes over HTTP at their registered address, as the real nodes do. */
class HttpPeers implements PeerTransport {
  private readonly agent = new Agent({ keepAliveTimeout: 4_000, connect: { timeout: 2_000 } });
  private token: string | undefined;

  constructor(private readonly cluster: Cluster) {}

  private async bearer(): Promise<string> {
    // Loopback peers need no token, but a cluster bound to another address does: get one once (the
    // nodes hold the signing secret; the admin password may be known only as its hash).
    if (!this.token) this.token = (await this.cluster.auth.issueToken()).token;
    return this.token;
  }

  async call(nodeId: number, method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<PeerReply> {
    const node = this.cluster.nodes.get(nodeId);
    if (!node || !node.httpAddr) throw new Error(`node ${nodeId} has no registered HTTP address`);
    const res = await request(`http://${node.httpAddr}${pathAndQuery}`, {
      method,
      dispatcher: this.agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await this.bearer()}` },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    return { status: res.statusCode, body: await res.body.text() };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

const EMPTY = { body: Buffer.alloc(0), tooLarge: false };

function readBody(req: IncomingMessage): { body: Buffer; tooLarge: boolean } | Promise<{ body: Buffer; tooLarge: boolean }> {
  // No Content-Length and no Transfer-Encoding: HTTP/1.1 framing says there is no body (most GETs).
  // Answer at once (not even a promise) instead of waiting for 'end'; resume() lets the parser finish the message.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return EMPTY;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Answer 413 at once rather than after the whole body (a slow sender could hold the
        // connection until the request timeout); keep draining so the client can read the answer.
        if (!tooLarge) resolve({ body: Buffer.alloc(0), tooLarge: true });
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve({ body: Buffer.concat(chunks), tooLarge }));
    req.on('error', reject);
    // A client gone before the body was complete: settle, so no request is left pending forever.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the connection closed before the request body was complete'));
    });
  });
}

/**
 * Serves the cluster: one HTTP listener per simulated node, all backed by one model. Virtual time
 * follows wall time (live mode). Each node registers the address it actually listens on, so
 * forwarding between nodes goes over real HTTP.
 */
export async function startClusterServer(options: ClusterServerOptions, prepared?: ServedModel): Promise<RunningCluster> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 58080;
  // `prepared`: a model restored from a checkpoint, with part of the recorded run applied already.
  const model = prepared ?? createServedModel(options);
  const { cluster, envelope } = model;
  const peers = new HttpPeers(cluster);
  const journalWrite = options.onModelWrite;
  // Writes whose answer is no HTTP response (MQTT ops, connections lost at a restart) wait through
  // durableOutput, not through the promise; a failure there is reported by the journal's owner.
  const journal = journalWrite
    ? (w: JournaledWrite): void => {
        const durable = journalWrite(w);
        if (durable instanceof Promise) durable.catch(() => {});
      }
    : undefined;
  const ui = options.ui !== undefined ? new StaticUi(options.ui) : undefined;
  const app = new AdminApp(cluster, {
    envelope,
    // A resumed run replays its history with time moved by hand, then follows the wall clock.
    clock: options.resume ? 'manual' : SYSTEM_WALL_CLOCK,
    peers,
    onInternalError: (e) => options.onInternalError?.(e),
    ...model.appOptions,
    // A user's password is journaled as the hash the model stored (journal-secrets.ts).
    ...(journalWrite ? { onModelWrite: (w) => journalWrite(journaled('api', sealedWrite(w, cluster.users))) } : {}),
  });
  if (options.resume) await resumeRun(model, app, options.resume, options.resumeSteps, journal);

  const control = options.control ? journaledControl(model, app, journalWrite) : undefined;
  const listeners = await listenOnNodes(cluster, app, {
    host,
    port,
    ...(options.durableOutput ? { outputGate: options.durableOutput } : {}),
    ...(control ? { control } : {}),
    ...(ui ? { ui } : {}),
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeoutMs: options.keepAliveTimeoutMs } : {}),
  });
  const { nodeUrls } = listeners;

  let mqtt: MqttListeners | undefined;
  if (options.mqttPort !== undefined) {
    try {
      mqtt = await startMqtt(model, app, options, { host, port: options.mqttPort }, journal);
    } catch (e) {
      await listeners.close();
      throw e;
    }
  }

  let nats: NatsBridge | undefined;
  if (options.nats) {
    try {
      nats = await startNatsBridge(cluster, {
        url: options.nats,
        beforeRequest: () => app.syncClock(),
        onError: (e) => options.onInternalError?.(e),
      });
    } catch (e) {
      await mqtt?.close();
      await listeners.close();
      throw new Error(`could not connect to NATS at ${options.nats}: ${(e as Error).message}`, { cause: e });
    }
  }

  let live: LiveConnectors | undefined;
  let liveTicker: NodeJS.Timeout | undefined;
  if (options.liveConnectors) ({ live, liveTicker } = startLiveConnectors(cluster, app, options));

  return {
    baseUrl: nodeUrls[0],
    nodeUrls,
    cluster,
    app,
    ...(mqtt ? { mqtt } : {}),
    async close() {
      // MQTT first: its connections end as lost, and the journal must still be open to record that.
      await mqtt?.close();
      await listeners.close();
      await nats?.close();
      if (liveTicker) clearInterval(liveTicker);
      await live?.close();
      await peers.close();
    },
  };
}

/**
 * Replays a stopped run's history onto the model, then follows the wall clock. MQTT clients connected
 * when the run stopped have no socket any more: their connections are lost now (wills go out, session
 * expiry starts), and that is journaled like any other change.
 */
async function resumeRun(
  model: ServedModel,
  app: AdminApp,
  resume: NonNullable<ClusterServerOptions['resume']>,
  resumeSteps: ClusterServerOptions['resumeSteps'],
  journal: ((w: JournaledWrite) => void) | undefined,
): Promise<void> {
  const cluster = model.cluster;
  await replayOnto(model, resume, resumeSteps);
  for (const { op, answer } of dropNetworkConnections(cluster)) {
    journal?.(journaledMqtt(cluster.now(), 1, op.op, encodeWireOp(op), wireAnswerText(answer)));
  }
  app.followWallClockFrom(SYSTEM_WALL_CLOCK, cluster.now());
}

/**
 * The control interface, journaling every control action that answers 200 (each changed the
 * simulation: faults, clients, time) with the virtual time it ran at, like an API write.
 */
function journaledControl(model: ServedModel, app: AdminApp, journalWrite: ClusterServerOptions['onModelWrite']): ControlHandler {
  const { cluster, envelope } = model;
  return (req: ControlHttpRequest) => {
    app.syncClock();
    const at = cluster.now();
    // Synced once, here: a second sync inside could move virtual time past `at` by a wall-clock
    // millisecond, and the journaled write would then replay at another time than it ran.
    const answer = controlHttpAnswer(cluster, envelope, () => {}, req);
    if (answer && journalWrite && req.method.toUpperCase() === 'POST' && answer.status === 200) {
      const body = req.body === undefined ? undefined : req.body.toString();
      // Answered once its record is durable.
      const durable = journalWrite(
        journaled('control', {
          at,
          nodeId: 1,
          method: 'POST',
          url: req.url,
          ...(body ? { body } : {}),
          status: answer.status,
          answer: answer.body,
        }),
      );
      if (durable instanceof Promise) return durable.then(() => answer);
    }
    return answer;
  };
}

/** The MQTT listeners of the nodes, journaling each operation when the run has a journal. */
function startMqtt(
  model: ServedModel,
  app: AdminApp,
  options: ClusterServerOptions,
  address: { host: string; port: number },
  journal: ((w: JournaledWrite) => void) | undefined,
): Promise<MqttListeners> {
  return startMqttListeners(model.cluster, {
    ...address,
    syncClock: () => app.syncClock(),
    ...(options.durableOutput ? { outputGate: options.durableOutput } : {}),
    ...(journal
      ? {
          journal: (e: WireJournalEntry) => journal(journaledMqtt(e.at, e.nodeId, e.op.op, encodeWireOp(e.op), wireAnswerText(e.answer))),
        }
      : {}),
    onInternalError: (e) => options.onInternalError?.(e),
    ...(options.mqttMaxSockets !== undefined ? { maxSockets: options.mqttMaxSockets } : {}),
    ...(options.mqttConnectTimeoutMs !== undefined ? { connectTimeoutMs: options.mqttConnectTimeoutMs } : {}),
  });
}

/**
 * Live connectors: real sinks report outcomes as engine events, and virtual time must keep moving
 * between HTTP requests for batches to be sent and outcomes applied, so a wall-clock ticker syncs it.
 */
function startLiveConnectors(
  cluster: ServedModel['cluster'],
  app: AdminApp,
  options: ClusterServerOptions,
): { live: LiveConnectors; liveTicker: NodeJS.Timeout } {
  const live = new LiveConnectors();
  const outages = cluster.connectors.outages;
  cluster.connectors.setSinkFactory(live.factory((c) => outageAwareSink(c, outages)));
  const liveTicker = setInterval(() => {
    try {
      app.syncClock();
    } catch (e) {
      options.onInternalError?.(e);
    }
  }, LIVE_TICK_MS);
  return { live, liveTicker };
}

/** The control interface as the listeners call it: undefined for a path it does not own. */
type ControlHandler = (req: ControlHttpRequest) => ControlHttpAnswer | Promise<ControlHttpAnswer> | undefined;

export interface NodeListenOptions {
  /** Address to listen on; the nodes register it (127.0.0.1 for a wildcard address). */
  host: string;
  /** HTTP port of node 1; node N listens on port + N - 1. 0 gives every node an ephemeral port. */
  port: number;
  /** Longest wait for a request's complete headers, in ms (default 10 000). */
  headersTimeoutMs?: number;
  /** Longest wait for a whole request, in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept, in ms (default 5 000). */
  keepAliveTimeoutMs?: number;
  /** Answers `/_sim/` requests (the control interface) before the API, when given (a promise: once its write is durable). */
  control?: ControlHandler;
  /** A built dashboard served from the API's origin. */
  ui?: StaticUi;
  /**
   * With a journal (`mqsim serve --state`): every answer waits until everything journaled before it
   * is durable, as the MQTT listener's packets do, so no answer (a read, a refusal) tells of a write
   * that a crash could still take back.
   */
  outputGate?: OutputGate;
}

export interface NodeListeners {
  /** Base URL of every node, by index (node id - 1). */
  nodeUrls: string[];
  /** Closes every listener and its connections. */
  close(): Promise<void>;
}

/**
 * One HTTP listener per node of the cluster, each handing its requests to `app` as that node. Each
 * node registers the address it actually listens on (`httpAddr`, `ports.http`), so forwarding
 * between nodes and the node records show the real ports. `mqsim serve` and the library's
 * `cluster.listen()` both serve through it.
 */
export async function listenOnNodes(cluster: Cluster, app: AdminApp, options: NodeListenOptions): Promise<NodeListeners> {
  const { host, port, control, ui, outputGate } = options;
  const registeredHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const servers: Server[] = [];
  const nodeUrls: string[] = [];
  const close = (): Promise<void> =>
    Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    ).then(() => {});
  try {
    for (const node of cluster.nodes.all()) {
      const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
      const requestTimeout = Math.max(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, headersTimeout);
      // Node checks the header and request timeouts only every connectionsCheckingInterval (30 s by
      // default), so a slow client could hold a connection far past them: check a few times per timeout.
      const checkEvery = Math.max(100, Math.min(headersTimeout, requestTimeout, 30_000) / 4);
      const server = createServer(
        { connectionsCheckingInterval: checkEvery },
        (req, res) => void serve(app, node.id, req, res, { control, ui, outputGate }),
      );
      server.headersTimeout = headersTimeout;
      server.requestTimeout = requestTimeout;
      server.keepAliveTimeout = options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
      server.on('clientError', answerClientError);
      const wanted = port === 0 ? 0 : node.ports.http;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(wanted, host, () => resolve());
      });
      servers.push(server);
      const actual = (server.address() as AddressInfo).port;
      node.ports.http = actual;
      node.httpAddr = `${registeredHost}:${actual}`;
      nodeUrls.push(`http://${registeredHost.includes(':') ? `[${registeredHost}]` : registeredHost}:${actual}`);
    }
  } catch (e) {
    await close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new Error(`port ${err.message.split(':').pop()} is already in use; pick another with --port (node N uses port + N - 1)`, {
        cause: e,
      });
    throw e;
  }
  return { nodeUrls, close };
}

/**
 * Requests Node's parser refuses (bad request line, header too large, headers or request too slow)
 * never reach the app; Node would answer them with a bare status line. Answer with an envelope
 * naming the problem instead, and close the connection (its framing can no longer be trusted).
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, text] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'request headers exceed the server limit (16 KiB)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADERS_TIMEOUT'
        ? [408, 'Request Timeout', 'the request was not received in time; the connection is closed']
        : [400, 'Bad Request', `malformed HTTP request (${err.code ?? 'parse error'}); the connection is closed`];
  const body = JSON.stringify({ code: status === 408 ? 408 : 400, message: text, data: null });
  // Headers were parsed and a response object exists (the body was malformed): answer through it.
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (pending) {
    if (pending.headersSent) socket.destroy();
    else
      pending
        .writeHead(status, {
          ...CORS_HEADERS,
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          connection: 'close',
        })
        .end(body);
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\naccess-control-allow-origin: *\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

async function serve(
  app: AdminApp,
  nodeId: number,
  req: IncomingMessage,
  res: ServerResponse,
  { control, ui, outputGate }: Pick<NodeListenOptions, 'control' | 'ui' | 'outputGate'>,
): Promise<void> {
  try {
    const read = readBody(req);
    const { body, tooLarge } = read instanceof Promise ? await read : read;
    // A browser's CORS preflight is answered before anything else: it carries no token (cors.ts).
    if (isPreflight(req.method ?? 'GET', req.headers)) {
      const pre = preflightAnswer(req.headers);
      res.writeHead(pre.status, pre.headers);
      res.end();
      return;
    }
    // The dashboard's files (--ui) take every path the server does not route, as the real static fallback.
    if (ui) {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const file = await ui.answer(req.method ?? 'GET', q === -1 ? url : url.slice(0, q), req.headers, req.socket.localPort ?? 0);
      if (file) {
        res.writeHead(file.status, { ...CORS_HEADERS, ...file.headers, 'content-length': String(file.body.length) });
        res.end(req.method === 'HEAD' ? undefined : file.body);
        return;
      }
    }
    // The control interface (when on) owns /_sim/ and is answered before the spec's API.
    const controlAnswer =
      control && !tooLarge
        ? control({ method: req.method ?? 'GET', url: req.url ?? '/', body, peer: req.socket.remoteAddress ?? '' })
        : undefined;
    const responding =
      controlAnswer ??
      app.respond({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        bodyTooLarge: tooLarge,
        peer: req.socket.remoteAddress ?? '',
        nodeId,
      });
    // A kept list answer comes at once (no promise): nothing to wait for.
    const answer: ControlHttpAnswer | ApiResponse = responding instanceof Promise ? await responding : responding;
    // What this answer tells may rest on writes not yet on disk (its own, or another client's it saw).
    const durable = outputGate?.whenDurable(outputGate.mark());
    if (durable) await durable;
    // Encoded once (or kept encoded by the app): its length is the content-length and the bytes are sent as they are.
    const kept = 'bytes' in answer ? answer.bytes : undefined;
    const bytes = kept ?? Buffer.from(answer.body);
    const headers: Record<string, string> = {
      ...CORS_HEADERS,
      ...answer.headers,
      'content-length': String(bytes.length),
    };
    if (tooLarge) headers.connection = 'close';
    res.writeHead(answer.status, headers);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  } catch (e) {
    // The journal could not make the write durable: no answer at all (the process is stopping).
    if (e instanceof JournalFailure) res.destroy();
    else if (!res.headersSent) {
      res.writeHead(400, { ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ code: 400, message: `could not read the request: ${(e as Error).message}`, data: null }));
    } else res.destroy();
  }
}
