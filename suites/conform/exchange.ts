import type { RequestRecord, ResponseRecord } from './report-model.ts';
import type { RunOrder } from './run-order.ts';
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

/**
 * Request bodies above this many characters are not written out in full (a body-size check sends
 * 2 MiB): the report keeps a cut copy, and the curl command rebuilds the body from its repeated runs.
 */
export const REPORTED_BODY_LIMIT = 16_384;
/** A character repeated at least this often is one run (`'x'.repeat(n)` of a length check). */
const MIN_RUN = 256;

/**
 * The obvious statement of `runsOf`: a printable ASCII character but the backslash, then itself 255
 * times or more. Kept for the differential test: V8 matches the back-reference a character at a
 * time, ≈0.3 µs each, so a 2 MiB body took 0.6 s of the run's one thread.
 */
export const RUN = /([ -[\]-~])\1{255,}/g;

/** Whether `code` is a character RUN repeats: printable ASCII (space to tilde) but the backslash. */
const runnable = (code: number) => code >= 0x20 && code <= 0x7e && code !== 0x5c;

/** The runs of one character RUN finds (its matches, maximal and in order), in one pass over `text`. */
export function runsOf(text: string): { index: number; length: number; ch: string }[] {
  const runs: { index: number; length: number; ch: string }[] = [];
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) === code) j++;
    if (j - i >= MIN_RUN && runnable(code)) runs.push({ index: i, length: j - i, ch: text[i]! });
    i = j;
  }
  return runs;
}

/** A long text with its runs of one character written as `xxxxxxxx…[2097153 × "x"]`, and the rest cut at the limit. */
function cutText(text: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const run of runsOf(text)) {
    parts.push(text.slice(at, run.index), `${run.ch.repeat(8)}…[${run.length} × ${JSON.stringify(run.ch)}]`);
    at = run.index + run.length;
  }
  parts.push(text.slice(at));
  const runs = parts.join('');
  return runs.length > REPORTED_BODY_LIMIT ? `${runs.slice(0, REPORTED_BODY_LIMIT)}… (cut: ${text.length} characters)` : runs;
}

/** A body as the report keeps it: as sent, or, above the limit, with its long strings cut (the JSON stays readable). */
export function reportedBody(body: unknown): unknown {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (text === undefined || text.length <= REPORTED_BODY_LIMIT) return body;
  if (typeof body === 'string') return cutText(body);
  return JSON.parse(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'string' && v.length > 256 ? cutText(v) : v)));
}

/**
 * The curl argument sending `body`: `--data-raw '…'`, or above the limit a `printf` that rebuilds its
 * runs of one character (`head -c N /dev/zero | tr '\0' x`) piped in with `--data-binary @-`. What
 * no run explains is cut, with a note that the replay sends it.
 */
function curlBody(body: string): { pipeFrom?: string; args: string[] } {
  if (body.length <= REPORTED_BODY_LIMIT) return { args: ['--data-raw', shellQuote(body)] };
  const parts: string[] = [];
  let at = 0;
  let literal = 0;
  for (const run of runsOf(body)) {
    const text = body.slice(at, run.index);
    literal += text.length;
    if (text) parts.push(shellQuote(text));
    parts.push(`"$(head -c ${run.length} /dev/zero | tr '\\0' ${shellQuote(run.ch)})"`);
    at = run.index + run.length;
  }
  const tail = body.slice(at);
  literal += tail.length;
  if (tail) parts.push(shellQuote(tail));
  if (literal > REPORTED_BODY_LIMIT)
    return {
      args: ['--data-raw', shellQuote(`${cutText(body)}`), `# the body (${body.length} characters) is cut here: replay the run to send it`],
    };
  return { pipeFrom: `printf '%s' ${parts.join(' ')}`, args: ['--data-binary', '@-'] };
}

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
  const body = r.rawBody ?? (r.body !== undefined ? JSON.stringify(redactPassword(r.path, r.body)) : undefined);
  if (body === undefined) return parts.join(' ');
  const sent = curlBody(body);
  parts.push('-H', shellQuote('Content-Type: application/json'), ...sent.args);
  return sent.pipeFrom ? `${sent.pipeFrom} | ${parts.join(' ')}` : parts.join(' ');
}

/** Login bodies carry the target's real password: reports show a placeholder. */
function redactPassword(path: string, body: unknown): unknown {
  if (path !== '/api/v1/login' || body === null || typeof body !== 'object' || !('password' in body)) return body;
  return { ...(body as Record<string, unknown>), password: '******' };
}

/** Sends requests through a target and keeps every exchange of the run. */
export class ExchangeLog {
  readonly exchanges: Exchange[] = [];

  constructor(
    private readonly target: Target,
    /** Marks each exchange with its place in the sequential order, when parts of the run go at once. */
    private readonly order?: RunOrder,
  ) {}

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
      ...(req.rawBody !== undefined
        ? { body: reportedBody(req.rawBody) }
        : req.body !== undefined
          ? { body: reportedBody(redactPassword(req.path, req.body)) }
          : {}),
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
    this.order?.mark(ex);
    this.exchanges.push(ex);
    return ex;
  }
}
