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
}

export interface Target {
  /** What the user named: the URL, or `sim`. */
  readonly name: string;
  /** Base URL requests go to (no trailing slash). */
  readonly baseUrl: string;
  readonly capabilities: TargetCapabilities;
  /** Credentials the run may log in with, when known. */
  readonly credentials?: { username: string; password: string };
  /** The Bearer token in use, if the run logged in. */
  readonly token?: string;
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
