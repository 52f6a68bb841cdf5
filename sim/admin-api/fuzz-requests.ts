/**
 * Test support (not served): fast-check generators of malformed admin requests and the properties
 * every answer must keep. Shared by sim/admin-api/fuzz.test.ts (a few thousand requests per run, in-process),
 * fuzz-sockets.test.ts (a sample as raw bytes over a socket) and scripts/fuzz-http.ts (100 000+), so all
 * fuzz exactly the same space.
 */
import fc from 'fast-check';
import { COMMON_LIST_PARAMS } from '../../contract/core/common.ts';
import { CONTRACT } from '../../contract/index.ts';
import type { EndpointContract, ParamSpec } from '../../contract/core/types.ts';
import type { ApiRequest, ApiResponse } from './core/api-exchange.ts';
import { parseUrl } from './core/parse-request.ts';

/** Keys that would reach an object's prototype if a layer merged them naively. */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Names no generated request may produce, so records created with them must survive the fuzz. */
export const KEEP_PREFIX = 'keepfz';

const hostileStrings = [
  '',
  ' ',
  'abc',
  '-1',
  '0',
  '1',
  '1.5',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '[1,2',
  '{"a":',
  '%',
  '%Z',
  '%ZZ',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '%00',
  '\u0000',
  '\uFFFF',
  '\uD800',
  '\uDFFF',
  'é',
  '日本語',
  '🦀',
  '\u202E',
  '../../etc/passwd',
  '<script>',
  "'; DROP TABLE x; --",
  '${x}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '99999999999999999999999999',
  '-99999999999999999999',
  '0x10',
  '1_000',
  ' 5 ',
  '+5',
];

/** A string meant to break a parser or a validator. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
);

/** Any JSON value of a wrong or odd type, proto keys included at every nesting level. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e300, 2 ** 64),
    hostileString,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;

function declared(e: EndpointContract): readonly ParamSpec[] {
  return e.list ? [...e.params, ...COMMON_LIST_PARAMS] : e.params;
}

/** A value that fits the parameter's declared type (so requests get past validation into handlers). */
function plausible(p: ParamSpec): fc.Arbitrary<unknown> {
  if (p.enum && p.enum.length) return fc.constantFrom(...p.enum);
  switch (p.type) {
    case 'bool':
      return fc.boolean();
    case 'string':
      return fc
        .string({ minLength: p.minLength ?? 0, maxLength: Math.min(p.maxLength ?? 16, 16) })
        .filter((s) => !s.startsWith(KEEP_PREFIX));
    case 'array':
    case 'string-array':
      return fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 });
    default:
      return fc.integer({ min: p.minimum ?? -5, max: Math.min(p.maximum ?? 1000, 1_000_000) });
  }
}

/** Field name → value: declared names with plausible or hostile values, plus proto keys and junk. */
function fields(e: EndpointContract): fc.Arbitrary<Array<[string, unknown]>> {
  const names = declared(e).map((p) => p.name);
  const entry: fc.Arbitrary<[string, unknown]> = names.length
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...declared(e)).chain((p) => fc.tuple(fc.constant(p.name), plausible(p))) },
        { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...names), hostileJson) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), hostileJson) },
        { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 10 }), hostileJson) },
      )
    : fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 10 })), hostileJson);
  return fc.array(entry, { maxLength: 8 });
}

/** JSON text of an object with these entries, written by hand so `__proto__` stays an own key. */
function objectText(entries: Array<[string, unknown]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
}

/** Breaks a JSON text: truncation, a stray byte, an unbalanced bracket, deep nesting. */
const brokenJson = (text: string): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
    fc
      .tuple(fc.integer({ min: 0, max: text.length }), fc.constantFrom('"', '{', '}', ',', ':', '\\', '\u0000', ']'))
      .map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
    fc.integer({ min: 60, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from(b)])),
    fc.constantFrom(
      'null',
      '[]',
      '"x"',
      '1',
      'true',
      '{"a":1}{',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
    ),
    // Invalid UTF-8 inside a string value: lone continuation bytes, overlong forms, surrogates.
    fc
      .constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])
      .map((bad) =>
        Buffer.concat([
          Buffer.from('{"tenant_name":"a'),
          Buffer.from(bad),
          Buffer.from('b","username":"'),
          Buffer.from(bad),
          Buffer.from('"}'),
        ]),
      ),
  );

/** Percent-encodes a string; lone surrogates (which encodeURIComponent refuses) go byte by byte. */
const encode = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
};

