import { Cluster } from '../sim/model/cluster/cluster.ts';
import { controlHttpAnswer } from '../sim/io/control/control-http.ts';
import { AdminApp } from '../sim/admin-api/admin-app.ts';
import { listenOnNodes } from '../sim/io/serve/cluster-server.ts';
import { SYSTEM_WALL_CLOCK } from '../sim/io/serve/wall-clock.ts';
import { resolveDeviations } from '../sim/switches/resolve-switches.ts';
import { DIALECT_NAMES, DIALECTS, switchesOf, type DialectName } from '../sim/switches/dialects.ts';
import type { EnvelopeForm } from '../sim/admin-api/envelope.ts';
import { interceptOrigin, type Interception, type InterceptOptions } from '../sim/io/http/intercept.ts';
import type { InvariantViolation } from '../sim/model/invariants/invariant-registry.ts';
import {
  connectorControls,
  control,
  mq9Controls,
  mqttControls,
  networkControls,
  nodeControls,
  type ConnectorControls,
  type Mq9Controls,
  type MqttControls,
  type NetworkControls,
  type NodeControls,
} from './cluster-controls.ts';

/** Options of {@link createCluster}. Every one has a default; one seed and one set of calls give one run. */
export interface CreateClusterOptions {
  /** Number of nodes, 1-9 (default 3). */
  nodes?: number;
  /** Seed of every random choice: elections, latencies, the demo population (default 1). */
  seed?: string | number;
  /**
   * `demo` (default): a living population as `mqsim serve` has it (tenants, users, ~60 MQTT clients
   * with sessions and subscriptions, publishes, connectors, mq9 mailboxes, monitor samples every
   * 60 virtual seconds); `none`: an empty cluster with the `default` tenant only.
   */
  workload?: 'demo' | 'none';
  /**
   * `spec` (default): answers as the spec says. `robustmq`: as the real RobustMQ server does where it
   * differs (envelope B, code 100, its page sizes and forms; `mqsim serve --help` lists each switch).
   */
  dialect?: DialectName;
  /** Envelope form: A `{code, message, data}` or B `{code, data, error}` (default: the dialect's, A for `spec`). */
  envelope?: EnvelopeForm;
  /** Size of the demo population (default: the hand-made demo, about 60 clients). */
  clients?: number;
  /** Virtual time when the cluster is handed over: a Date, an ISO time or Unix ms (default 2026-01-01T00:00:00Z, so runs read the same everywhere). */
  epoch?: Date | string | number;
  /**
   * Virtual history simulated before the hand-over, in ms (default: one hour with the demo workload,
   * as `mqsim serve`, so monitor series have points; 0 without). About 1 s of wall time for the hour;
   * 0 starts in ≈50 ms.
   */
  warmUpMs?: number;
  /** The administrator of the admin API (default admin / admin, a development signing secret, 8-hour tokens). */
  admin?: { username?: string; password?: string; jwtSecret?: string; tokenTtlHours?: number };
  /**
   * The admin API's rate limit, requests per second per path (config `max_admin_http_uri_rate`;
   * default 50, the server's default; 0: no limit). It counts on virtual time: with the manual clock,
   * the 51st request to one path before the next {@link SimulatedCluster.advance} is answered 429.
   */
  adminRateLimit?: number;
  /**
   * `manual` (default): virtual time moves only through {@link SimulatedCluster.advance} and the
   * actions, so a test is repeatable. `wall`: it also follows wall time from the epoch, as
   * `mqsim serve` does (caught up before every request), for a cluster served to a browser or another
   * process with {@link SimulatedCluster.listen}; runs are then no longer repeatable.
   */
  clock?: 'manual' | 'wall';
}

/** An answer of the admin API. */
export interface ClusterResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The body as text. */
  text: string;
  /** The body parsed, when it is JSON; else undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an API answer read by the caller's own code, as fetch's Response.json() gives it
  json: any;
}

/** Options of {@link SimulatedCluster.request}. */
export interface ClusterRequestOptions {
  /** TCP peer address the API sees (default 127.0.0.1: loopback, which needs no token). */
  peer?: string;
  /** Node whose listener receives the request (default 1). */
  nodeId?: number;
  headers?: Record<string, string>;
}

/** Options of {@link SimulatedCluster.listen}. */
export interface ListenOptions {
  /** Port of node 1; node N listens on port + N - 1 (default 0: an ephemeral port for every node). */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Also serve the control interface under `/_sim/` (loopback peers only), as `mqsim serve --control`. */
  control?: boolean;
}

