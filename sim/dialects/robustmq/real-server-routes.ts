/**
 * The real server's routing, authentication and answer forms where they break a rule of the spec
 * (reference notes §11.1-§11.3, §11.8, §11.15). Each switch reproduces one behaviour as the notes
 * describe it; switched on together they answer these requests as the real server does.
 */
import { CONTRACT } from '../../../contract/index.ts';
import { OperationError } from '../../model/errors/operation-error.ts';
import { bodyText, headerOf, type ApiRequest, type ApiResponse } from '../../admin-api/core/api-exchange.ts';
import { isJsonMediaType } from '../../admin-api/core/parse-request.ts';
import type { Deviation, DeviationHooks } from '../../admin-api/hooks/deviation.ts';
import {
  endpointAt,
  envelopeText,
  isEnvelope,
  jsonBody,
  LOGIN_PATH,
  pathOf,
  SPA_INDEX_HTML,
  staticFallback,
  textAnswer,
  TEXT_PLAIN,
  toNowhere,
  withPath,
} from './core/real-server-answers.ts';
import {
  BODY_LIMIT_TEXT,
  extractorOf,
  JSON_CONTENT_TYPE_TEXT,
  JSON_DATA_PREFIX,
  JSON_SYNTAX_PREFIX,
  jsonDataError,
  jsonSyntaxError,
  QUERY_REJECTION_PREFIX,
  queryRejection,
} from './core/real-server-rejections.ts';

type Response = NonNullable<DeviationHooks['response']>;

const ids = (pred: (e: (typeof CONTRACT)[number]) => boolean) => CONTRACT.filter(pred).map((e) => e.id);

/** A Query rejection computed by a `validation` hook travels as a 400 envelope; the real one is plain text. */
function queryRejectionsAsText(res: ApiResponse): ApiResponse {
  if (res.status !== 400) return res;
  const body = jsonBody(res);
  const text = isEnvelope(body) ? envelopeText(body) : undefined;
  return text?.startsWith(QUERY_REJECTION_PREFIX) ? textAnswer(res, 400, text) : res;
}

function queryRejected(text: string, param: string): OperationError {
  return new OperationError('invalid', `${QUERY_REJECTION_PREFIX}${text}`, param);
}

/**
 * A body axum's `Json` extractor refuses before deserializing is made one the app refuses before
 * touching the model, so the `response` hook can put the real answer in place: no Content-Type
 * (415 for real) becomes a text body, an empty body (a syntax error for real) an unparsable one.
 */
function plainJsonRequest(req: ApiRequest): ApiRequest {
  if (req.method.toUpperCase() !== 'POST') return req;
  const e = endpointAt('POST', pathOf(req.url));
  if (!e || extractorOf(e) !== 'json') return req;
  const type = headerOf(req, 'content-type');
  if (!type || !isJsonMediaType(type))
    return { ...req, headers: { ...req.headers, 'content-type': type || 'text/plain' }, body: bodyText(req) === '' ? ' ' : req.body };
  if (bodyText(req).trim() === '') return { ...req, body: '\u0000' };
  return req;
}

/** The real answers of `Json<T>` rejections: plain text 415 / 400 / 422 (notes §2.3). */
function plainJsonAnswer(res: ApiResponse, path: string, req: ApiRequest): ApiResponse {
  const e = endpointAt(req.method, path);
  if (!e || extractorOf(e) !== 'json' || (res.status !== 400 && res.status !== 415 && res.status !== 413)) return res;
  if (res.status === 415) return textAnswer(res, 415, JSON_CONTENT_TYPE_TEXT);
  if (res.status === 413) return textAnswer(res, 413, BODY_LIMIT_TEXT);
  const body = jsonBody(res);
  const text = isEnvelope(body) ? (envelopeText(body) ?? '') : '';
  const sent = bodyText(req);
  if (/^request body (is not valid JSON|is nested deeper)/.test(text))
    return textAnswer(res, 400, `${JSON_SYNTAX_PREFIX}${jsonSyntaxError(sent.trim() === '' ? '' : sent)}`);
  if (text.startsWith('invalid parameter ')) {
    const data = jsonDataError(e, sent);
    if (data) return textAnswer(res, 422, `${JSON_DATA_PREFIX}${data}`);
  }
  return res;
}

/** The path of a removed route answers as the static fallback would (notes §1.2: no `./dist`). */
function removedRoute(paths: readonly string[], aliases: Readonly<Record<string, string>> = {}): DeviationHooks {
  const removed = new Set(paths);
  return {
    request: (req) => {
      const path = pathOf(req.url);
      if (removed.has(path)) return toNowhere(req);
      return aliases[path] ? withPath(req, aliases[path]) : req;
    },
    response: (res, path, _cluster, req) => (removed.has(path) ? staticFallback(res, req.method) : res),
  };
}

const asTextPlain: Response = (res, path) => {
  const type = res.headers['content-type'] ?? '';
  if (!/^application\/json/i.test(type) || path === LOGIN_PATH || res.status === 401) return res;
  return { ...res, headers: { ...res.headers, 'content-type': TEXT_PLAIN } };
};

