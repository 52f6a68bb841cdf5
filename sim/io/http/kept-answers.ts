import type { ListStamp } from '../../model/api/indexed-list.ts';

/** A list answer's body, as text and as the bytes sent, with the stamp of the records it was computed from. */
export interface KeptAnswer {
  readonly stamp: ListStamp;
  readonly body: string;
  readonly bytes: Buffer;
}

/**
 * List answers kept per query until their records change. Dashboards poll the same pages again and
 * again; when a list's owner stamps it (IndexedListSource.stamp: the same owner at the same
 * version holds the same records in the same views), the page, its total and its encoded bytes are
 * the same as last time, so the answer is sent again instead of being paged, serialized and
 * encoded anew. A write moves the version and the next read computes afresh.
 *
 * Only the body is kept: status and headers (the virtual time) are made per request, and the
 * request still goes through authentication, rate limiting, validation and the handler, so what is
 * refused or recorded is the same with or without kept answers.
 */
export class KeptAnswers {
  private readonly byQuery = new Map<string, KeptAnswer>();
  private bytesKept = 0;

  /**
   * At most `maxQueries` queries and `maxBytes` bytes are kept; one more drops them all (lists are
   * polled by few distinct queries). An answer larger than `maxBytes / 4` (a page of thousands of
   * records) is not kept.
   */
  constructor(
    private readonly maxQueries = 256,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The key of a query: endpoint, node, envelope form and the validated parameters (in declaration order). */
  static keyOf(endpointId: string, nodeId: number, form: string, params: Record<string, unknown>): string {
    return `${endpointId}\u0000${nodeId}\u0000${form}\u0000${JSON.stringify(params)}`;
  }

  /** The kept answer of `key` if it was computed from records at `stamp`, else undefined. */
  get(key: string, stamp: ListStamp): KeptAnswer | undefined {
    const kept = this.byQuery.get(key);
    return kept && kept.stamp.owner === stamp.owner && kept.stamp.version === stamp.version ? kept : undefined;
  }

  /** Keeps `body` as the answer of `key` at `stamp` (unless too large); returns it with its bytes. */
  keep(key: string, stamp: ListStamp, body: string): KeptAnswer {
    const kept: KeptAnswer = { stamp, body, bytes: Buffer.from(body) };
    const size = kept.bytes.length;
    if (size > this.maxBytes / 4) return kept;
    const before = this.byQuery.get(key);
    if (before) this.bytesKept -= before.bytes.length;
    else if (this.byQuery.size >= this.maxQueries) this.clear();
    if (this.bytesKept + size > this.maxBytes) this.clear();
    this.byQuery.set(key, kept);
    this.bytesKept += size;
    return kept;
  }

  get size(): number {
    return this.byQuery.size;
  }

  /** Bytes of the bodies kept. */
  get bytes(): number {
    return this.bytesKept;
  }

  private clear(): void {
    this.byQuery.clear();
    this.bytesKept = 0;
  }
}
