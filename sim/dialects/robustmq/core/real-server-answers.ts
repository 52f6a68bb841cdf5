/**
 * Answers the real server gives outside its handlers (reference notes §1.2, §2): the static-file
 * fallback that catches every unrouted path, axum's bare 405, plain-text extractor rejections, and
 * its envelope form B. The real-server deviations build their answers from these, so the same
 * situation answers the same way whichever deviation produces it.
 */
import { CONTRACT } from '../../../../contract/index.ts';
import type { EndpointContract } from '../../../../contract/core/types.ts';
import type { ApiRequest, ApiResponse } from '../../../admin-api/core/api-exchange.ts';

type Obj = Record<string, unknown>;

/** axum's rejections and `String` handler answers carry this content type. */
export const TEXT_PLAIN = 'text/plain; charset=utf-8';

/** The login path: its answers (and every 401) stay application/json on the real server (notes §2.2). */
export const LOGIN_PATH = '/api/v1/login';

/**
 * A request rewritten to this path reaches no endpoint: the app answers its unknown-path 404 before
 * authentication and without touching the model, and a `response` hook puts the real answer in place.
 */
const NOWHERE = '/__mqsim_real_server_fallback__';

/** Contract endpoints by path, each with its methods. */
const BY_PATH = new Map<string, EndpointContract[]>();
for (const e of CONTRACT) BY_PATH.set(e.path, [...(BY_PATH.get(e.path) ?? []), e]);

export function endpointsAt(path: string): readonly EndpointContract[] {
  return BY_PATH.get(path) ?? [];
}

export function endpointAt(method: string, path: string): EndpointContract | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return endpointsAt(path).find((e) => e.method === m);
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The request sent to the same path and query under another path. */
export function withPath(req: ApiRequest, path: string): ApiRequest {
  const q = req.url.indexOf('?');
  return { ...req, url: q === -1 ? path : `${path}${req.url.slice(q)}` };
}

/** The request re-aimed at nowhere (see NOWHERE). */
export function toNowhere(req: ApiRequest): ApiRequest {
  return { ...req, url: NOWHERE, body: undefined, headers: { ...req.headers, 'content-type': undefined } };
}

function keepHeaders(res: ApiResponse): Record<string, string> {
  const vt = res.headers['x-mqsim-virtual-time'];
  return vt === undefined ? {} : { 'x-mqsim-virtual-time': vt };
}

/** An answer with no body (axum and tower-http send no content type then). */
export function emptyAnswer(res: ApiResponse, status: number, extra: Record<string, string> = {}): ApiResponse {
  return { status, headers: { ...keepHeaders(res), ...extra }, body: '' };
}

export function textAnswer(res: ApiResponse, status: number, text: string, contentType = TEXT_PLAIN): ApiResponse {
  return { status, headers: { ...keepHeaders(res), 'content-type': contentType }, body: text };
}

/**
 * The static fallback (`ServeDir("./dist")`) without a `./dist` directory, which answers every path
 * no route matches: GET and HEAD get 404 with an empty body, any other method 405 (notes §1.2,
 * "Routes the spec names that do NOT exist"). tower-http's ServeDir names GET and HEAD in `Allow`.
 */
export function staticFallback(res: ApiResponse, method: string): ApiResponse {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' ? emptyAnswer(res, 404) : emptyAnswer(res, 405, { allow: 'GET,HEAD' });
}

/**
 * The dashboard's `index.html` as the static fallback serves it when `./dist` is deployed (notes §6:
 * `GET /` is the SPA's login page). The real file is whatever the dashboard build holds; this is the
 * shell such a build produces: a root element and the script that mounts the application.
 */
export const SPA_INDEX_HTML =
  '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="UTF-8" />\n    <meta name="viewport" content="width=device-width, initial-scale=1.0" />\n' +
  '    <title>RobustMQ Dashboard</title>\n    <script type="module" crossorigin src="/assets/index.js"></script>\n  </head>\n' +
  '  <body>\n    <div id="root"></div>\n  </body>\n</html>\n';

/** axum's answer to a method the route does not have: 405, empty body, `Allow` listing the route's methods. */
export function methodNotAllowed(res: ApiResponse, path: string): ApiResponse {
  const methods = endpointsAt(path).flatMap((e) => (e.method === 'GET' ? ['GET', 'HEAD'] : [e.method]));
  return emptyAnswer(res, 405, { allow: methods.join(',') });
}

/** The JSON object of an answer, when it is one. */
export function jsonBody(res: ApiResponse): Obj | undefined {
  try {
    const body: unknown = JSON.parse(res.body);
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Obj) : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an envelope: `message` (form A) or `error` (form B). */
export function envelopeText(body: Obj): string | undefined {
  const t = 'message' in body ? body.message : body.error;
  return typeof t === 'string' ? t : undefined;
}

/** The envelope with its text replaced, in the form it already has. */
export function withEnvelopeText(body: Obj, text: string): Obj {
  return 'message' in body ? { ...body, message: text } : { ...body, error: text };
}

/** Is this answer one of the app's envelopes (JSON with a numeric code and a data field)? */
export function isEnvelope(body: Obj | undefined): body is Obj {
  return body !== undefined && typeof body.code === 'number' && 'data' in body && ('message' in body || 'error' in body);
}

/** Replaces the JSON body of an answer, keeping status and headers. */
export function withJson(res: ApiResponse, body: Obj): ApiResponse {
  return { ...res, body: JSON.stringify(body) };
}