/** GET lists whose request struct declares filter_field / filter_values / exact_match (notes §2.3). */
const DECLARE_FILTERS = new Set([
  'cluster.tenant.list',
  'cluster.user.list',
  'cluster.schema-bind.list',
  'mqtt.system-alarm.list',
  'mqtt.ban-log.list',
]);
const FILTER_KEYS = ['filter_field', 'filter_values', 'exact_match'];

export const REAL_SERVER_ROUTE_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'extractor-rejections-plain-text',
    spec: 'breaks',
    notes: 'notes §11.1, §2.3',
    rule: 'Response envelope: "Failure: `code` is non-zero, `data` is null or an empty string, and `message` or `error` holds a text."',
    endpoint: 'cluster.topic.detail',
    alsoEndpoints: [
      ...ids((e) => e.method === 'GET' && e.id !== 'cluster.topic.detail'),
      ...ids((e) => e.method === 'POST' && extractorOf(e) === 'json'),
    ],
    description:
      'a GET with a missing or unparsable query field answers plain-text 400 "Failed to deserialize query string: …", and login, config set, offset/*, message read and storage-engine bodies plain-text 415/400/422, all without an envelope',
    finding: 'envelope.forms',
    checks: ['envelope.answers-are-envelopes'],
    caught: true,
    hooks: {
      // Query<T> reads the query string only: a GET body never reaches the handler.
      request: (req) => (req.method.toUpperCase() === 'GET' ? { ...req, body: undefined } : plainJsonRequest(req)),
      validation: (input, cx) => {
        if (cx.endpoint.method !== 'GET') return input;
        const text = queryRejection(cx.endpoint, input.raw as Record<string, string | string[]>);
        if (text !== undefined) throw queryRejected(text, /`(\w+)`/.exec(text)?.[1] ?? text.split(':')[0]);
        return input;
      },
      response: (res, path, _cluster, req) => queryRejectionsAsText(plainJsonAnswer(res, path, req)),
    },
  },
  {
    id: 'json-as-text-plain',
    spec: 'breaks',
    notes: 'notes §11.2, §2.1',
    rule: 'What the service does, general conventions: "| Wire format | JSON request and response bodies |" — the JSON answers are labelled Content-Type text/plain, so a client that goes by the media type does not read them as JSON',
    endpoint: 'cluster.tenant.list',
    alsoEndpoints: ids((e) => e.response.kind === 'envelope' && e.id !== 'cluster.tenant.list' && e.id !== 'auth.login'),
    description:
      'every envelope answer is sent with Content-Type text/plain; charset=utf-8 (handlers return String); login and 401 answers stay application/json',
    finding: 'conventions.wire-format',
    checks: ['content-type'],
    caught: true,
    hooks: { response: asTextPlain },
  },
  {
    id: 'status-route-removed',
    spec: 'breaks',
    notes: 'notes §11.3, §1.2',
    rule: 'Endpoints, Index: "| GET | /api/status | cluster status |"',
    endpoint: 'cluster.status',
    description:
      'GET /api/status is not routed: the static fallback answers 404 with an empty body (no token needed); the cluster status moved to /api/info',
    finding: 'endpoints.index.status',
    checks: ['happy-path'],
    caught: true,
    hooks: removedRoute(['/api/status']),
  },
  {
    id: 'healthy-route-removed',
    spec: 'breaks',
    notes: 'notes §11.3, §1.2',
    rule: 'Endpoints, "Endpoints that exist but whose request and response shapes are given only by method and path": "| GET | /api/cluster/healthy |"',
    endpoint: 'cluster.healthy',
    description: 'GET /api/cluster/healthy is not routed: the static fallback answers 404 with an empty body',
    finding: 'endpoints.path-only.healthy',
    checks: ['exists'],
    caught: true,
    hooks: removedRoute(['/api/cluster/healthy']),
  },
  {
    id: 'message-routes-moved',
    spec: 'breaks',
    notes: 'notes §11.3, §1.2',
    rule: 'Endpoints, "Endpoints that exist but whose request and response shapes are given only by method and path": "| POST | /api/mqtt/message/send, /api/mqtt/message/read |"',
    endpoint: 'mqtt.message.send',
    alsoEndpoints: ['mqtt.message.read'],
    description:
      "message send and read live at /api/cluster/message/send|read; a POST to the spec's /api/mqtt/message/send|read gets the static fallback's 405 with an empty body (a GET 404)",
    // `exists` needs a happy path, which these path-only endpoints do not run; the auth and envelope checks see the 405.
    finding: 'endpoints.path-only.messages',
    checks: ['exists', 'auth.no-token', 'envelope.answers-are-envelopes'],
    caught: true,
    hooks: removedRoute(['/api/mqtt/message/send', '/api/mqtt/message/read'], {
      '/api/cluster/message/send': '/api/mqtt/message/send',
      '/api/cluster/message/read': '/api/mqtt/message/read',
    }),
  },
  {
    id: 'root-serves-spa',
    spec: 'breaks',
    notes: 'notes §11.3, §1.2, §6',
    rule: 'Endpoints, Login and status: "**GET /**: returns either the plain version text of the service or the cluster status object; both forms are described."',
    endpoint: 'root',
    description: "GET / answers the dashboard's index.html (200, text/html) instead of the version text or the status object",
    finding: 'endpoints.index.root',
    maskedBy: {
      id: 'root-static-fallback',
      why: "the two are the real server's GET / with and without a deployed ./dist; with both on, / is the fallback's 404 and shows the same finding once",
    },
    checks: ['happy-path'],
    caught: true,
    hooks: {
      response: (res, path, _cluster, req) =>
        path === '/' && res.status === 200 && ['GET', 'HEAD'].includes(req.method.toUpperCase())
          ? textAnswer(res, 200, SPA_INDEX_HTML, 'text/html')
          : res,
    },
  },
  {
    id: 'root-static-fallback',
    spec: 'breaks',
    notes: 'notes §11.3, §1.2, §6',
    rule: 'Endpoints, Login and status: "**GET /**: returns either the plain version text of the service or the cluster status object; both forms are described."',
    endpoint: 'root',
    description:
      'GET / is not routed: the static fallback answers it, 404 with an empty body when no dashboard is deployed (./dist absent; mqsim serve --ui DIR serves one, with index.html at /)',
    finding: 'endpoints.index.root',
    checks: ['happy-path'],
    caught: true,
    hooks: removedRoute(['/']),
  },
  {
    id: 'non-api-paths-open',
    spec: 'breaks',
    notes: 'notes §11.15, §5',
    rule: 'Authentication: "2. A request from any other address must carry the header `Authorization: Bearer <ACCESS_TOKEN>`." and "3. These paths are always reachable without a token: `/api/v1/login`, `/health/*`, `/metrics`."',
    endpoint: 'root',
    description:
      'every path outside /api (GET / among them) is answered without a token from any peer: the auth middleware only wraps the /api nest',
    finding: 'auth.rule-5-401',
    maskedBy: {
      id: 'root-static-fallback',
      why: 'GET / is the only endpoint of the spec outside /api that needs a token; with / unrouted (the static fallback answers it, 404) the missing token has nothing to open',
    },
    checks: ['auth.no-token', 'auth.invalid-token', 'auth.alg-none-token', 'auth.expired-token', 'auth.tampered-token'],
    caught: true,
    hooks: {
      request: (req) => {
        const path = pathOf(req.url);
        return path === '/api' || path.startsWith('/api/') ? req : { ...req, peer: '127.0.0.1' };
      },
    },
  },
  {
    id: 'filter-values-unusable-in-query',
    spec: 'breaks',
    notes: 'notes §11.8, §2.3, §3',
    rule: 'Common list parameters: "| filter_values | array of string | no | values to filter on |" together with "| GET parameters | sent in the URL query string (some listings also show them as a JSON object; the field names are the same) |"',
    endpoint: 'cluster.tenant.list',
    alsoEndpoints: ['cluster.user.list', 'cluster.schema-bind.list', 'mqtt.system-alarm.list', 'mqtt.ban-log.list'],
    description:
      'GET lists cannot filter by filter_values: the tenant, user, schema-bind, system-alarm and ban-log lists refuse it with 400 "Failed to deserialize query string: filter_values: invalid type: string \\"x\\", expected a sequence" (repeated: duplicate field), the other GET lists ignore it. The real server sends that refusal as plain text: that part is the switch extractor-rejections-plain-text, so this one answers it in the envelope and shows one behaviour',
    finding: 'list-params.filter-values',
    checks: ['list.filter_values.exact', 'list.filter_values.contains'],
    caught: true,
    hooks: {
      // serde_urlencoded knows no bracket forms: `filter_values[]` is an unknown key, ignored.
      request: (req) => {
        if (req.method.toUpperCase() !== 'GET' || !req.url.includes('?')) return req;
        const [path, search] = [req.url.slice(0, req.url.indexOf('?')), req.url.slice(req.url.indexOf('?') + 1)];
        const params = new URLSearchParams(search);
        const kept = new URLSearchParams();
        for (const [k, v] of params) kept.append(/^filter_values\[\d*\]$/.test(k) ? 'x_unknown_bracket_key' : k, v);
        return { ...req, url: `${path}?${kept.toString()}` };
      },
      validation: (input, cx) => {
        if (cx.endpoint.method !== 'GET' || !cx.endpoint.list) return input;
        const raw = input.raw as Record<string, string | string[]>;
        if (!DECLARE_FILTERS.has(cx.endpoint.id)) {
          const kept = Object.fromEntries(Object.entries(raw).filter(([k]) => !FILTER_KEYS.includes(k)));
          return { specs: input.specs, raw: kept };
        }
        const values = raw.filter_values;
        if (values === undefined) return input;
        if (Array.isArray(values)) throw queryRejected('duplicate field `filter_values`', 'filter_values');
        throw queryRejected(`filter_values: invalid type: string ${JSON.stringify(values)}, expected a sequence`, 'filter_values');
      },
    },
  },
];
