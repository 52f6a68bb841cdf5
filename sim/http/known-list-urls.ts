import type { EndpointContract } from '../../fixtures/contract/types.ts';
import type { ApiRequest } from './api-exchange.ts';
import { isJsonBodyType } from './parse-request.ts';

/** Longest POST body remembered with its URL (a list's parameters take a few hundred bytes). */
const MAX_KNOWN_BODY = 4096;

/** What a list URL resolved to the last time it was served: routing and validation are functions of the URL. */
export interface KnownListUrl {
  readonly endpoint: EndpointContract;
  /** The validated parameters, as the handler and the list query were given them. */
  readonly params: Record<string, unknown>;
  /** The query's key among the kept answers (KeptAnswers.keyOf). */
  readonly key: string;
}

/**
 * List requests served before, per node, with what they resolved to: a dashboard polls the same few
 * URLs, and for each the app can then skip parsing, routing and validating the request again
 * (AdminApp.answerAtOnce). Known are body-less GETs (a GET's body could carry the parameters instead
 * of its query) and POSTs by URL and JSON body (at most 4 KiB). At most `maxUrls` are held; one more
 * forgets them all.
 */
export class KnownListUrls {
  private readonly byUrl = new Map<string, KnownListUrl>();

  constructor(private readonly maxUrls = 1024) {}

  /** Whether `req` can be one of these: a GET without a body, or a POST with a small body sent as JSON. */
  static eligible(req: ApiRequest): boolean {
    if (req.bodyTooLarge) return false;
    const size = req.body?.length ?? 0;
    if (req.method === 'GET') return size === 0;
    if (req.method !== 'POST' || size === 0 || size > MAX_KNOWN_BODY) return false;
    const type = req.headers?.['content-type'];
    return isJsonBodyType(Array.isArray(type) ? type[0] : type);
  }

  /** A request's body as text ('' without one). */
  static bodyText(req: ApiRequest): string {
    const body = req.body;
    return body === undefined ? '' : typeof body === 'string' ? body : body.toString('utf8');
  }

  get(req: ApiRequest): KnownListUrl | undefined {
    return KnownListUrls.eligible(req) ? this.byUrl.get(KnownListUrls.keyOf(req)) : undefined;
  }

  remember(req: ApiRequest, known: KnownListUrl): void {
    if (!KnownListUrls.eligible(req)) return;
    if (this.byUrl.size >= this.maxUrls) this.byUrl.clear();
    this.byUrl.set(KnownListUrls.keyOf(req), known);
  }

  get size(): number {
    return this.byUrl.size;
  }

  private static keyOf(req: ApiRequest): string {
    return req.method === 'GET' ? `${req.nodeId} ${req.url}` : `${req.nodeId} ${req.method} ${req.url}\n${KnownListUrls.bodyText(req)}`;
  }
}
