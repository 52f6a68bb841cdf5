/**
 * Cross-origin resource sharing on every node listener, as the real server does it: its whole router
 * sits inside tower-http's `CorsLayer::permissive()` (reference notes §1.1), so a dashboard served
 * from another origin can call the API. Every answer says any origin may read it; a browser's
 * preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered 200 before
 * authentication — a browser never sends a token with a preflight.
 *
 * One difference, on purpose: the permissive layer answers `Access-Control-Allow-Headers: *`, and
 * the Fetch standard does not let `*` cover `Authorization` (Chromium still accepts it, with a
 * deprecation warning). Here the requested headers are allowed by name (and `authorization`,
 * `content-type` always): the form every browser accepts for a page sending its Bearer token.
 */

type Headers = Record<string, string | string[] | undefined>;

/** Headers every answer carries (the permissive layer's, for a request without credentials). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
  vary: 'origin, access-control-request-method, access-control-request-headers',
};

const ALWAYS_ALLOWED_HEADERS = ['authorization', 'content-type'];
const ALLOWED_METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS'];

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/** Is this a browser's CORS preflight (and not an ordinary OPTIONS request)? */
export function isPreflight(method: string, headers: Headers): boolean {
  return method === 'OPTIONS' && one(headers.origin) !== undefined && one(headers['access-control-request-method']) !== undefined;
}

/** The answer to a preflight: 200, empty, allowing the requested method and headers from any origin. */
export function preflightAnswer(headers: Headers): { status: number; headers: Record<string, string>; body: string } {
  const method = (one(headers['access-control-request-method']) ?? '').trim().toUpperCase();
  const requested = (one(headers['access-control-request-headers']) ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h));
  const methods = /^[A-Z]+$/.test(method) && !ALLOWED_METHODS.includes(method) ? [...ALLOWED_METHODS, method] : ALLOWED_METHODS;
  return {
    status: 200,
    headers: {
      ...CORS_HEADERS,
      'access-control-allow-methods': methods.join(', '),
      'access-control-allow-headers': [...new Set([...ALWAYS_ALLOWED_HEADERS, ...requested])].join(', '),
      'access-control-max-age': '600',
      'content-length': '0',
    },
    body: '',
  };
}
