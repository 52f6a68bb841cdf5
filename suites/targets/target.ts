/**
 * A server the conformance suites talk to: any URL, or the embedded simulator. The suites only see
 * this interface, so they never depend on how (or whether) the server is simulated.
 */

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface TargetRequest {
  method: string;
  /** Path without query, e.g. `/api/cluster/tenant/list`. */
  path: string;
  /** Query parameters; arrays become repeated keys. A string is appended verbatim (already encoded). */
  query?: Record<string, QueryValue> | string;
  /** JSON body (serialised by the target). */
  body?: unknown;
  /** A body sent exactly as given, instead of `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /**
   * Send from a non-loopback address, so the server's loopback exemption does not apply. Only
   * meaningful when `capabilities.remotePeer.available`.
   */
  asRemotePeer?: boolean;
  /**
   * Send from `capabilities.loopbackPeer`, a loopback address other than 127.0.0.1 (the spec exempts
   * only 127.0.0.1 and ::1, so a server exempting all of 127.0.0.0/8 shows there). Only meaningful
   * when that capability is set.
   */
  asLoopbackPeer?: boolean;
  /** `token` (default): the run's Bearer token if there is one; `none`: no Authorization header. */
  auth?: 'token' | 'none';
}

export interface TargetResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
  /** Parsed body when it is JSON. */
  json?: unknown;
  durationMs: number;
  /** How many 429 answers were waited out before this one. */
  retries: number;
}

export interface Capability {
  available: boolean;
  /** Why it is unavailable (reported as the reason of skipped checks). */
  reason?: string;
}

export interface TargetCapabilities {
  /**
   * Requests can come from an address the server must treat as remote (needs a token): either the
   * target is remote anyway, or a second local address (127.0.0.2) can be bound.
   */
  remotePeer: Capability;
  /** The target is reached over loopback, where the spec exempts requests from a token. */
  loopback: boolean;
  /**
   * How `asRemotePeer` requests reach the target: from the local `address` (127.0.0.2), or to
   * `baseUrl` at one of this host's own non-loopback addresses (a server listening on every
   * interface then sees a truly remote peer).
   */
  remoteVia?: { address: string; baseUrl?: string };
  /**
   * A loopback address other than 127.0.0.1 that `asLoopbackPeer` requests come from (the remote
   * peer's own when it is one, else 127.0.0.2), on a target reached over IPv4 loopback; unset when
   * none can be sent from. With a non-loopback remote peer, both peers are checked in one run.
   */
  loopbackPeer?: string;
  /**
   * The target keeps requests within a per-path budget of its own (a URL target: the server's
   * `max_admin_http_uri_rate`, or none while the server announces 0), so callers need no pacing of their own.
   */
  pacedPerPath?: boolean;
}

/** An IPv4 loopback address (127.0.0.0/8), also in its IPv6-mapped form. */
export function isLoopbackV4(address: string): boolean {
  return /^(::ffff:)?127\./i.test(address);
}

/** Outcome of one MQTT client action through a driver: done, or why not. */
export type MqttOutcome = { ok: true } | { ok: false; reason: string };

/** One MQTT client connection opened by the run (to see its effects in the admin API). */
export interface MqttClientSession {
  readonly clientId: string;
  subscribe(filter: string, qos: 0 | 1 | 2): Promise<MqttOutcome>;
  publish(topic: string, payload: string, options: { qos: 0 | 1; retain: boolean }): Promise<MqttOutcome>;
  /** A normal DISCONNECT (the session ends: the run connects with a clean session). */
  close(): Promise<void>;
}

/** A way to act as an MQTT client against the target: its MQTT listener, or the simulator's model. */
export interface MqttDriver {
  /** How the client reaches the broker, for messages (e.g. `MQTT 3.1.1 over TCP at 127.0.0.1:1883`). */
  readonly via: string;
  /** Tenant the driver's clients belong to, when known (the simulator's control names it). */
  readonly tenant?: string;
  connect(clientId: string): Promise<MqttClientSession | { ok: false; reason: string }>;
}

/**
 * The simulator's control interface: actions the admin API does not offer (process life, protocol
 * commands, virtual time). Only `--target sim` has one; checks that need it are skipped elsewhere.
 */
