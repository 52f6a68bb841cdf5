/** One request to the admin API as a listener hands it over, and its answer (a leaf module: the deviations and tools use these shapes without the app). */
export interface ApiRequest {
  method: string;
  /** Path and query, e.g. `/api/cluster/tenant/list?limit=5`. */
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  /**
   * What parsing `body` gives, when the caller holds it: an in-process caller that wrote `body` with
   * JSON.stringify hands along `jsonCopy` of the value (json-copy.ts), and the app takes it instead of
   * parsing the text again. Verification mode (AdminAppOptions.verifyWriters) parses anyway and
   * compares. Never set by a listener.
   */
  bodyValue?: unknown;
  /** Set by a listener that stopped reading a body past MAX_BODY_BYTES. */
  bodyTooLarge?: boolean;
  /** TCP peer address as the listener saw it. */
  peer: string;
  /** Node whose listener received the request. */
  nodeId: number;
}

/** A request header's value (the first, when sent more than once). */
export function headerOf(req: ApiRequest, name: string): string | undefined {
  const v = req.headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The request body as text ('' when none). */
export function bodyText(req: ApiRequest): string {
  if (req.body === undefined) return '';
  return typeof req.body === 'string' ? req.body : req.body.toString('utf8');
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body already encoded as UTF-8, when the app holds it so (a cached response); the listener sends these bytes. */
  bytes?: Buffer;
  /**
   * The envelope's `code`, when the app wrote the body from an envelope and no switch is on (a
   * response hook may rewrite the body): what parsing `body` gives as `code`, for an in-process
   * caller that needs no more of the answer (InProcessSim).
   */
  code?: number;
}
