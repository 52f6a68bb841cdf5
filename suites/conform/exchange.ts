import type { RequestRecord, ResponseRecord } from './report-model.ts';
import { pathWithQuery, TransportError, type Target, type TargetRequest, type TargetResponse } from '../targets/target.ts';

/** Why a request was sent; auth probes expect 401 and are left out of the vacuous-run count. */
export type Purpose = 'check' | 'fixture' | 'cleanup' | 'auth';

/** One request of the run and what came back. */
export interface Exchange {
  /** Contract endpoint id, when the request went to a contract endpoint. */
  endpointId?: string;
  purpose: Purpose;
  sent: TargetRequest;
  record: RequestRecord;
  response?: TargetResponse;
  /** Transport failure instead of a response. */
  error?: string;
  durationMs: number;
}

const BODY_EXCERPT = 4000;

export function responseRecord(ex: Exchange): ResponseRecord {
  if (!ex.response) return { status: 0, body: '', error: ex.error ?? 'no response', durationMs: Math.round(ex.durationMs) };
  const text = ex.response.text;
  return {
    status: ex.response.status,
    ...(ex.response.headers['content-type'] ? { contentType: ex.response.headers['content-type'] } : {}),
    body: text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}… (${text.length} characters)` : text,
    durationMs: Math.round(ex.response.durationMs),
  };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command repeating the request; the token is left as $MQSIM_TOKEN, never written out. */
export function curlOf(
  baseUrl: string,
  ex: Exchange,
  remoteVia?: { address: string; baseUrl?: string },
  loopbackPeer = '127.0.0.2',
): string {
  const r = ex.sent;
  const remoteBase = r.asRemotePeer ? remoteVia?.baseUrl : undefined;
  const parts = ['curl', '-sS', '-X', r.method, shellQuote(`${remoteBase ?? baseUrl}${ex.record.path}`)];
  if (r.asLoopbackPeer) parts.push('--interface', loopbackPeer);
  else if (r.asRemotePeer && !remoteBase) parts.push('--interface', remoteVia?.address ?? '127.0.0.2');
  const auth = ex.record.authorization;
  if (auth === 'token') parts.push('-H', '"Authorization: Bearer $MQSIM_TOKEN"');
  else if (auth && auth !== 'none') parts.push('-H', shellQuote(`Authorization: ${auth}`));
  const body = r.rawBody ?? (ex.record.body !== undefined ? JSON.stringify(ex.record.body) : undefined);
  if (body !== undefined) parts.push('-H', shellQuote('Content-Type: application/json'), '--data-raw', shellQuote(body));
  return parts.join(' ');
}

/** Login bodies carry the target's real password: reports show a placeholder. */
function redactPassword(path: string, body: unknown): unknown {
  if (path !== '/api/v1/login' || body === null || typeof body !== 'object' || !('password' in body)) return body;
  return { ...(body as Record<string, unknown>), password: '******' };
}

/** Sends requests through a target and keeps every exchange of the run. */
export class ExchangeLog {
  readonly exchanges: Exchange[] = [];

  constructor(private readonly target: Target) {}

  /** `redactAuthorization`: a custom Authorization header holds a real token; the report shows a placeholder. */
  async send(req: TargetRequest, purpose: Purpose, endpointId?: string, redactAuthorization = false): Promise<Exchange> {
    const customAuth = req.headers?.authorization ?? req.headers?.Authorization;
    const authorization =
      customAuth !== undefined
        ? redactAuthorization
          ? 'Bearer <token from the login above>'
          : customAuth
        : (req.auth ?? 'token') === 'token' && this.target.token
          ? 'token'
          : 'none';
    const record: RequestRecord = {
      method: req.method,
      path: pathWithQuery(req.path, req.query),
      ...(req.rawBody !== undefined ? { body: req.rawBody } : req.body !== undefined ? { body: redactPassword(req.path, req.body) } : {}),
      ...(req.asRemotePeer ? { asRemotePeer: true } : {}),
      ...(req.asLoopbackPeer ? { asLoopbackPeer: true } : {}),
      authorization,
    };
    const started = performance.now();
    const ex: Exchange = { purpose, sent: req, record, durationMs: 0, ...(endpointId ? { endpointId } : {}) };
    try {
      ex.response = await this.target.request(req);
    } catch (e) {
      ex.error = e instanceof TransportError ? e.message : `request failed: ${(e as Error)?.message ?? String(e)}`;
    }
    ex.durationMs = performance.now() - started;
    this.exchanges.push(ex);
    return ex;
  }
}