export interface TargetControl {
  /** Lets `ms` of the target's time pass, running whatever falls due (connector scheduling, elections). */
  advance(ms: number): Promise<void>;
  /** Number of nodes the cluster was started with. */
  readonly nodeCount: number;
  stopNode(id: number): void;
  startNode(id: number, options?: { wiped?: boolean }): void;
  setPortsReady(nodeId: number, ready: boolean): void;
  setMq9Running(running: boolean): void;
  /** mq9 `AGENT.MAILBOX.CREATE`. */
  createMailbox(input: { tenant: string; name: string; ttl: number; desc: string }): void;
  /** mq9 `AGENT.REGISTER`. */
  registerAgent(input: { tenant: string; name: string; agent_info: string }): void;
  stopConnector(tenant: string, name: string): void;
  resumeConnector(tenant: string, name: string): void;
  /** Marks a connector's external target (its type's target key value, e.g. a webhook url) down or up: every send to it fails. */
  setConnectorTargetDown(target: string, down: boolean): void;
  /** MQTT client actions through the model, in the given tenant. */
  mqtt(tenant: string): MqttDriver;
}

export interface Target {
  /** What the user named: the URL, or `sim`. */
  readonly name: string;
  /** Base URL requests go to (no trailing slash). */
  readonly baseUrl: string;
  readonly capabilities: TargetCapabilities;
  /** The simulator's control interface, when the target is the simulator. */
  readonly control?: TargetControl;
  /** Credentials the run may log in with, when known. */
  readonly credentials?: { username: string; password: string };
  /** The Bearer token in use, if the run logged in. */
  readonly token?: string;
  /**
   * The server's token signing secret, when the run knows it (the simulator's): lets the auth checks
   * send a correctly signed but expired token, which only an expiry check refuses.
   */
  readonly signingSecret?: string;
  /** Logs in with `credentials` and keeps the token for every later request. */
  login(): Promise<TargetResponse>;
  request(req: TargetRequest): Promise<TargetResponse>;
  close(): Promise<void>;
}

/** A request that got no HTTP answer (timeout, refused connection, reset). */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly durationMs: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** `path?query` of a request, with the same encoding the targets use on the wire. */
export function pathWithQuery(path: string, query: TargetRequest['query']): string {
  if (query === undefined) return path;
  if (typeof query === 'string') return query === '' ? path : `${path}?${query}`;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * A target that passes everything to an inner one: a subclass changes what it is for (watching the
 * requests, refusing some) and leaves the rest, control interface and credentials included, as is.
 */
export class ForwardingTarget implements Target {
  constructor(protected readonly inner: Target) {}

  get name(): string {
    return this.inner.name;
  }
  get baseUrl(): string {
    return this.inner.baseUrl;
  }
  get capabilities(): TargetCapabilities {
    return this.inner.capabilities;
  }
  get control(): TargetControl | undefined {
    return this.inner.control;
  }
  get credentials(): Target['credentials'] {
    return this.inner.credentials;
  }
  get token(): string | undefined {
    return this.inner.token;
  }
  get signingSecret(): string | undefined {
    return this.inner.signingSecret;
  }

  login(): Promise<TargetResponse> {
    return this.inner.login();
  }

  request(req: TargetRequest): Promise<TargetResponse> {
    return this.inner.request(req);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * A target that answers through an inner target and owns something to stop when it closes (the
 * simulator it started, a container). Subclasses add how they start and what else they expose.
 */
export abstract class WrappingTarget implements Target {
  abstract readonly name: string;

  protected constructor(
    protected readonly inner: Target,
    private readonly stopOwned: () => Promise<unknown>,
  ) {}

  get baseUrl(): string {
    return this.inner.baseUrl;
  }

  get capabilities(): TargetCapabilities {
    return this.inner.capabilities;
  }

  get credentials(): { username: string; password: string } | undefined {
    return this.inner.credentials;
  }

  get token(): string | undefined {
    return this.inner.token;
  }

  login(): Promise<TargetResponse> {
    return this.inner.login();
  }

  request(req: TargetRequest): Promise<TargetResponse> {
    return this.inner.request(req);
  }

  /** Closes the inner target first, then stops what this target started. */
  async close(): Promise<void> {
    await this.inner.close();
    await this.stopOwned();
  }
}
