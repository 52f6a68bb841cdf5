import type { EndpointContract, ParamSpec } from '../../../contract/core/types.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import type { ApiRequest, ApiResponse } from '../core/api-exchange.ts';
import { parseUrl } from '../core/parse-request.ts';
import type { Deviation, DeviationContext, ExtraRoute, NextResult } from './deviation.ts';

/**
 * The chosen deviations as the hook points the admin app calls. With none chosen every hook
 * is the identity, so the unbroken app pays one empty loop per point. Hooks of several deviations
 * compose in the order given. The switches come resolved (sim/switches/resolve-switches.ts turns ids
 * into switches): the admin API never imports the catalogue of faults and dialects built on it.
 */
export class AppliedDeviations {
  readonly active: readonly Deviation[];
  /** Extra routes of the active switches by `METHOD path`. */
  private readonly routes = new Map<string, ExtraRoute>();

  constructor(
    switches: readonly Deviation[],
    private readonly cluster: Cluster,
  ) {
    this.active = switches;
    for (const d of this.active) for (const r of d.hooks.routes ?? []) this.routes.set(`${r.method} ${r.path}`, r);
  }

  /** Before routing and authentication; the request itself, not a promise, when no switch is on (no await per request). */
  request(req: ApiRequest): ApiRequest | Promise<ApiRequest> {
    if (this.active.length === 0) return req;
    return this.requestThroughHooks(req);
  }

  private async requestThroughHooks(req: ApiRequest): Promise<ApiRequest> {
    let out = req;
    for (const d of this.active) if (d.hooks.request) out = await d.hooks.request(out, this.cluster);
    return out;
  }

  /** The specs to validate against and the raw fields to validate; may throw an OperationError. */
  validation(
    endpoint: EndpointContract,
    specs: readonly ParamSpec[],
    raw: Record<string, unknown>,
  ): { specs: readonly ParamSpec[]; raw: Record<string, unknown> } {
    let out = { specs, raw };
    const cx: DeviationContext = { cluster: this.cluster, endpoint };
    for (const d of this.active) if (d.hooks.validation) out = d.hooks.validation(out, cx);
    return out;
  }

  /** Runs `next` (handler + list query) wrapped by every active `around` hook, first given outermost. */
  around(endpoint: EndpointContract, params: Record<string, unknown>, next: NextResult): Promise<unknown> {
    const cx: DeviationContext = { cluster: this.cluster, endpoint };
    let chain: NextResult = next;
    for (const d of [...this.active].reverse()) {
      const hook = d.hooks.around;
      if (!hook) continue;
      const inner = chain;
      chain = (p, e) => hook(p, (p2, e2) => inner(p2, e2 ?? e), e ? { ...cx, endpoint: e } : cx);
    }
    return chain(params);
  }

  /** The extra route of an active switch at this method and path (HEAD reads as GET; then `*`), if any. */
  route(method: string, path: string): ExtraRoute | undefined {
    if (this.routes.size === 0) return undefined;
    return this.routes.get(`${method === 'HEAD' ? 'GET' : method} ${path}`) ?? this.routes.get(`* ${path}`);
  }

  /** The rate limiting an active switch puts in place of the app's, if any (the last one given wins). */
  rateLimit(): NonNullable<Deviation['hooks']['rateLimit']> | undefined {
    let out: NonNullable<Deviation['hooks']['rateLimit']> | undefined;
    for (const d of this.active) out = d.hooks.rateLimit ?? out;
    return out;
  }

  /** The final answer. */
  response(req: ApiRequest, res: ApiResponse): ApiResponse {
    if (this.active.length === 0) return res;
    const { path } = parseUrl(req.url);
    let out = res;
    for (const d of this.active) if (d.hooks.response) out = d.hooks.response(out, path, this.cluster, req);
    return out;
  }
}
