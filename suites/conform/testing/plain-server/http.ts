import type { IncomingMessage, ServerResponse } from 'node:http';
import { envelopeBody, invalid, refusal, Refusal, type Answer, type EnvelopeChoice } from './answers.ts';
import type { Auth } from './auth.ts';
import { nodeHealth, ready, status } from './cluster.ts';
import { FAMILIES, type Clock } from './families.ts';
import type { Params } from './list-query.ts';
import type { Body } from './rules.ts';
import type { PlainStore } from './store.ts';

/**
 * Routing and the wire: one route per path (method, open or token, handler); GET parameters from
 * the query string (a repeated key is an array), POST parameters from a JSON body; every answer in
 * the server's envelope, as JSON.
 */

interface Route {
  method: 'GET' | 'POST';
  /** Reachable without a token from any peer (Authentication, rule 3). */
  open?: boolean;
  handle(params: Params): Answer | Promise<Answer>;
}

/** Bodies above this size are refused (the spec gives no limit). */
const MAX_BODY_BYTES = 1024 * 1024;

export function routesOf(store: PlainStore, auth: Auth, clock: Clock): Map<string, Route> {
  const startedAt = Math.floor(clock.now() / 1000);
  const clusterStatus = () => status(startedAt, store.writes, clock.now());
  const routes = new Map<string, Route>([
    ['/health/ready', { method: 'GET', open: true, handle: ready }],
    ['/health/node', { method: 'GET', open: true, handle: nodeHealth }],
    ['/api/v1/login', { method: 'POST', open: true, handle: (p) => auth.login(p) }],
    ['/api/status', { method: 'GET', handle: clusterStatus }],
    ['/api/info', { method: 'GET', handle: clusterStatus }],
    ['/api/cluster/schema-bind/create', { method: 'POST', handle: (p) => store.bind(p) }],
    ['/api/cluster/schema-bind/delete', { method: 'POST', handle: (p) => store.unbind(p) }],
    ['/api/cluster/schema-bind/list', { method: 'GET', handle: (p) => store.listBindings(p) }],
  ]);
  for (const f of FAMILIES) {
    routes.set(f.paths.create, { method: 'POST', handle: (p) => store.create(f, p) });
    routes.set(f.paths.delete, { method: 'POST', handle: (p) => store.remove(f, p) });
    routes.set(f.paths.list, { method: f.listMethod ?? 'GET', handle: (p) => store.list(f, p) });
    if (f.paths.update) routes.set(f.paths.update, { method: 'POST', handle: (p) => store.updateTenant(p) });
  }
  return routes;
}

function queryParams(url: URL): Params {
  const out: Params = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length === 1 ? all[0] : all;
  }
  return out;
}

/** The whole body; one above the limit is read to its end (so the connection stays usable) and refused. */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new Refusal(refusal(413, 400, `request body larger than ${MAX_BODY_BYTES} bytes`));
  return Buffer.concat(chunks).toString('utf8');
}

async function bodyParams(req: IncomingMessage): Promise<Body> {
  const raw = await readBody(req);
  if (raw.trim() === '') return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json')
    throw new Refusal(refusal(415, 400, 'POST parameters are a JSON body: send Content-Type application/json'));
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (e) {
    throw new Refusal(invalid(`request body is not valid JSON: ${(e as Error).message}`));
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Refusal(invalid('request body must be a JSON object'));
  return body as Body;
}

/** The node:http handler of the plain server. */
export function httpHandler(routes: Map<string, Route>, auth: Auth, choice: EnvelopeChoice) {
  async function answer(req: IncomingMessage): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://plain');
    const route = routes.get(url.pathname);
    if (!route) return refusal(404, 404, `no endpoint at ${url.pathname}`);
    if (req.method !== route.method) return refusal(405, 400, `${url.pathname} takes ${route.method}, not ${req.method}`);
    if (!route.open) {
      const denied = await auth.refuses(req.socket.remoteAddress, req.headers.authorization);
      if (denied) return denied;
    }
    const params = route.method === 'GET' ? queryParams(url) : await bodyParams(req);
    return route.handle(params);
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    answer(req)
      .catch((e: unknown) => (e instanceof Refusal ? e.answer : refusal(500, 500, `internal error: ${(e as Error).message}`)))
      .then((a) => {
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(envelopeBody(a, choice));
      })
      .catch(() => res.destroy());
  };
}
