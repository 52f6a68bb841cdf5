import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Agent, request as undiciRequest } from 'undici';
import { announcedPathRate, PathBudget, SPEC_PATH_RATE } from './path-budget.ts';
import {
  isLoopbackV4,
  pathWithQuery,
  TransportError,
  type Capability,
  type Target,
  type TargetCapabilities,
  type TargetRequest,
  type TargetResponse,
} from './target.ts';

export interface UrlTargetOptions {
  /** `http://host:port` (a path prefix is kept). */
  url: string;
  /** Name shown in reports; defaults to the URL. */
  name?: string;
  username?: string;
  password?: string;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Client-side limit: at most this many requests per second (default: unlimited). */
  rate?: number;
  /**
   * Requests per second per path the target takes (default: the spec's `max_admin_http_uri_rate`,
   * 50, until a config get answer announces the target's own); 0: no per-path budget.
   */
  pathRate?: number;
  /** How many 429 answers are waited out per request before the 429 is returned (default 3). */
  maxRetries?: number;
  /** Longest wait for one 429, in seconds, whatever `Retry-After` says (default 10). */
  maxRetryAfterSeconds?: number;
  /**
   * Local address `asRemotePeer` requests are sent from (`--peer-address`): one the spec does not
   * exempt. Default: this host's own non-loopback address when the server listens there, else
   * 127.0.0.2 for a loopback target, and no binding at all for a remote one.
   */
  remoteLocalAddress?: string;
  /**
   * Whether the server sees the run's requests as loopback (default: the URL's host is 127.0.0.1,
   * localhost or ::1). A container behind a mapped port is reached on localhost but is not loopback.
   */
  loopback?: boolean;
  /** The server's token signing secret, when known (enables the correctly-signed-expired-token check). */
  signingSecret?: string;
  /** Injectable sleep, for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Largest response body read, in bytes (default 10 MiB); a longer one is a transport error. */
  maxResponseBytes?: number;
  /**
   * After this many timeouts in a row (default 5) the target counts as unresponsive: further
   * requests fail at once with that reason, except one probe every few seconds, sent to see whether
   * it came back. Keeps a hung target from stretching a run to (requests × timeout).
   */
  maxConsecutiveTimeouts?: number;
}

/** While a target is unresponsive, a request is still sent as a probe at most this often (ms). */
const PROBE_INTERVAL_MS = 3_000;

/** Default cap on a response body: far above any admin answer, far below what could exhaust memory. */
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Reads a body up to `limit` bytes; past it, stops reading (the connection is dropped) and throws. */
async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(err?: Error): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw Object.assign(new Error(`response body exceeds ${limit} bytes; reading stopped`), { code: 'MQSIM_BODY_TOO_LARGE' });
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The command-line flag that chooses the non-exempt peer address, named in reasons. */
const PEER_FLAG = '--peer-address';
/** The loopback address other than 127.0.0.1 a run sends from (Linux routes all of 127/8 to lo). */
const SECOND_LOOPBACK = '127.0.0.2';

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The per-path budget; with an injected sleep (tests) its clock is the time slept, so a budget wait
 * is one sleep of the wait's length whether or not the sleep really waits.
 */
function budgetFor(perSecond: number, sleep: UrlTargetOptions['sleep']): PathBudget {
  if (!sleep) return new PathBudget(perSecond);
  let slept = 0;
  return new PathBudget(
    perSecond,
    () => slept,
    async (ms) => {
      slept += ms;
      await sleep(ms);
    },
  );
}

/** Parses and checks a target URL; throws a message fit for a usage error. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--target must be "sim" or an http(s) URL such as http://127.0.0.1:58080, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--target URL must use http or https, got ${url.protocol}`);
  if (url.search || url.hash) throw new Error(`--target URL must not carry a query or fragment: ${raw}`);
  return url;
}

/** Can a TCP connection to host:port be opened from `localAddress`? */
function probeBind(host: string, port: number, localAddress: string, timeoutMs: number): Promise<Capability> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, localAddress });
    const done = (result: Capability) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done({ available: false, reason: `no connection from ${localAddress} within ${timeoutMs} ms` }));
    socket.once('connect', () => done({ available: true }));
    socket.once('error', (e) => done({ available: false, reason: `cannot connect from ${localAddress}: ${(e as Error).message}` }));
  });
}

/**
 * A server at a URL, reached with undici over keep-alive connections. Logs in when given
 * credentials (Bearer on every request), waits out 429 answers per `Retry-After` (bounded), and can
 * pace requests client-side. For a loopback URL, a second agent bound to 127.0.0.2 plays a
 * non-loopback peer: the spec exempts only 127.0.0.1 and ::1, and Linux routes all of 127/8 to lo.
 * `remoteLocalAddress` (`--peer-address`) chooses that peer's address for any URL.
 */
