import {
  pathWithQuery,
  type Target,
  type TargetCapabilities,
  type TargetControl,
  type TargetRequest,
  type TargetResponse,
} from '../targets/target.ts';
import { parseSlViolations, type ParsedViolations } from './sl-violations.ts';

/** A request as it went on the wire (enough to send it again). */
export interface WireRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  /** Path and query. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** An answer as it came back, without the proxy's own headers. */
interface WireAnswer {
  readonly status: number;
  readonly contentType?: string;
  readonly body: string;
}

/** One exchange through the validation proxy, with what Prism said about it. */
export interface ProxiedExchange {
  readonly request: WireRequest;
  readonly answer: WireAnswer;
  readonly violations: ParsedViolations;
}

export interface ViolationRecordingOptions {
  /** The target at the proxy's URL. */
  inner: Target;
  /** Name shown in reports. */
  name: string;
  /** The upstream's control interface, when the upstream is the simulator (lets the suites run every scenario). */
  control?: TargetControl;
  /** The upstream's token signing secret, when known. */
  signingSecret?: string;
}

/** The request the inner URL target puts on the wire for `req` (same serialisation, same headers). */
function onTheWire(req: TargetRequest, token: string | undefined): WireRequest {
  const body = req.rawBody ?? (req.body !== undefined ? JSON.stringify(req.body) : undefined);
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if ((req.auth ?? 'token') === 'token' && token) headers.authorization = `Bearer ${token}`;
  Object.assign(headers, req.headers ?? {});
  return {
    method: req.method.toUpperCase(),
    path: req.path,
    url: pathWithQuery(req.path, req.query),
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * A target in front of a Prism validation proxy that keeps every exchange with the violations Prism
 * put in its `sl-violations` header. The suites talk to it like to any target; the login goes
 * through it too (recorded from what the inner target's login returns).
 */
export class ViolationRecordingTarget implements Target {
  readonly name: string;
  readonly control?: TargetControl;
  readonly signingSecret?: string;
  readonly exchanges: ProxiedExchange[] = [];

  constructor(private readonly options: ViolationRecordingOptions) {
    this.name = options.name;
    if (options.control) this.control = options.control;
    if (options.signingSecret) this.signingSecret = options.signingSecret;
  }

  get baseUrl(): string {
    return this.options.inner.baseUrl;
  }

  get capabilities(): TargetCapabilities {
    return this.options.inner.capabilities;
  }

  get credentials(): { username: string; password: string } | undefined {
    return this.options.inner.credentials;
  }

  get token(): string | undefined {
    return this.options.inner.token;
  }

  async login(): Promise<TargetResponse> {
    const req: TargetRequest = { method: 'POST', path: '/api/v1/login', body: this.credentials, auth: 'none' };
    return this.record(onTheWire(req, undefined), await this.options.inner.login());
  }

  async request(req: TargetRequest): Promise<TargetResponse> {
    const wire = onTheWire(req, this.token);
    return this.record(wire, await this.options.inner.request(req));
  }

  close(): Promise<void> {
    return this.options.inner.close();
  }

  private record(request: WireRequest, res: TargetResponse): TargetResponse {
    const contentType = res.headers['content-type'];
    this.exchanges.push({
      request,
      answer: { status: res.status, ...(contentType ? { contentType } : {}), body: res.text },
      violations: parseSlViolations(res.headers['sl-violations']),
    });
    return res;
  }
}
