/**
 * The admin app answering an origin in-process: requests a client in this process makes to `origin`
 * are handed to the app without a socket, as if they came from `peer`; other origins pass through
 * untouched. Covered: `http`/`https` (axios, got, superagent...) and the global `fetch`, through
 * @mswjs/interceptors; undici's own API (`undici.request`, `undici.fetch`, `stream`, `pipeline`)
 * through undici's global dispatcher (in-process-dispatcher.ts). Not covered: a request sent through
 * an undici Agent, Pool or Client the code creates itself and passes as `dispatcher` (it bypasses
 * the global dispatcher): pass `interception.dispatcher` there instead.
 *
 * Tests use it to drive a client library against the simulator exactly as it sends, and to send
 * from a peer that is not loopback (so tokens are checked) without leaving the process.
 *
 * Several origins can be intercepted at once (one app each): the patches are applied when the first
 * is registered and removed when the last is disposed, whatever the order of the disposals.
 */
import { syncBuiltinESMExports } from 'node:module';
import { BatchInterceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { AdminApp } from '../../admin-api/admin-app.ts';
import { InProcessDispatcher, type DispatchedAnswer, type DispatchedRequest } from './in-process-dispatcher.ts';

/** Who the intercepted requests come from, as the admin app sees them. */
export interface InterceptOptions {
  /** The TCP peer address the app sees (default 203.0.113.10, a documentation address: not loopback). */
  peer?: string;
  /** The node whose listener the requests reach (default 1). */
  nodeId?: number;
}

/** An origin answered in-process; `dispose()` ends it. */
export interface Interception {
  /** The origin answered in-process, e.g. `http://broker:58080`. */
  readonly origin: string;
  /** Requests answered so far. */
  readonly served: number;
  /**
   * An undici dispatcher answering the origin in-process (others go to the global dispatcher), for
   * code that takes a `dispatcher` option instead of using undici's global one.
   */
  readonly dispatcher: Dispatcher;
  /** Stops answering the origin; the last interception disposed restores `http`, `https`, `fetch` and undici's global dispatcher. */
  dispose(): void;
}

/** Statuses whose answers carry no body (the Fetch standard refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type Answer = (req: DispatchedRequest) => Promise<DispatchedAnswer>;

/** The origins answered in-process right now, and the patches that exist while there is one. */
const active = new Map<string, Answer>();
let patches: { interceptor: { dispose(): void }; dispatcher: InProcessDispatcher } | undefined;

const route = (origin: string): Answer | undefined => active.get(origin);

function applyPatches(): void {
  const interceptor = new BatchInterceptor({
    name: 'mqsim-intercept',
    interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()],
  });
  interceptor.on('request', async ({ request, controller }) => {
    const url = new URL(request.url);
    const answer = route(url.origin);
    if (!answer) return;
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const res = await answer({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      ...(body && body.length > 0 ? { body } : {}),
    });
    const noBody = NULL_BODY.has(res.status) || request.method === 'HEAD';
    controller.respondWith(new Response(noBody ? null : res.body, { status: res.status, headers: res.headers }));
  });
  interceptor.apply();
  // The interceptor patches properties of the `http` and `https` modules; named ESM imports of them
  // (`import { request } from 'node:http'`) are bindings Node updates only when asked.
  syncBuiltinESMExports();
  const dispatcher = new InProcessDispatcher(route, getGlobalDispatcher());
  setGlobalDispatcher(dispatcher);
  patches = { interceptor, dispatcher };
}

function removePatches(): void {
  if (!patches) return;
  patches.interceptor.dispose();
  syncBuiltinESMExports();
  // Put the previous dispatcher back only if ours is still the global one: one installed after it
  // (by the code under test) stays, and keeps forwarding to ours, which then passes everything on.
  if (getGlobalDispatcher() === patches.dispatcher) setGlobalDispatcher(patches.dispatcher.next);
  patches = undefined;
}

/** Answers every request this process makes to `origin` from `app`, opening no socket (see the top of this file). */
export function interceptOrigin(app: AdminApp, origin: string, options: InterceptOptions = {}): Interception {
  const wanted = new URL(origin).origin;
  if (active.has(wanted)) throw new Error(`${wanted} is already intercepted; dispose that interception first`);
  let served = 0;
  let disposed = false;
  const answer: Answer = async (req) => {
    const res = await app.handle({ ...req, peer: options.peer ?? '203.0.113.10', nodeId: options.nodeId ?? 1 });
    served++;
    return res;
  };
  active.set(wanted, answer);
  if (!patches) applyPatches();
  const own = new InProcessDispatcher((o) => (o === wanted && !disposed ? answer : undefined), getGlobalDispatcher());
  return {
    origin: wanted,
    get served() {
      return served;
    },
    dispatcher: own,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      active.delete(wanted);
      if (active.size === 0) removePatches();
    },
  };
}
