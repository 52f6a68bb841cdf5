import type { EndpointContract } from '../../../contract/core/types.ts';
import { readEnvelope, envelopeProblems, type Envelope } from '../../conform/envelope.ts';
import type { Exchange } from '../../conform/exchange.ts';
import { requestParts } from '../../conform/param-values.ts';
import { pathWithQuery, TransportError, type Target, type TargetRequest } from '../../targets/target.ts';
import { A } from '../../conform/cite.ts';
import { PropertyAbort, PropertyViolation, type StepVerdict } from './violation.ts';

/**
 * What an answer means for the properties:
 * - `ok`: HTTP 2xx with envelope code 0;
 * - `invalid`: refused as a parameter error (HTTP 400 or code 400);
 * - `failure`: any other refusal (code 1 or 100, a 404, a 409…);
 * - `server-error`: HTTP 5xx; `no-answer`: the connection failed or timed out;
 * - `malformed`: a 2xx whose body is not an envelope;
 * - `unauthorized` / `rate-limited`: the property could not reach the behaviour at all.
 */
export type Outcome = 'ok' | 'invalid' | 'failure' | 'server-error' | 'no-answer' | 'malformed' | 'unauthorized' | 'rate-limited';

export interface Answer {
  endpoint: EndpointContract;
  exchange: Exchange;
  outcome: Outcome;
  envelope?: Envelope;
  /** Text of the failure (`message`/`error`, or the body when it is no envelope). */
  text: string;
}

/**
 * Client-side pacing per path: a token bucket below the spec's default `max_admin_http_uri_rate`
 * (50 per second per path), so properties do not spend their time waiting out 429 answers.
 */
export class PathPacer {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number = Math.max(1, Math.floor(ratePerSecond / 2)),
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async take(path: string): Promise<void> {
    if (!(this.ratePerSecond > 0)) return;
    for (;;) {
      const t = this.now();
      const b = this.buckets.get(path) ?? { tokens: this.burst, at: t };
      b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.ratePerSecond);
      b.at = t;
      this.buckets.set(path, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil(((1 - b.tokens) / this.ratePerSecond) * 1000));
    }
  }
}

export function classify(ex: Exchange): { outcome: Outcome; envelope?: Envelope; text: string } {
  const res = ex.response;
  if (!res) return { outcome: 'no-answer', text: ex.error ?? 'no answer' };
  const read = readEnvelope(res.json, res.text);
  const envelope = read.ok ? read.envelope : undefined;
  const text = envelope?.text ?? res.text;
  const base = envelope ? { envelope, text } : { text };
  if (res.status === 429) return { outcome: 'rate-limited', ...base };
  if (res.status === 401) return { outcome: 'unauthorized', ...base };
  if (res.status >= 500) return { outcome: 'server-error', ...base };
  if (res.status === 400 || envelope?.code === 400) return { outcome: 'invalid', ...base };
  if (res.status >= 200 && res.status < 300) {
    if (!envelope) return { outcome: 'malformed', ...base };
    return { outcome: envelope.code === 0 ? 'ok' : 'failure', ...base };
  }
  return { outcome: 'failure', ...base };
}

/** One line saying what came back, for violation messages. */
export function describeAnswer(a: Pick<Answer, 'exchange' | 'envelope' | 'text'>): string {
  const res = a.exchange.response;
  if (!res) return `no answer (${a.exchange.error})`;
  const cut = (t: string) => (t.length > 160 ? `${t.slice(0, 160)}…` : t);
  if (!a.envelope) return `HTTP ${res.status}, body ${JSON.stringify(cut(res.text))}`;
  return `HTTP ${res.status}, code ${a.envelope.code}${a.envelope.code !== 0 && a.text ? `, "${cut(a.text)}"` : ''}`;
}

export interface ClientStats {
  requests: number;
  unauthorized: number;
  answered: number;
}

/**
 * Sends the properties' requests through a target, paced per path, and applies the envelope
 * invariants (spec: Response envelope) to every JSON answer: a broken envelope is a MUST violation
 * of the endpoint, whatever the property was looking at.
 */
