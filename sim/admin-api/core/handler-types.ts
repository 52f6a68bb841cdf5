import type { EndpointParams } from '../../../contract/param-types.ts';
import type { EndpointContract } from '../../../contract/core/types.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import type { SimNetwork } from '../../model/net/sim-network.ts';
import type { SimNode } from '../../model/nodes/node-registry.ts';

/** A reply from another node's listener. */
export interface PeerReply {
  status: number;
  body: string;
}

/**
 * How one node's handler reaches another node: over HTTP between the node listeners when served,
 * or straight into the target node's app in-process. Either way it goes to the node's registered
 * HTTP address, so an unregistered or unreachable node fails as it would for real.
 */
export interface PeerTransport {
  call(nodeId: number, method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<PeerReply>;
}

/** Validated parameters as the dispatcher holds them for any endpoint: declared names only, defaults applied. */
type Params = Readonly<Record<string, unknown>>;

/**
 * The part of the cluster a handler reads or acts on: the stores and views behind the API, the nodes,
 * the consensus groups' state and the options the status answers show, the time. Not the engine
 * (trace, seeded random), the invariants or the fault schedule: a handler answers requests, it does
 * not drive the run. Of the network only whether one node reaches another: the storage engine's
 * replica state does not ask a node the model cuts off (handlers/storage-engine.ts), as the real
 * listeners would reach each other over the loopback; a handler never partitions or heals it.
 */
export type HandlerCluster = Pick<
  Cluster,
  | 'options'
  | 'now'
  | 'nodes'
  | 'raft'
  | 'config'
  | 'auth'
  | 'tenants'
  | 'users'
  | 'acl'
  | 'blacklist'
  | 'schemas'
  | 'rewriteRules'
  | 'autoSubscribe'
  | 'topics'
  | 'storage'
  | 'offsets'
  | 'connectors'
  | 'mqtt'
  | 'monitor'
  | 'mq9'
> & { readonly network: Pick<SimNetwork, 'reachable'> };

export interface HandlerContext<P extends Params = Params> {
  readonly cluster: HandlerCluster;
  /** The node whose listener received the request ("the local node"). */
  readonly node: SimNode;
  /** Validated parameters: only declared names, defaults applied (typed from the endpoint's contract entry). */
  readonly params: P;
  readonly endpoint: EndpointContract;
  readonly peers: PeerTransport;
}

/**
 * A handler turns validated parameters into `data` by asking the model. For list endpoints it returns
 * the full record array; paging, sorting and named filters are applied by the HTTP layer from the
 * contract. Failures are thrown as OperationError.
 */
export type Handler<P extends Params = Params> = (ctx: HandlerContext<P>) => unknown | Promise<unknown>;

/** Handlers by endpoint id, as the dispatcher calls them. */
export type HandlerTable = Readonly<Record<string, Handler>>;

/** One handler per endpoint of `E`, each seeing the parameters its contract entry declares. */
export type HandlersOf<E extends readonly EndpointContract[]> = {
  readonly [K in E[number] as K['id']]: Handler<EndpointParams<K>>;
};

/**
 * The handler table of a contract module, checked against its endpoints: one handler per endpoint
 * (a missing or extra id does not compile), each typed with that endpoint's parameters.
 */
export function handlersFor<const E extends readonly EndpointContract[]>(_endpoints: E, handlers: NoInfer<HandlersOf<E>>): HandlerTable {
  const table: Record<string, Handler> = {};
  for (const [id, handler] of Object.entries<Handler<never>>(handlers)) {
    // The dispatcher calls a handler only with the parameters validated against its own endpoint's
    // specs (AdminApp.invoke), which is what EndpointParams describes; the table forgets which is which.
    table[id] = handler as Handler;
  }
  return table;
}

/** A success that carries another HTTP status (the readiness probe answers 503 with a body). */
export class WithStatus {
  constructor(
    readonly status: number,
    readonly data: unknown,
  ) {}
}

/** A body sent as-is, outside the envelope (`GET /` version text, `/metrics`). */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: string,
    readonly status = 200,
  ) {}
}
