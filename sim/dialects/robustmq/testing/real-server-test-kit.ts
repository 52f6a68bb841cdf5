/**
 * Test support for the real-server switches: one simulated cluster served by the unbroken app and by
 * an app per switch, so a test compares both answers to the same request on the same model.
 */
import { Cluster } from '../../../model/cluster/cluster.ts';
import type { ClusterOptions } from '../../../model/nodes/cluster-options.ts';
import { AdminApp } from '../../../admin-api/admin-app.ts';
import type { CallOptions, CallResult } from '../../../admin-api/in-process-client.ts';
import { resolveDeviations } from '../../../switches/resolve-switches.ts';

export interface Caller {
  call(method: string, url: string, body?: unknown, options?: CallOptions): Promise<CallResult>;
  get(url: string, options?: CallOptions): Promise<CallResult>;
  post(url: string, body: unknown, options?: CallOptions): Promise<CallResult>;
}

function callerOf(app: AdminApp): Caller {
  const call = async (method: string, url: string, body?: unknown, options: CallOptions = {}): Promise<CallResult> => {
    const rawBody = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const res = await app.handle({
      method,
      url,
      headers: { ...(rawBody !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
      body: rawBody,
      peer: options.peer ?? '127.0.0.1',
      nodeId: options.nodeId ?? 1,
    });
    let json: any;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text: res.body, json };
  };
  return { call, get: (url, o) => call('GET', url, undefined, o), post: (url, body, o) => call('POST', url, body, o) };
}

/** A cluster with its unbroken app (`plain`) and, on demand, an app with some switches on (`with`). */
export class TwinApps {
  readonly cluster: Cluster;
  readonly plain: Caller;

  /** `prepare` runs before the cluster starts (e.g. to size the demo population). */
  constructor(options: Partial<ClusterOptions> = { workload: 'demo', seed: 3 }, prepare?: (cluster: Cluster) => void) {
    this.cluster = new Cluster({ seed: 1, ...options });
    prepare?.(this.cluster);
    this.cluster.start();
    this.plain = callerOf(new AdminApp(this.cluster));
  }

  with(...deviations: string[]): Caller {
    return callerOf(new AdminApp(this.cluster, { deviations: resolveDeviations(deviations) }));
  }

  /** Advances virtual time, running the events that fall due. */
  advance(ms: number): void {
    this.cluster.engine.advance(ms);
  }
}

/** A peer the spec does not exempt from tokens. */
export const REMOTE = '10.0.0.9';
