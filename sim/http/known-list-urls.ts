import type { EndpointContract } from '../../fixtures/contract/types.ts';
import type { ApiRequest } from './api-exchange.ts';

/** What a list URL resolved to the last time it was served: routing and validation are functions of the URL. */
export interface KnownListUrl {
  readonly endpoint: EndpointContract;
  /** The validated parameters, as the handler and the list query were given them. */
  readonly params: Record<string, unknown>;
  /** The query's key among the kept answers (KeptAnswers.keyOf). */
  readonly key: string;
}

/**
 * GET list URLs served before, per node, with what they resolved to: a dashboard polls the same few
 * URLs, and for each the app can then skip parsing, routing and validating the URL again
 * (AdminApp.answerAtOnce). Only body-less GETs are known: a body could carry the parameters instead
 * of the query. At most `maxUrls` are held; one more forgets them all.
 */
export class KnownListUrls {
  private readonly byUrl = new Map<string, KnownListUrl>();

  constructor(private readonly maxUrls = 1024) {}

  /** Whether `req` can be one of these: a GET without a body. */
  static eligible(req: ApiRequest): boolean {
    return req.method === 'GET' && !req.bodyTooLarge && (req.body === undefined || req.body.length === 0);
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
    return `${req.nodeId} ${req.url}`;
  }
}
