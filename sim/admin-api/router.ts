import type { EndpointContract } from '../../contract/core/types.ts';

export type RouteMatch =
  { kind: 'found'; endpoint: EndpointContract } | { kind: 'wrong-method'; allowed: string[] } | { kind: 'unknown-path' };

/** Exact-path routing over the contract: the API has no path parameters. */
export class Router {
  private readonly byPath = new Map<string, Map<string, EndpointContract>>();

  constructor(endpoints: readonly EndpointContract[]) {
    for (const e of endpoints) {
      const methods = this.byPath.get(e.path) ?? new Map<string, EndpointContract>();
      if (methods.has(e.method)) throw new Error(`contract declares ${e.method} ${e.path} twice`);
      methods.set(e.method, e);
      this.byPath.set(e.path, methods);
    }
  }

  match(method: string, path: string): RouteMatch {
    const methods = this.byPath.get(path);
    if (!methods) return { kind: 'unknown-path' };
    const endpoint = methods.get(method === 'HEAD' ? 'GET' : method);
    if (!endpoint) return { kind: 'wrong-method', allowed: [...methods.keys()] };
    return { kind: 'found', endpoint };
  }
}
