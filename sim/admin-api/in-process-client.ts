import { Cluster } from '../model/cluster/cluster.ts';
import type { ClusterOptions } from '../model/nodes/cluster-options.ts';
import { AdminApp, type AdminAppOptions } from './admin-app.ts';
import { jsonCopy } from './core/json-copy.ts';
import type { ApiResponse } from './core/api-exchange.ts';

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed body when it is JSON, else undefined (parsed when first read). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an API answer read by the caller's own code, as fetch's Response.json() gives it
  readonly json: any;
}

/** InProcessSim's answer: a CallResult that also gives the envelope's code without parsing the body. */
export interface InProcessCallResult extends CallResult {
  /**
   * The envelope's `code` (`json.code` when a number), read without parsing the body when the app
   * gives it (ApiResponse.code). Not enumerable: a copy or comparison of the result shows the body.
   */
  readonly code: number | undefined;
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

  async call(method: string, url: string, body?: unknown, options: CallOptions = {}): Promise<InProcessCallResult> {
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
    return callResult(res);
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

/** The answer as CallResult: the body parsed when first read (most chaos steps read only the code). */
function callResult(res: ApiResponse): InProcessCallResult {
  let parsed: { value: CallResult['json'] } | undefined;
  const json = (): CallResult['json'] => {
    if (parsed === undefined) {
      try {
        parsed = { value: JSON.parse(res.body) };
      } catch {
        parsed = { value: undefined };
      }
    }
    return parsed.value;
  };
  const result = {
    status: res.status,
    headers: res.headers,
    text: res.body,
    get json() {
      return json();
    },
  };
  return Object.defineProperty(result, 'code', {
    enumerable: false,
    get: (): number | undefined => {
      if (res.code !== undefined) return res.code;
      const code: unknown = json()?.code;
      return typeof code === 'number' ? code : undefined;
    },
  }) as InProcessCallResult;
}
