/**
 * The admin app answering an origin in-process: requests a client in this process makes to `origin`
 * through `http`/`https` (axios, got, superagent...) or the global `fetch` are handed to the app
 * without a socket (@mswjs/interceptors), as if they came from `peer`; other origins pass through
 * untouched. Tests use it to drive a client library against the simulator exactly as it sends, and
 * to send from a peer that is not loopback (so tokens are checked) without leaving the process.
 */
import { BatchInterceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import type { AdminApp } from './admin-app.ts';

export interface InterceptOptions {
  /** The TCP peer address the app sees (default 203.0.113.10, a documentation address: not loopback). */
  peer?: string;
  /** The node whose listener the requests reach (default 1). */
  nodeId?: number;
}

export interface Interception {
  /** Requests answered so far. */
  readonly served: number;
  /** Restores `http`, `https` and `fetch`. */
  dispose(): void;
}

/** Statuses whose answers carry no body (the Fetch standard refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function interceptOrigin(app: AdminApp, origin: string, options: InterceptOptions = {}): Interception {
  const wanted = new URL(origin).origin;
  const interceptor = new BatchInterceptor({ name: 'mqsim-intercept', interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()] });
  let served = 0;
  interceptor.on('request', async ({ request, controller }) => {
    const url = new URL(request.url);
    if (url.origin !== wanted) return;
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const answer = await app.handle({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      ...(body && body.length > 0 ? { body } : {}),
      peer: options.peer ?? '203.0.113.10',
      nodeId: options.nodeId ?? 1,
    });
    served++;
    const noBody = NULL_BODY.has(answer.status) || request.method === 'HEAD';
    controller.respondWith(new Response(noBody ? null : answer.body, { status: answer.status, headers: answer.headers }));
  });
  interceptor.apply();
  return {
    get served() {
      return served;
    },
    dispose: () => interceptor.dispose(),
  };
}
