import type { EndpointContract } from '../../contract/core/types.ts';
import { bodyText, headerOf, type ApiRequest } from './core/api-exchange.ts';
import { isJsonBodyType } from './core/parse-request.ts';

/** Longest POST body remembered with its URL (a list's parameters take a few hundred bytes). */
const MAX_MEMO_BODY = 4096;

/** What a list request resolved to the last time it was served: routing and validation are functions of the request. */
export interface ResolvedListRequest {
  readonly endpoint: EndpointContract;
  /** The validated parameters, as the handler and the list query were given them. */
  readonly params: Record<string, unknown>;
  /** The query's key in the response cache (ResponseCache.keyOf). */
  readonly key: string;
}

/**
 * List requests served before, per node, with what they resolved to: a dashboard polls the same few
 * URLs, and for each the app can then skip parsing, routing and validating the request again and
 * send its cached response (AdminApp.answerFromCache). Remembered are body-less GETs (a GET's body
 * could carry the parameters instead of its query) and POSTs by URL and JSON body (at most 4 KiB). At
 * most `maxRequests` are held; one more forgets them all.
 *
 * Named a memo, not a cache: it memoizes a pure function (the request's routing and validation) and
 * holds no response; whether the response cached for it still holds is the ResponseCache's to say.
 */
export class ListRequestMemo {
  private readonly byRequest = new Map<string, ResolvedListRequest>();
  /**
   * The URLs of the requests held (forgotten with them): most POSTs are writes to URLs never held,
   * turned away here before their key (method, URL and body) is built and hashed.
   */
  private readonly urls = new Set<string>();

  constructor(private readonly maxRequests = 1024) {}

  /** Whether `req` can be one of these: a GET without a body, or a POST with a small body sent as JSON. */
  static eligible(req: ApiRequest): boolean {
    if (req.bodyTooLarge) return false;
    const size = req.body?.length ?? 0;
    if (req.method === 'GET') return size === 0;
    if (req.method !== 'POST' || size === 0 || size > MAX_MEMO_BODY) return false;
    return isJsonBodyType(headerOf(req, 'content-type'));
  }

  get(req: ApiRequest): ResolvedListRequest | undefined {
    if (!this.urls.has(req.url) || !ListRequestMemo.eligible(req)) return undefined;
    return this.byRequest.get(ListRequestMemo.keyOf(req));
  }

  remember(req: ApiRequest, resolved: ResolvedListRequest): void {
    if (!ListRequestMemo.eligible(req)) return;
    if (this.byRequest.size >= this.maxRequests) {
      this.byRequest.clear();
      this.urls.clear();
    }
    this.byRequest.set(ListRequestMemo.keyOf(req), resolved);
    this.urls.add(req.url);
  }

  get size(): number {
    return this.byRequest.size;
  }

  private static keyOf(req: ApiRequest): string {
    return req.method === 'GET' ? `${req.nodeId} ${req.url}` : `${req.nodeId} ${req.method} ${req.url}\n${bodyText(req)}`;
  }
}
