import { Cluster } from '../model/cluster/cluster.ts';
import type { ClusterOptions } from '../model/nodes/cluster-options.ts';
import { AdminApp, type AdminAppOptions } from './admin-app.ts';
import { jsonCopy } from './core/json-copy.ts';

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an API answer read by the caller's own code, as fetch's Response.json() gives it
  json: any;
}

export interface CallOptions {
  /** TCP peer address; default 127.0.0.1 (loopback, no token needed). */
  peer?: string;
  nodeId?: number;
  headers?: Record<string, string>;
  /** Raw body text instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
}

/**
 * A cluster and its admin app wired together without sockets: what unit tests, chaos runs and the
 * in-process conformance target call. Virtual time moves only through `advance`.
 */
export class InProcessSim {
  readonly cluster: Cluster;
  readonly app: AdminApp;

  constructor(options: Partial<ClusterOptions> = {}, appOptions: AdminAppOptions = {}) {
    this.cluster = new Cluster({ seed: 1, ...options }).start();
    this.app = new AdminApp(this.cluster, appOptions);
  }

  async call(method: string, url: string, body?: unknown, options: CallOptions = {}): Promise<CallResult> {
    const rawBody = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    // The value the app would parse from the text, handed along so it need not parse it (json-copy.ts).
    const bodyValue = options.rawBody === undefined && rawBody !== undefined ? jsonCopy(body) : undefined;
    const res = await this.app.handle({
      method,
      url,
      headers: { ...(rawBody !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
      body: rawBody,
      ...(bodyValue !== undefined ? { bodyValue } : {}),
      peer: options.peer ?? '127.0.0.1',
      nodeId: options.nodeId ?? 1,
    });
    let json: CallResult['json'];
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text: res.body, json };
  }

  get(url: string, options?: CallOptions): Promise<CallResult> {
    return this.call('GET', url, undefined, options);
  }

  post(url: string, body: unknown, options?: CallOptions): Promise<CallResult> {
    return this.call('POST', url, body, options);
  }

  /** Advances virtual time, running the events that fall due. */
  advance(ms: number): void {
    this.cluster.engine.advance(ms);
  }
}