export class UrlTarget implements Target {
  readonly name: string;
  readonly baseUrl: string;
  readonly credentials?: { username: string; password: string };
  readonly signingSecret?: string;
  capabilities: TargetCapabilities;
  token?: string;
  private readonly url: URL;
  private readonly agent: Agent;
  private remoteAgent?: Agent;
  /** Agent bound to `capabilities.loopbackPeer` when the remote peer is not a loopback address. */
  private loopbackAgent?: Agent;
  /** Base URL of `asRemotePeer` requests when they go to a non-loopback address of this host. */
  private remoteBaseUrl?: string;
  private readonly timeoutMs: number;
  private readonly minIntervalMs: number;
  private readonly maxRetries: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly maxResponseBytes: number;
  private readonly maxConsecutiveTimeouts: number;
  private consecutiveTimeouts = 0;
  private lastSentAt = 0;
  private readonly sleep: (ms: number) => Promise<void>;
  private nextSlot = 0;
  /** Per-path budget shared by every caller (concurrent checks, property suites); 429s hold a path for all. */
  private readonly budget: PathBudget;

  private constructor(options: UrlTargetOptions) {
    this.url = parseTargetUrl(options.url);
    this.baseUrl = `${this.url.origin}${this.url.pathname.replace(/\/+$/, '')}`;
    this.name = options.name ?? options.url;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.minIntervalMs = options.rate && options.rate > 0 ? 1000 / options.rate : 0;
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 10;
    this.sleep = options.sleep ?? defaultSleep;
    this.budget = budgetFor(options.pathRate ?? SPEC_PATH_RATE, options.sleep);
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.maxConsecutiveTimeouts = options.maxConsecutiveTimeouts ?? 5;
    if (options.username !== undefined && options.password !== undefined)
      this.credentials = { username: options.username, password: options.password };
    if (options.signingSecret) this.signingSecret = options.signingSecret;
    this.agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
    const loopback = options.loopback ?? LOOPBACK_HOSTS.has(this.url.hostname);
    this.capabilities = {
      loopback,
      remotePeer: loopback ? { available: false, reason: 'not probed yet' } : { available: true },
      pacedPerPath: this.budget.perSecond > 0,
    };
  }

  /** Creates the target and probes whether a non-loopback local address can reach it. */
  static async create(options: UrlTargetOptions): Promise<UrlTarget> {
    const target = new UrlTarget(options);
    const chosen = options.remoteLocalAddress;
    if (!target.capabilities.loopback && chosen === undefined) return target;
    const host = target.url.hostname === 'localhost' ? '127.0.0.1' : target.url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(target.url.port || (target.url.protocol === 'https:' ? 443 : 80));
    const lan = host === '::1' || chosen !== undefined ? undefined : await target.probeOwnAddresses(port);
    if (lan) {
      // The server listens on every interface: reach it at this host's own address, a truly remote peer.
      target.remoteBaseUrl = lan.baseUrl;
      target.remoteAgent = new Agent({ keepAliveTimeout: 10_000, connections: 4 });
      target.capabilities.remotePeer = { available: true };
      target.capabilities.remoteVia = lan;
    } else if (host === '::1' && chosen === undefined) {
      target.capabilities.remotePeer = {
        available: false,
        reason: `the target listens on ::1; no second IPv6 loopback address to send from: give one of this host's addresses with ${PEER_FLAG}`,
      };
    } else {
      const localAddress = chosen ?? SECOND_LOOPBACK;
      const probe = await probeBind(host, port, localAddress, Math.min(target.timeoutMs, 3000));
      const hint = chosen === undefined ? `; give another address of this host with ${PEER_FLAG}` : ` (${PEER_FLAG})`;
      target.capabilities.remotePeer = probe.available
        ? { available: true }
        : { available: false, reason: `auth checks need a non-loopback peer: ${probe.reason}${hint}` };
      if (probe.available) {
        target.remoteAgent = new Agent({ keepAliveTimeout: 10_000, connections: 4, localAddress });
        target.capabilities.remoteVia = { address: localAddress };
      }
    }
    if (target.capabilities.loopback && host !== '::1') await target.bindLoopbackPeer(host, port);
    return target;
  }

  /**
   * The loopback peer of `asLoopbackPeer` requests: the remote peer itself when it is a loopback
   * address; else 127.0.0.2 when this host can send from it, so a run whose auth checks go from a
   * non-loopback address still sees a server exempting all of 127.0.0.0/8.
   */
  private async bindLoopbackPeer(host: string, port: number): Promise<void> {
    const via = this.capabilities.remoteVia;
    if (via && !via.baseUrl && isLoopbackV4(via.address)) {
      this.capabilities.loopbackPeer = via.address;
      return;
    }
    const probe = await probeBind(host, port, SECOND_LOOPBACK, Math.min(this.timeoutMs, 3000));
    if (!probe.available) return;
    this.loopbackAgent = new Agent({ keepAliveTimeout: 10_000, connections: 2, localAddress: SECOND_LOOPBACK });
    this.capabilities.loopbackPeer = SECOND_LOOPBACK;
  }

