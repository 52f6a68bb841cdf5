import type { ListVersion } from '../model/api/indexed-list.ts';

/** A cached list response's body, as text and as the bytes sent, with the version of the records it was computed from. */
export interface CachedResponse {
  readonly listVersion: ListVersion;
  readonly body: string;
  readonly bytes: Buffer;
}

/**
 * List responses cached per query until their records change. Dashboards poll the same pages again
 * and again; when a list's owner versions it (IndexedListSource.listVersion: the same owner at the
 * same version holds the same records in the same views), the page, its total and its encoded bytes
 * are the same as last time, so the cached response is sent again instead of being paged, serialized
 * and encoded anew. A write moves the version and the next read computes afresh.
 *
 * Only the body is cached: status and headers (the virtual time) are made per request, and the
 * request still goes through authentication, rate limiting, validation and the handler, so what is
 * refused or recorded is the same with or without the response cache.
 */
export class ResponseCache {
  private readonly byQuery = new Map<string, CachedResponse>();
  private bytesCached = 0;

  /**
   * At most `maxQueries` queries and `maxBytes` bytes are cached; one more evicts them all (lists are
   * polled by few distinct queries). A response larger than `maxBytes / 4` (a page of thousands of
   * records) is not cached.
   */
  constructor(
    private readonly maxQueries = 256,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The cache key of a query: endpoint, node, envelope form and the validated parameters (in declaration order). */
  static keyOf(endpointId: string, nodeId: number, form: string, params: Record<string, unknown>): string {
    return `${endpointId}\u0000${nodeId}\u0000${form}\u0000${JSON.stringify(params)}`;
  }

  /** The cached response of `key` if it was computed from records at `listVersion`, else undefined. */
  get(key: string, listVersion: ListVersion): CachedResponse | undefined {
    const cached = this.byQuery.get(key);
    const holds = cached && cached.listVersion.owner === listVersion.owner && cached.listVersion.version === listVersion.version;
    return holds ? cached : undefined;
  }

  /** Caches `body` as the response of `key` at `listVersion` (unless too large); returns it with its bytes. */
  put(key: string, listVersion: ListVersion, body: string): CachedResponse {
    const cached: CachedResponse = { listVersion, body, bytes: Buffer.from(body) };
    const size = cached.bytes.length;
    if (size > this.maxBytes / 4) return cached;
    const before = this.byQuery.get(key);
    if (before) this.bytesCached -= before.bytes.length;
    else if (this.byQuery.size >= this.maxQueries) this.clear();
    if (this.bytesCached + size > this.maxBytes) this.clear();
    this.byQuery.set(key, cached);
    this.bytesCached += size;
    return cached;
  }

  get size(): number {
    return this.byQuery.size;
  }

  /** Bytes of the bodies cached. */
  get bytes(): number {
    return this.bytesCached;
  }

  private clear(): void {
    this.byQuery.clear();
    this.bytesCached = 0;
  }
}

/**
 * Whether the environment leaves the response cache on: off with MQSIM_RESPONSE_CACHE=0, or with
 * MQSIM_KEEP_ANSWERS=0, the variable's former name (still read, so existing scripts keep working;
 * the new name wins when both are set).
 */
export function responseCacheFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.MQSIM_RESPONSE_CACHE ?? env.MQSIM_KEEP_ANSWERS) !== '0';
}
