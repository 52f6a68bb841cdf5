/**
 * Reading the spec's response envelope. Both forms are accepted wherever the spec allows both:
 * A `{code, message, data}` and B `{code, data, error}`; a failure carries code 1 (or 100, or an
 * HTTP-like code such as 400/401) and a text in `message` or `error`.
 */

type EnvelopeForm = 'A' | 'B';

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
    return {
      ok: false,
      problem: rawText.length === 0 ? 'empty body, expected a JSON envelope' : `body is not JSON: ${JSON.stringify(excerpt)}`,
    };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return { ok: false, problem: `body is JSON but not an object: ${JSON.stringify(json).slice(0, 80)}` };
  const body = json as Record<string, unknown>;
  if (typeof body.code !== 'number' || !Number.isInteger(body.code))
    return { ok: false, problem: `envelope has no integer "code" (got ${JSON.stringify(body.code)})` };
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
    if (env.code === 0 && !(body.message === 'success' || body.error === null))
      problems.push('success envelope carries both "message" and "error" and neither marks success');
  }
  if (env.code === 0) {
    if (env.form === 'A' && body.message !== 'success')
      problems.push(`form A success must have message "success" (got ${JSON.stringify(body.message)})`);
    if (env.form === 'B' && body.error !== null) problems.push(`form B success must have error null (got ${JSON.stringify(body.error)})`);
  } else {
    if (!(env.text && env.text.trim().length > 0))
      problems.push(`failure (code ${env.code}) carries no text in ${env.form === 'A' ? '"message"' : '"error"'}`);
    if (!(env.data === null || env.data === ''))
      problems.push(`failure (code ${env.code}) must have data null or "" (got ${JSON.stringify(env.data).slice(0, 60)})`);
  }
  return problems;
}

/** Words a server may use for a parameter instead of its identifier ("Description length cannot exceed 500" names `desc`). */
const PARAM_WORDS: Record<string, readonly string[]> = {
  desc: ['description'],
  ip: ['ip address', 'address'],
  qos: ['qos', 'quality of service'],
  is_superuser: ['superuser', 'super user'],
  config: ['configuration', 'config'],
  id: ['identifier', 'id'],
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Does a text name a parameter? The identifier (as `name`, 'name', "name" or the bare word), its
 * words ("tenant_name" as "Tenant name"), or a word a server uses for it ("description" for `desc`),
 * ignoring case.
 */
export function namesParam(text: string | null | undefined, param: string): boolean {
  if (!text) return false;
  const last = param.split('.').pop() ?? param;
  const word = (w: string) => new RegExp(`(^|[^A-Za-z0-9])${escape(w).replace(/[_ ]/g, '[_ -]?')}([^A-Za-z0-9]|$)`, 'i').test(text);
  if (word(last)) return true;
  if ((PARAM_WORDS[last] ?? []).some(word)) return true;
  // Every word of a compound identifier, each in its own or a server's form: "Retained handling must be 0, 1 or 2".
  const parts = last.split('_').filter((p) => p.length > 0);
  return parts.length > 1 && parts.every((p) => word(p) || (PARAM_WORDS[p] ?? []).some(word));
}
