import type { EndpointContract } from '../../fixtures/contract/types.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { SimNode } from '../cluster/node-registry.ts';

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

export interface HandlerContext {
  readonly cluster: Cluster;
  /** The node whose listener received the request ("the local node"). */
  readonly node: SimNode;
  /** Validated parameters: only declared names, defaults applied. */
  readonly params: Record<string, any>;
  readonly endpoint: EndpointContract;
  readonly peers: PeerTransport;
}

/**
 * A handler turns validated parameters into `data` by asking the model. For list endpoints it returns
 * the full record array; paging, sorting and named filters are applied by the HTTP layer from the
 * contract. Failures are thrown as OperationError.
 */
export type Handler = (ctx: HandlerContext) => unknown | Promise<unknown>;

export type HandlerTable = Readonly<Record<string, Handler>>;

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
