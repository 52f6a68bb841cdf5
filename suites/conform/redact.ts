/**
 * Secrets never leave through a report. A server may answer with its own secrets (config get showing
 * `admin.password` or `admin.jwt_secret`, a connector config with a password, a login's token); the
 * run knows others (the password and signing secret it was given). Every artifact — report.json,
 * index.html, junit.xml, the --json output — is written from the report after this pass.
 */

/** JSON keys whose string values are secrets wherever they appear in an answer. */
const SECRET_KEYS = [
  'password',
  'passwd',
  'jwt_secret',
  'secret',
  'secret_access_key',
  'api_key',
  'bearer_token',
  'token',
  'session_token',
  'basic_password',
  'default_password',
  'tls_key',
] as const;

export const REDACTED = '******';

const KEY_VALUE = new RegExp(`("(?:${SECRET_KEYS.join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');

/** Secret values (of keys in SECRET_KEYS) that occur in a text holding JSON, even a cut one. */
export function secretValuesIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(KEY_VALUE)) {
    const raw = m[0].slice(m[1].length);
    try {
      const value = JSON.parse(raw) as string;
      if (value.length > 0) found.push(value);
    } catch {
      // a value cut in the middle of an escape: the key-based rewrite below still hides it
    }
  }
  return found;
}

/** The text with the values of secret keys replaced. */
export function redactSecretKeys(text: string): string {
  return text.replace(KEY_VALUE, (_all, head: string) => `${head}"${REDACTED}"`);
}

/**
 * Values worth replacing wherever they appear: long enough not to be a common word (a password like
 * "admin" equal to the user name would otherwise blank every mention of the user; one like "secret"
 * every mention of the word). Known secrets from 6 characters, secrets seen in answers from 10.
 */
function replaceable(known: Iterable<string>, seen: Iterable<string>, keep: ReadonlySet<string>): string[] {
  const all = [...[...known].filter((v) => v.length >= 6), ...[...seen].filter((v) => v.length >= 10)];
  return [...new Set(all)].filter((v) => !keep.has(v)).sort((a, b) => b.length - a.length);
}

/** Report fields that carry free text from or about the target (not ids, statuses or citations). */
const TEXT_KEYS = new Set(['body', 'message', 'curl', 'title', 'path', 'reason', 'notes', 'verdictLine', 'replay', 'error']);

function walk(value: unknown, fn: (s: string, key: string | undefined) => string, key?: string): unknown {
  if (typeof value === 'string') return fn(value, key);
  if (Array.isArray(value)) return value.map((v) => walk(v, fn, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, fn, k);
    return out;
  }
  return value;
}

export interface RedactOptions {
  /** Secrets the run was given (password, signing secret, its token). */
  known?: readonly (string | undefined)[];
  /** Values never treated as secrets (the user name). */
  keep?: readonly (string | undefined)[];
}

/**
 * A deep copy of `report` with secrets replaced: the values of secret keys in every response body
 * (and in JSON request bodies' echoes), and every occurrence of a secret value — known or seen in an
 * answer — in any string (messages, curl commands, bodies).
 */
export function redactReport<T>(report: T, options: RedactOptions = {}): T {
  const known = (options.known ?? []).filter((s): s is string => typeof s === 'string');
  const seen: string[] = [];
  walk(report, (s, key) => {
    if (key === 'body' || key === 'message' || key === 'curl') seen.push(...secretValuesIn(s));
    return s;
  });
  const keep = new Set((options.keep ?? []).filter((s): s is string => typeof s === 'string'));
  const values = replaceable(known, seen, keep);
  const secretKeys = new Set<string>(SECRET_KEYS);
  return walk(report, (s, key) => {
    if (key !== undefined && secretKeys.has(key) && s.length > 0) return REDACTED;
    if (key === undefined || !TEXT_KEYS.has(key)) return s;
    let out = redactSecretKeys(s);
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }) as T;
}
