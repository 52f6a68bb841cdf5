import {
  isLoopbackV4,
  pathWithQuery,
  TransportError,
  type Target,
  type TargetCapabilities,
  type TargetControl,
  type TargetRequest,
  type TargetResponse,
} from './target.ts';

/** One HTTP request as a server's request handler sees it, without a socket. */
export interface InProcessRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body?: string;
  /** The TCP peer address the server is told the request came from. */
  peer: string;
}

interface InProcessAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type InProcessHandler = (req: InProcessRequest) => Promise<InProcessAnswer>;

export interface InProcessTargetOptions {
  /** Name shown in reports. */
  name: string;
  /** Address shown in reports and curl commands (the one `mqsim serve` would listen on). */
  baseUrl: string;
  handle: InProcessHandler;
  credentials?: { username: string; password: string };
  control?: TargetControl;
  /** How a 429's Retry-After is waited out (the simulator lets virtual time pass instead of sleeping). */
  wait?: (ms: number) => Promise<void>;
  /** How many 429 answers are waited out per request (default 3). */
  maxRetries?: number;
  /** Peer address of ordinary requests (default 127.0.0.1, exempt from tokens by the spec). */
  localPeer?: string;
  /** Peer address of `asRemotePeer` requests (default 127.0.0.2, which the spec does not exempt). */
  remotePeer?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A server reached by calling its request handler directly: the same requests and answers as over
 * HTTP, without sockets, so the suites run unchanged and faster. The handler is told the peer
 * address, so a request can still come from a non-loopback peer (auth checks).
 */
export class InProcessTarget implements Target {
  readonly name: string;
  readonly baseUrl: string;
  readonly credentials?: { username: string; password: string };
  readonly control?: TargetControl;
  readonly capabilities: TargetCapabilities;
  token?: string;
  private closed = false;

  constructor(private readonly options: InProcessTargetOptions) {
    this.name = options.name;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // No socket is bound: any address can be told to the handler, so a second loopback peer is always there.
    const remote = options.remotePeer ?? '127.0.0.2';
    this.capabilities = {
      loopback: true,
      remotePeer: { available: true },
      remoteVia: { address: remote },
      loopbackPeer: isLoopbackV4(remote) ? remote : '127.0.0.2',
    };
    if (options.credentials) this.credentials = options.credentials;
    if (options.control) this.control = options.control;
  }

  async login(): Promise<TargetResponse> {
    if (!this.credentials) throw new Error('no credentials to log in with');
    const res = await this.request({ method: 'POST', path: '/api/v1/login', body: this.credentials, auth: 'none' });
    const data = (res.json as { data?: { token?: unknown } } | undefined)?.data;
    if (res.status === 200 && typeof data?.token === 'string') this.token = data.token;
    return res;
  }

  async request(req: TargetRequest): Promise<TargetResponse> {
    const maxRetries = this.options.maxRetries ?? 3;
    const wait = this.options.wait ?? sleep;
    let retries = 0;
    for (;;) {
      const res = await this.once(req);
      if (res.status !== 429 || retries >= maxRetries) return { ...res, retries };
      const after = Number(res.headers['retry-after']);
      retries++;
      await wait((Number.isFinite(after) && after >= 0 ? Math.min(after, 10) : 1) * 1000);
    }
  }

  private async once(req: TargetRequest): Promise<TargetResponse> {
    if (this.closed) throw new TransportError(`${req.method} ${req.path}: the in-process target is closed`, 0);
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) body = JSON.stringify(req.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if ((req.auth ?? 'token') === 'token' && this.token) headers.authorization = `Bearer ${this.token}`;
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    const started = performance.now();
    let answer: InProcessAnswer;
    try {
      answer = await this.options.handle({
        method: req.method,
        url: pathWithQuery(req.path, req.query),
        headers,
        ...(body !== undefined ? { body } : {}),
        peer: req.asLoopbackPeer
          ? this.capabilities.loopbackPeer!
          : req.asRemotePeer
            ? this.capabilities.remoteVia!.address
            : (this.options.localPeer ?? '127.0.0.1'),
      });
    } catch (e) {
      throw new TransportError(`${req.method} ${req.path}: ${(e as Error)?.message ?? String(e)}`, performance.now() - started);
    }
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) flat[k.toLowerCase()] = v;
    let json: unknown;
    if (answer.body.length > 0) {
      try {
        json = JSON.parse(answer.body);
      } catch {
        json = undefined;
      }
    }
    return { status: answer.status, headers: flat, text: answer.body, json, durationMs: performance.now() - started, retries: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
