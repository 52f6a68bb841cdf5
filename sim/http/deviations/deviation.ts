/**
 * A deviation is a deliberately broken behaviour of the admin HTTP layer, switched on by id
 * (`AdminAppOptions.deviations`, `mqsim serve --deviation`). Each one is a realistic bug an
 * implementation could have; together they prove the conformance suites notice such bugs.
 * Deviations act only through the four hook points below, so the app itself stays unaware of them.
 */
import type { EndpointContract, ParamSpec } from '../../../fixtures/contract/types.ts';
import type { Cluster } from '../../cluster/cluster.ts';
import type { ApiRequest, ApiResponse } from '../admin-app.ts';

/** What a hook sees of the request being served. */
export interface DeviationContext {
  readonly cluster: Cluster;
  readonly endpoint: EndpointContract;
}

/**
 * Runs the handler (and, for a list, the list query: filters, sort, paging) with the given
 * parameters, against the given contract of the endpoint (default: the real one).
 */
export type NextResult = (params: Record<string, unknown>, endpoint?: EndpointContract) => Promise<unknown>;

export interface DeviationHooks {
  /** Rewrites the raw request before anything (routing, authentication) looks at it. */
  request?(req: ApiRequest, cluster: Cluster): ApiRequest | Promise<ApiRequest>;
  /**
   * The parameter specs a request is validated against (loosening them unenforces a limit) and the
   * raw fields before validation (a query's strings or a body's JSON values). May throw an
   * OperationError, answered as a validation failure.
   */
  validation?(input: { specs: readonly ParamSpec[]; raw: Record<string, unknown> }, cx: DeviationContext): { specs: readonly ParamSpec[]; raw: Record<string, unknown> };
  /** Wraps the handler and list query: may change the parameters, skip the call, or rewrite `data`. */
  around?(params: Record<string, unknown>, next: NextResult, cx: DeviationContext): Promise<unknown>;
  /** Rewrites the final answer (status, headers, envelope). `path` is the request's path without query. */
  response?(res: ApiResponse, path: string, cluster: Cluster): ApiResponse;
}

/** One catalogued deviation. */
export interface Deviation {
  readonly id: string;
  /**
   * Contract endpoint id on which a conformance run must report the deviation: where its effect is
   * visible through the API (for a write that is silently dropped, the list that should show it).
   */
  readonly endpoint: string;
  /** One line: what is broken, as a bug report would say it. */
  readonly description: string;
  /** Check ids (as in report.json) of `endpoint` expected to fail; at least one must. */
  readonly checks: readonly string[];
  /** Contract tags the proof run needs besides the endpoint's own tag (fixtures and cross-endpoint checks). */
  readonly tags?: readonly string[];
  /**
   * false when the current suites do not catch it; `reason` then says why, so the missing check can
   * be added. Kept in the catalogue: it becomes a caught deviation once the check exists.
   */
  readonly caught: boolean;
  readonly reason?: string;
  readonly hooks: DeviationHooks;
}