/** A query string: declared keys with odd values, proto keys, bracket forms, bad percent-encoding. */
function queryOf(e: EndpointContract): fc.Arbitrary<string> {
  const names = declared(e).map((p) => p.name);
  const key = fc.oneof(
    { weight: 4, arbitrary: names.length ? fc.constantFrom(...names) : fc.constant('limit') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...PROTO_KEYS,
        '__proto__[polluted]',
        'constructor[prototype][polluted]',
        'a[__proto__]',
        'x[]',
        'limit[0]',
        '',
      ),
    },
  );
  const value = fc.oneof(
    { weight: 2, arbitrary: hostileString.map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%Z', '%ZZ', '%FF%FE', '%C0%AF', '%ED%A0%80', '%00', '%E2%82', '+', '&&', '==', '%%25') },
    { weight: 1, arbitrary: hostileJson.map((v) => encode(JSON.stringify(v) ?? 'null')) },
  );
  return fc.array(fc.tuple(key, value), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${v}`).join('&'));
}

/** A path: the endpoint's own, or one bent out of shape. */
function pathOf(e: EndpointContract): fc.Arbitrary<string> {
  const p = e.path;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(p) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        `/${p}`,
        `${p}/`,
        `${p}//`,
        `/api/..${p}`,
        p.replace('/api/', '/api/../api/'),
        p.replace('/api/', '/api/./'),
        p.toUpperCase(),
        `${p}%00`,
        `${p}\u0000`,
        `${p}%ZZ`,
        `${p}%FF`,
        `${p}%2F`,
        `${p}/%2e%2e/`,
        `${p};x=1`,
        `${p}#frag`,
        `${p}/日本`,
        `${p}🦀`,
        '',
        '*',
        '//',
        '/api',
        '/api/',
        '?',
        '/%',
        `http://evil.example${p}`,
        `${p}?${'a'.repeat(9000)}`,
        `/${'a/'.repeat(4000)}`,
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/api/${s}`) },
  );
}

const method = (e: EndpointContract): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(e.method) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'get', 'post', 'BREW', ''),
    },
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      '',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
      'application/vnd.api+json',
      'multipart/form-data; boundary=x',
      ';;;',
      'application/jsonp',
      'APPLICATION/JSON',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const authorization = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJub25lIn0.e30.',
      'Basic YWRtaW46YWRtaW4=',
      'bearer  x  y',
      '\u0000',
    ),
  },
  { weight: 1, arbitrary: hostileString.map((s) => `Bearer ${s}`) },
);

/** One malformed request aimed at one contract endpoint. */
function requestFor(e: EndpointContract): fc.Arbitrary<ApiRequest> {
  const body: fc.Arbitrary<string | Buffer | undefined> = fields(e).chain((entries) => {
    const text = objectText(entries);
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<string | Buffer | undefined>(text) },
      { weight: 3, arbitrary: brokenJson(text) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  });
  return fc
    .record({
      method: method(e),
      path: pathOf(e),
      query: fc.option(queryOf(e), { nil: undefined, freq: 3 }),
      body,
      contentType,
      authorization,
      // Mostly loopback (no token needed), so most requests reach validation and the handlers.
      peer: fc.oneof(
        { weight: 10, arbitrary: fc.constantFrom('127.0.0.1', '::1', '::ffff:127.0.0.1') },
        { weight: 1, arbitrary: fc.constantFrom('10.1.2.3', '', '127.0.0.2', 'garbage') },
      ),
      nodeId: fc.constantFrom(1, 1, 1, 2, 3),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.authorization !== undefined) headers.authorization = r.authorization;
      const url = r.query !== undefined ? `${r.path}?${r.query}` : r.path;
      return { method: r.method, url, headers, ...(r.body !== undefined ? { body: r.body } : {}), peer: r.peer, nodeId: r.nodeId };
    });
}

/** A malformed request to any contract endpoint (endpoints picked uniformly). */
export const anyMalformedRequest: fc.Arbitrary<ApiRequest> = fc.constantFrom(...CONTRACT).chain(requestFor);

/** The endpoint a request reaches, if any (same routing rule as the app: method and exact path). */
function routed(req: ApiRequest): EndpointContract | undefined {
  let path: string;
  try {
    path = parseUrl(req.url).path;
  } catch {
    return undefined;
  }
  const method = req.method.toUpperCase() === 'HEAD' ? 'GET' : req.method.toUpperCase(); // HEAD is served as GET without a body
  return CONTRACT.find((e) => e.path === path && e.method === method);
}

/**
 * What every answer must be: no 5xx (except a status the contract documents for that endpoint, like
 * the readiness probe's 503), and a well-formed envelope (a JSON object with a numeric code, a text
 * when code ≠ 0) unless the endpoint's documented answer is raw text (`GET /`, `/metrics`).
 * Returns the problem, or undefined.
 */
export function answerProblem(req: ApiRequest, res: ApiResponse): string | undefined {
  const e = routed(req);
  if (res.status >= 500 && !(e?.response.otherStatuses ?? []).includes(res.status)) return `HTTP ${res.status}: ${res.body.slice(0, 300)}`;
  const raw = e !== undefined && e.response.kind !== 'envelope' && res.status < 400;
  if (raw) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    return `HTTP ${res.status}: body is not JSON: ${res.body.slice(0, 200)}`;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return `HTTP ${res.status}: body is not a JSON object`;
  const env = json as Record<string, unknown>;
  if (typeof env.code !== 'number') return `HTTP ${res.status}: envelope code is not a number: ${res.body.slice(0, 200)}`;
  if (env.code !== 0) {
    const text = typeof env.message === 'string' ? env.message : typeof env.error === 'string' ? env.error : '';
    if (text.length === 0) return `HTTP ${res.status}: failure code ${env.code} without a message: ${res.body.slice(0, 200)}`;
  }
  if (res.status >= 400 && env.code === 0) return `HTTP ${res.status} with success code 0`;
  return undefined;
}

/** Readable form of a request, for failure messages (bodies cut short). */
export function describeRequest(req: ApiRequest): string {
  const body =
    req.body === undefined
      ? ''
      : Buffer.isBuffer(req.body)
        ? `<${req.body.length} bytes> ${JSON.stringify(req.body.toString('latin1').slice(0, 300))}`
        : JSON.stringify(req.body.slice(0, 300));
  return `${req.method} ${JSON.stringify(req.url.slice(0, 300))} peer=${req.peer} node=${req.nodeId} headers=${JSON.stringify(req.headers)} body=${body}`;
}

/** The built-in prototypes' own property names: a fuzz compares them before and after (no pollution). */
export function prototypeSnapshot(): string {
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
  ]);
}