/** The cluster's HTTP listeners, one per node. */
export interface ClusterListeners {
  /** Base URL of node 1. */
  url: string;
  /** Base URL of every node, by index (node id - 1). */
  urls: string[];
  /** Closes the listeners (the cluster stays). */
  close(): Promise<void>;
}

/**
 * A simulated broker cluster in this process, serving the admin HTTP API from its model on a
 * virtual clock that moves only when {@link SimulatedCluster.advance} (or an action) moves it: what a
 * test sees is a function of the seed and its own calls.
 */
export interface SimulatedCluster {
  /** The options the cluster was created with, defaults filled in. */
  readonly options: Readonly<
    Required<Pick<CreateClusterOptions, 'nodes' | 'workload' | 'dialect' | 'envelope' | 'warmUpMs' | 'clock'>> & {
      seed: string;
      epochMs: number;
    }
  >;
  /** Virtual now, Unix ms. */
  readonly now: number;
  /** Runs virtual time forward by `ms`, running every event that falls due (elections, deliveries, expiries, monitor samples); returns the number of events run. */
  advance(ms: number): number;
  /** Node lifecycle. */
  readonly nodes: NodeControls;
  /** The simulated network between nodes. */
  readonly network: NetworkControls;
  /** Connector sinks. */
  readonly connectors: ConnectorControls;
  /** MQTT clients of the broker model. */
  readonly mqtt: MqttControls;
  /** mq9 mailboxes and agents. */
  readonly mq9: Mq9Controls;
  /**
   * Sends one request to the admin API in-process (no socket). `body` is sent as JSON; a `path` with
   * a query string is sent as is.
   */
  request(method: string, path: string, body?: unknown, options?: ClusterRequestOptions): Promise<ClusterResponse>;
  /**
   * Answers every request this process makes to `origin` (e.g. `http://broker:58080`) from this
   * cluster, through `http`/`https` (axios, got...), the global `fetch` and undici's API, opening no
   * socket; other origins pass through untouched. Requests come from a peer that is not loopback
   * (`203.0.113.10`), so tokens are checked as for a remote client; give `peer: '127.0.0.1'` to
   * skip the login. Call `dispose()` on the result to stop (also done by {@link SimulatedCluster.close}).
   */
  intercept(origin: string, options?: InterceptOptions): Interception;
  /** Serves the cluster on HTTP listeners, one per node, e.g. for a browser or a client in another process. */
  listen(options?: ListenOptions): Promise<ClusterListeners>;
  /** Rolling SHA-256 over every state change so far: one seed and one sequence of calls give one hash. */
  readonly traceHash: string;
  /** Number of state changes recorded so far. */
  readonly traceLength: number;
  /** Runs every invariant checker of the model (Raft, storage) now; an empty list means all hold. */
  checkInvariants(): InvariantViolation[];
  /** Disposes the interceptions and closes the listeners made through this cluster. */
  close(): Promise<void>;
}

const DEMO_WARM_UP_MS = 3_600_000;
const DEFAULT_EPOCH = '2026-01-01T00:00:00Z';

function epochMsOf(epoch: Date | string | number): number {
  const ms = epoch instanceof Date ? epoch.getTime() : typeof epoch === 'number' ? epoch : Date.parse(epoch);
  if (!Number.isFinite(ms)) throw new TypeError(`epoch must be a Date, an ISO time or Unix ms, got ${JSON.stringify(epoch)}`);
  return ms;
}

class InProcessCluster implements SimulatedCluster {
  readonly options: SimulatedCluster['options'];
  readonly nodes: NodeControls;
  readonly network: NetworkControls;
  readonly connectors: ConnectorControls;
  readonly mqtt: MqttControls;
  readonly mq9: Mq9Controls;
  private readonly interceptions = new Set<Interception>();
  private readonly listeners = new Set<ClusterListeners>();

  constructor(
    /** @internal */ readonly model: Cluster,
    /** @internal */ readonly app: AdminApp,
    options: SimulatedCluster['options'],
  ) {
    this.options = options;
    this.nodes = nodeControls(model);
    this.network = networkControls(model);
    this.connectors = connectorControls(model);
    this.mqtt = mqttControls(model);
    this.mq9 = mq9Controls(model);
  }

  get now(): number {
    this.app.syncClock();
    return this.model.now();
  }

  advance(ms: number): number {
    this.app.syncClock();
    return control<{ events_run: number }>(this.model, 'POST', 'clock/advance', { ms }).events_run;
  }

