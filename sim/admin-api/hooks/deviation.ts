/**
 * A deviation is a deliberately broken behaviour of the admin HTTP layer, switched on by id
 * (`mqsim serve --deviation`; sim/switches/resolve-switches.ts turns ids into the switches
 * `AdminAppOptions.deviations` takes). The faults and dialects that define them import these types,
 * never the other way round. Each one is a realistic bug an
 * implementation could have; together they prove the conformance suites notice such bugs.
 * Deviations act only through the hook points below, so the app itself stays unaware of them.
 */
import type { EndpointContract, ParamSpec } from '../../../contract/core/types.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import type { ApiRequest, ApiResponse } from '../core/api-exchange.ts';
import type { PeerTransport } from '../core/handler-types.ts';

/**
 * The part of the cluster a switch may read or act on: the stores and views behind the API and the
 * clock and the seeded random (through the engine), never the network, the invariants or the fault
 * schedule: a switch changes answers, not the run's faults.
 */
export type SwitchCluster = Pick<
  Cluster,
  'options' | 'engine' | 'now' | 'nodes' | 'auth' | 'config' | 'tenants' | 'users' | 'topics' | 'storage' | 'connectors' | 'mqtt'
>;

/** What a hook sees of the request being served. */
export interface DeviationContext {
  readonly cluster: SwitchCluster;
  readonly endpoint: EndpointContract;
}

/**
 * Runs the handler (and, for a list, the list query: filters, sort, paging) with the given
 * parameters, against the given contract of the endpoint (default: the real one).
 */
export type NextResult = (params: Record<string, unknown>, endpoint?: EndpointContract) => Promise<unknown>;

/** What an extra route's handler gets besides the request. */
interface ExtraRouteContext {
  /**
   * The whole cluster, not the handlers' part (HandlerCluster): the MCP route runs mq9 commands
   * (sim/model/cluster-ops/mq9-protocol.ts), which act on the whole composed cluster.
   */
  readonly cluster: Cluster;
  /** The node whose listener received the request. */
  readonly nodeId: number;
  /** Reaches other nodes as the real nodes do (HTTP when served), e.g. to forward a query. */
  readonly peers: PeerTransport;
}

/**
 * A route the real server has beyond the spec (reference notes §1.2), served while its switch is on.
 * The contract describes the spec's API only, so these live with the switch that brings them.
 */
export interface ExtraRoute {
  /** `*`: every method the route has no own entry for (axum's 405 for a wrong method, for instance). */
  readonly method: 'GET' | 'POST' | '*';
  readonly path: string;
  /**
   * `token`: behind the real server's /api auth middleware (loopback peers pass, others need a
   * Bearer token); `open`: routed outside the /api nest, no authentication (notes §5).
   */
  readonly auth: 'token' | 'open';
  /**
   * The answer. State changes go through the model, so a POST that changed it is journaled (and
   * replayed) like an API write. May throw an OperationError, answered as the envelope's failure.
   */
  handle(req: ApiRequest, cx: ExtraRouteContext): ApiResponse | Promise<ApiResponse>;
}

export interface DeviationHooks {
  /** Rewrites the raw request before anything (routing, authentication) looks at it. */
  request?(req: ApiRequest, cluster: SwitchCluster): ApiRequest | Promise<ApiRequest>;
  /**
   * The parameter specs a request is validated against (loosening them unenforces a limit) and the
   * raw fields before validation (a query's strings or a body's JSON values). May throw an
   * OperationError, answered as a validation failure.
   */
  validation?(
    input: { specs: readonly ParamSpec[]; raw: Record<string, unknown> },
    cx: DeviationContext,
  ): { specs: readonly ParamSpec[]; raw: Record<string, unknown> };
  /** Wraps the handler and list query: may change the parameters, skip the call, or rewrite `data`. */
  around?(params: Record<string, unknown>, next: NextResult, cx: DeviationContext): Promise<unknown>;
  /**
   * Rewrites the final answer (status, headers, envelope). `path` is the request's path without query;
   * `req` the request as it arrived (before any `request` hook rewrote it).
   */
  response?(res: ApiResponse, path: string, cluster: SwitchCluster, req: ApiRequest): ApiResponse;
  /** Routes served besides the contract's, matched before it (after the `request` hook). */
  routes?: readonly ExtraRoute[];
  /**
   * Rate limiting as another implementation does it, in place of the app's (429 beyond
   * max_admin_http_uri_rate on /api paths): every path gets `perPathRate` requests per second, and
   * excess requests wait for their slot instead of being refused. A rate of 0 refuses everything
   * with `refusal` (status and plain text).
   */
  rateLimit?: { perPathRate(cluster: SwitchCluster): number; refusal: { status: number; text: string } };
}

/**
 * How a deviation stands to the spec: `breaks` a rule the spec states (a conformance run must report
 * it), or is something the spec `allows` or leaves open (a run must not fail on it).
 */
export type SpecStanding = 'breaks' | 'allows';

/** One catalogued deviation. */
export interface Deviation {
  readonly id: string;
  readonly spec: SpecStanding;
  /**
   * Where the behaviour comes from when it reproduces the real server, e.g. `notes §11.9, §8.2`
   * (sections of spec/robustmq-implementation-notes.md). Absent for invented bugs.
   */
  readonly notes?: string;
  /**
   * For `breaks`: the spec sentence broken, quoted verbatim, with its section heading. For `allows`:
   * the spec text (or silence) that allows the behaviour, in one line.
   */
  readonly rule?: string;
  /**
   * Contract endpoint id on which a conformance run must report the deviation: where its effect is
   * visible through the API (for a write that is silently dropped, the list that should show it).
   * For a behaviour that spans many endpoints, the most representative one (the others: `alsoEndpoints`).
   */
  readonly endpoint: string;
  /** Other contract endpoints the behaviour shows on, when it spans several. */
  readonly alsoEndpoints?: readonly string[];
  /** One line: what is broken, as a bug report would say it. */
  readonly description: string;
  /**
   * Check ids (as in report.json) of `endpoint` expected to fail; at least one must when `caught`.
   * May be empty for an `allows` deviation (no check should fail on it).
   */
  readonly checks: readonly string[];
  /**
   * The one finding a conformance run must report for it (its id: an assertion id, or
   * `<cause>@<endpoint id>`), for a deviation that reproduces one behaviour of a real server: the
   * proof asserts that finding and no other. Absent: at least one finding on `endpoint`.
   */
  readonly finding?: string;
  /**
   * Another switch (of the real server's) that hides this one when both are on, with why: the real
   * server has both, and only the other shows. The proof that all switches together give one finding
   * each leaves this one's finding out.
   */
  readonly maskedBy?: { id: string; why: string };
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