  /** The first non-loopback IPv4 address of this host at which the target's port answers, if any. */
  private async probeOwnAddresses(port: number): Promise<{ address: string; baseUrl: string } | undefined> {
    const own = Object.values(networkInterfaces())
      .flat()
      .filter((a): a is NonNullable<typeof a> => a !== undefined && a.family === 'IPv4' && !a.internal)
      .map((a) => a.address);
    for (const address of own) {
      const probe = await probeBind(address, port, address, 500);
      if (probe.available) return { address, baseUrl: `${this.url.protocol}//${address}:${port}${this.url.pathname.replace(/\/+$/, '')}` };
    }
    return undefined;
  }

  async login(): Promise<TargetResponse> {
    if (!this.credentials) throw new Error('no credentials to log in with (--username and --password)');
    const res = await this.request({ method: 'POST', path: '/api/v1/login', body: this.credentials, auth: 'none' });
    const data = (res.json as { data?: { token?: unknown } } | undefined)?.data;
    if (res.status === 200 && typeof data?.token === 'string') this.token = data.token;
    return res;
  }

  private async pace(): Promise<void> {
    if (this.minIntervalMs === 0) return;
    const now = performance.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.minIntervalMs;
    if (slot > now) await this.sleep(slot - now);
  }

  /**
   * Sends within the path's budget; a 429 holds the path (for every caller) for its `Retry-After`,
   * then the request goes again, up to `maxRetries` times. A config get answer announcing the
   * target's per-path limit becomes the budget.
   */
  async request(req: TargetRequest): Promise<TargetResponse> {
    let retries = 0;
    for (;;) {
      await this.budget.take(req.path);
      const res = await this.once(req);
      if (res.status === 200 && req.path === '/api/cluster/config/get' && this.capabilities.pacedPerPath) {
        const announced = announcedPathRate(res.json);
        if (announced !== undefined) this.budget.setLimit(announced);
      }
      if (res.status !== 429 || retries >= this.maxRetries) return { ...res, retries };
      const after = Number(res.headers['retry-after']);
      const seconds = Number.isFinite(after) && after >= 0 ? Math.min(after, this.maxRetryAfterSeconds) : 1;
      retries++;
      this.budget.hold(req.path, seconds * 1000);
    }
  }

  private async once(req: TargetRequest): Promise<TargetResponse> {
    await this.pace();
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
    let body: string | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) body = JSON.stringify(req.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if ((req.auth ?? 'token') === 'token' && this.token) headers.authorization = `Bearer ${this.token}`;
    Object.assign(headers, req.headers ?? {});
    if (req.asLoopbackPeer && !this.capabilities.loopbackPeer)
      throw new TransportError('no second loopback address to send from (127.0.0.2 cannot be bound)', 0);
    const fromLoopbackPeer = req.asLoopbackPeer && this.loopbackAgent;
    const dispatcher = fromLoopbackPeer
      ? this.loopbackAgent!
      : (req.asRemotePeer || req.asLoopbackPeer) && this.remoteAgent
        ? this.remoteAgent
        : this.agent;
    if (req.asRemotePeer && !this.remoteAgent && this.capabilities.loopback) {
      throw new TransportError(`no non-loopback peer available: ${this.capabilities.remotePeer.reason}`, 0);
    }
    const url = `${req.asRemotePeer && this.remoteBaseUrl ? this.remoteBaseUrl : this.baseUrl}${pathWithQuery(req.path, req.query)}`;
    if (
      this.consecutiveTimeouts >= this.maxConsecutiveTimeouts &&
      performance.now() - this.lastSentAt < PROBE_INTERVAL_MS + this.timeoutMs
    ) {
      throw new TransportError(
        `${req.method} ${url}: not sent: the last ${this.consecutiveTimeouts} requests got no answer within ${this.timeoutMs} ms (--timeout); the target is treated as unresponsive (probed every ${PROBE_INTERVAL_MS / 1000} s)`,
        0,
      );
    }
    const started = performance.now();
    this.lastSentAt = started;
    try {
      const res = await undiciRequest(url, {
        dispatcher,
        method: req.method as 'GET',
        headers,
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // Redirects are not followed (undici's request never does): a 3xx is an answer like any other.
      const text = await readCapped(res.body, this.maxResponseBytes);
      const durationMs = performance.now() - started;
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      let json: unknown;
      if (text.length > 0) {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      this.consecutiveTimeouts = 0;
      return { status: res.statusCode, headers: flat, text, json, durationMs, retries: 0 };
    } catch (e) {
      const durationMs = performance.now() - started;
      const err = e as Error & { code?: string };
      const timedOut =
        err.name === 'TimeoutError' ||
        err.name === 'AbortError' ||
        err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        err.code === 'UND_ERR_BODY_TIMEOUT';
      this.consecutiveTimeouts = timedOut ? this.consecutiveTimeouts + 1 : 0;
      const what = timedOut
        ? `no answer within ${this.timeoutMs} ms (--timeout)`
        : err.code === 'MQSIM_BODY_TOO_LARGE'
          ? err.message
          : `${err.code ? `${err.code}: ` : ''}${err.message}`;
      throw new TransportError(`${req.method} ${url}: ${what}`, durationMs);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.agent.close(), this.remoteAgent?.close(), this.loopbackAgent?.close()]);
  }
}
