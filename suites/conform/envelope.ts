/**
 * Reading the spec's response envelope. Both forms are accepted wherever the spec allows both:
 * A `{code, message, data}` and B `{code, data, error}`; a failure carries code 1 (or 100, or an
 * HTTP-like code such as 400/401) and a text in `message` or `error`.
 */

export type EnvelopeForm = 'A' | 'B';

export interface Envelope {
  form: EnvelopeForm;
  code: number;
  /** The text of `message` (A) or `error` (B); null when absent or null. */
  text: string | null;
  data: unknown;
}

export type EnvelopeRead = { ok: true; envelope: Envelope } | { ok: false; problem: string };

/** Parses a JSON body as an envelope; `problem` says what is wrong in words. */
export function readEnvelope(json: unknown, rawText: string): EnvelopeRead {
  if (json === undefined) {
    const excerpt = rawText.length > 80 ? `${rawText.slice(0, 80)}…` : rawText;
    return { ok: false, problem: rawText.length === 0 ? 'empty body, expected a JSON envelope' : `body is not JSON: ${JSON.stringify(excerpt)}` };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { ok: false, problem: `body is JSON but not an object: ${JSON.stringify(json).slice(0, 80)}` };
  const body = json as Record<string, unknown>;
  if (typeof body.code !== 'number' || !Number.isInteger(body.code)) return { ok: false, problem: `envelope has no integer "code" (got ${JSON.stringify(body.code)})` };
  if (!('data' in body)) return { ok: false, problem: 'envelope has no "data" field' };
  const hasMessage = 'message' in body;
  const hasError = 'error' in body;
  if (!hasMessage && !hasError) return { ok: false, problem: 'envelope has neither "message" (form A) nor "error" (form B)' };
  const form: EnvelopeForm = hasMessage ? 'A' : 'B';
  const raw = form === 'A' ? body.message : body.error;
  return { ok: true, envelope: { form, code: body.code, text: typeof raw === 'string' ? raw : null, data: body.data } };
}

/**
 * The rules every envelope follows (spec: Response envelope): success is code 0 with `message`
 * `success` (A) or `error` null (B); a failure has a non-zero code, `data` null or empty, and a text.
 * Returns the broken rules, empty when the envelope is sound.
 */
export function envelopeProblems(json: unknown, rawText: string = JSON.stringify(json) ?? ''): string[] {
  const body = json as Record<string, unknown>;
  const read = readEnvelope(json, rawText);
  if (!read.ok) return [read.problem];
  const env = read.envelope;
  const problems: string[] = [];
  if ('message' in body && 'error' in body) {
    // Both present: acceptable only when they agree with one form (e.g. message "success" and error null).
    if (env.code === 0 && !(body.message === 'success' || body.error === null)) problems.push('success envelope carries both "message" and "error" and neither marks success');
  }
  if (env.code === 0) {
    if (env.form === 'A' && body.message !== 'success') problems.push(`form A success must have message "success" (got ${JSON.stringify(body.message)})`);
    if (env.form === 'B' && body.error !== null) problems.push(`form B success must have error null (got ${JSON.stringify(body.error)})`);
  } else {
    if (!(env.text && env.text.trim().length > 0)) problems.push(`failure (code ${env.code}) carries no text in ${env.form === 'A' ? '"message"' : '"error"'}`);
    if (!(env.data === null || env.data === '')) problems.push(`failure (code ${env.code}) must have data null or "" (got ${JSON.stringify(env.data).slice(0, 60)})`);
  }
  return problems;
}

/** Does a text name a parameter (as `name`, 'name', "name" or the bare word)? */
export function namesParam(text: string | null | undefined, param: string): boolean {
  if (!text) return false;
  const last = param.split('.').pop() ?? param;
  const escaped = last.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Real servers phrase it "Tenant length must be…" or "tenant_name: …"; match words ignoring case and _ vs space.
  const words = escaped.replace(/_/g, '[_ ]?');
  return new RegExp(`(^|[^A-Za-z0-9])${words}([^A-Za-z0-9]|$)`, 'i').test(text);
}