  async request(method: string, path: string, body?: unknown, options: ClusterRequestOptions = {}): Promise<ClusterResponse> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const res = await this.app.handle({
      method: method.toUpperCase(),
      url: path,
      headers: { ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...lowerCased(options.headers ?? {}) },
      ...(text !== undefined ? { body: text } : {}),
      peer: options.peer ?? '127.0.0.1',
      nodeId: options.nodeId ?? 1,
    });
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text: res.body, json };
  }

  intercept(origin: string, options: InterceptOptions = {}): Interception {
    const interception = interceptOrigin(this.app, origin, options);
    this.interceptions.add(interception);
    return {
      get origin() {
        return interception.origin;
      },
      get served() {
        return interception.served;
      },
      get dispatcher() {
        return interception.dispatcher;
      },
      dispose: () => {
        this.interceptions.delete(interception);
        interception.dispose();
      },
    };
  }

  async listen(options: ListenOptions = {}): Promise<ClusterListeners> {
    const envelope = this.options.envelope;
    const running = await listenOnNodes(this.model, this.app, {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      ...(options.control ? { control: (req) => controlHttpAnswer(this.model, envelope, () => {}, req) } : {}),
    });
    const listeners: ClusterListeners = {
      url: running.nodeUrls[0],
      urls: running.nodeUrls,
      close: async () => {
        this.listeners.delete(listeners);
        await running.close();
      },
    };
    this.listeners.add(listeners);
    return listeners;
  }

  get traceHash(): string {
    return this.model.engine.trace.hash;
  }

  get traceLength(): number {
    return this.model.engine.trace.length;
  }

  checkInvariants(): InvariantViolation[] {
    return [...this.model.invariants.checkAll(this.model.now(), this.model.engine.eventsProcessed)];
  }

  async close(): Promise<void> {
    for (const i of [...this.interceptions]) i.dispose();
    await Promise.all([...this.listeners].map((l) => l.close()));
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * Creates a simulated cluster in this process: the admin HTTP API of `mqsim serve`, served from
 * the same model, driven by the test instead of the wall clock.
 *
 * @example
 * ```ts
 * const cluster = createCluster({ nodes: 3, seed: 7, workload: 'demo', dialect: 'spec' });
 * const interception = cluster.intercept('http://broker:58080', { peer: '127.0.0.1' });
 * cluster.nodes.crash(cluster.nodes.leader()!);
 * cluster.advance(5_000);                               // a new leader is elected
 * await fetch('http://broker:58080/api/status');        // answered in-process
 * await cluster.close();
 * ```
 */
export function createCluster(options: CreateClusterOptions = {}): SimulatedCluster {
  const dialect = options.dialect ?? 'spec';
  if (!DIALECT_NAMES.includes(dialect))
    throw new TypeError(`dialect must be one of ${DIALECT_NAMES.join(', ')}, got ${JSON.stringify(dialect)}`);
  const workload = options.workload ?? 'demo';
  if (workload !== 'demo' && workload !== 'none') throw new TypeError(`workload must be demo or none, got ${JSON.stringify(workload)}`);
  const envelope = options.envelope ?? DIALECTS[dialect].envelope;
  const warmUpMs = options.warmUpMs ?? (workload === 'demo' ? DEMO_WARM_UP_MS : 0);
  const epochMs = epochMsOf(options.epoch ?? DEFAULT_EPOCH);
  const model = new Cluster({
    seed: options.seed ?? 1,
    nodes: options.nodes ?? 3,
    workload,
    epochMs,
    warmUpMs,
    ...(options.admin ? { admin: Object.fromEntries(Object.entries(options.admin).filter(([, v]) => v !== undefined)) } : {}),
  });
  if (options.clients !== undefined) model.mqtt.demo.setTargetSize(options.clients);
  model.start();
  if (options.adminRateLimit !== undefined) model.config.set('ClusterLimit', { max_admin_http_uri_rate: options.adminRateLimit });
  const switches = switchesOf(dialect);
  const clock = options.clock ?? 'manual';
  const app = new AdminApp(model, {
    envelope,
    clock: clock === 'wall' ? SYSTEM_WALL_CLOCK : 'manual',
    ...(switches.length > 0 ? { deviations: resolveDeviations(switches) } : {}),
  });
  return new InProcessCluster(model, app, {
    nodes: model.options.nodes,
    workload,
    dialect,
    envelope,
    warmUpMs,
    clock,
    seed: model.options.seed,
    epochMs,
  });
}

/** The model and app behind a cluster made by {@link createCluster}, for the library's own modules (conform). */
export function internalsOf(cluster: SimulatedCluster): { model: Cluster; app: AdminApp } | undefined {
  return cluster instanceof InProcessCluster ? { model: cluster.model, app: cluster.app } : undefined;
}