export class PropertyClient {
  readonly stats: ClientStats = { requests: 0, unauthorized: 0, answered: 0 };
  /** Answers per outcome, to tell a property that exercised the target from a vacuous one. */
  readonly outcomes: Partial<Record<Outcome, number>> = {};

  constructor(
    readonly target: Target,
    private readonly pacer: PathPacer,
    private readonly parent?: PropertyClient,
    /** Extra waits after the target gave up on a 429, before the property is reported unobservable. */
    private readonly rateLimitBackoffMs: readonly number[] = [1000, 2000, 4000, 8000],
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** A client for one property: same target and pacing, its own outcome counts. */
  child(): PropertyClient {
    return new PropertyClient(this.target, this.pacer, this, this.rateLimitBackoffMs, this.sleep);
  }

  /** Counts the request here and in every ancestor (a child's requests are its parent's too). */
  private count(outcome: Outcome, answered: boolean): void {
    this.stats.requests++;
    if (answered) this.stats.answered++;
    if (outcome === 'unauthorized') this.stats.unauthorized++;
    this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
    this.parent?.count(outcome, answered);
  }

  /** "412 requests: 180 ok, 60 invalid, …" */
  summary(): string {
    const parts = Object.entries(this.outcomes).map(([k, v]) => `${v} ${k}`);
    return `${this.stats.requests} requests (${parts.join(', ') || 'none'})`;
  }

  async call(e: EndpointContract, params: Record<string, unknown>, verdict?: StepVerdict): Promise<Answer> {
    return this.send(e, { method: e.method, path: e.path, ...requestParts(e, params) }, verdict);
  }

  async send(e: EndpointContract, req: TargetRequest, verdict?: StepVerdict): Promise<Answer> {
    await this.pacer.take(req.path);
    const record = {
      method: req.method,
      path: pathWithQuery(req.path, req.query),
      ...(req.body !== undefined ? { body: req.body } : {}),
      authorization: this.target.token ? 'token' : 'none',
    };
    const ex: Exchange = { purpose: 'check', sent: req, record, durationMs: 0, endpointId: e.id };
    const started = performance.now();
    try {
      ex.response = await this.target.request(req);
      // The target already waited out a few 429s; a server whose limit recovers slowly gets more time.
      for (const waitMs of this.rateLimitBackoffMs) {
        if (ex.response.status !== 429) break;
        await this.sleep(waitMs);
        ex.response = await this.target.request(req);
      }
    } catch (err) {
      ex.error = err instanceof TransportError ? err.message : `request failed: ${(err as Error)?.message ?? String(err)}`;
    }
    ex.durationMs = performance.now() - started;
    const c = classify(ex);
    this.count(c.outcome, ex.response !== undefined);
    const answer: Answer = { endpoint: e, exchange: ex, ...c };
    if (c.outcome === 'unauthorized') {
      throw new PropertyAbort(
        `the target answered 401 to ${req.method} ${req.path}: the properties need API access (run from 127.0.0.1 or pass --username/--password)`,
      );
    }
    if (c.outcome === 'rate-limited')
      throw new PropertyAbort(`the target kept answering 429 to ${req.method} ${req.path} for more than 15 s of waiting; lower --rate`);
    if (verdict && ex.response && ex.response.status !== 429) {
      const envelopeKind = e.response.kind === 'envelope';
      const relevant = envelopeKind
        ? ex.response.json !== undefined || (ex.response.status >= 200 && ex.response.status < 300)
        : ex.response.status >= 400 && ex.response.json !== undefined;
      if (relevant) {
        const problems = envelopeProblems(ex.response.json, ex.response.text);
        if (problems.length > 0) {
          // A failure answer breaks the failure shape; anything else (no code, no data, not JSON) the envelope forms.
          const code = (ex.response.json as { code?: unknown } | undefined)?.code;
          const failure = typeof code === 'number' && code !== 0;
          verdict.add(
            new PropertyViolation(
              failure ? A.envelopeFailure : A.envelopeForms,
              e.id,
              'envelope',
              `envelope rule broken: ${problems.join('; ')}`,
              ex,
            ),
          );
        }
      }
    }
    return answer;
  }
}
