import { failed } from '../errors/operation-error.ts';
import type { SimNode } from '../nodes/node-registry.ts';

const CONFIG_GET_PATH = '/api/cluster/config/get';

/** The text of a failed envelope in either form, or a short description of a body that is not one. */
function failureText(status: number, body: string): string {
  try {
    const env = JSON.parse(body) as { message?: unknown; error?: unknown };
    const text = env?.message ?? env?.error;
    if (typeof text === 'string' && text) return `HTTP ${status}: ${text}`;
  } catch {
    /* not JSON: describe the raw body below */
  }
  return `HTTP ${status}: unexpected body ${JSON.stringify(body.slice(0, 120))}`;
}

/**
 * The one thing config get needs from the HTTP layer: a GET to another node's admin API, answered
 * with its status and body. The HTTP layer's peer transport (in-process or loopback) is one.
 */
export interface ConfigPeers {
  call(nodeId: number, method: 'GET', pathAndQuery: string): Promise<{ status: number; body: string }>;
}

/** What config get with `broker_id` reads: a node's own view, and the nodes' registered addresses. */
export interface ConfigSources {
  config: { view(node: SimNode): unknown };
  nodes: { get(id: number): SimNode | undefined };
}

/**
 * Config get with `broker_id` (spec: Configuration): the answering node's own view when it is the
 * target; otherwise the request goes to the target's registered HTTP address and that node's `data`
 * comes back. The failure texts are the real server's.
 */
export async function configOfBroker(
  cluster: ConfigSources,
  local: SimNode,
  brokerId: number | undefined,
  peers: ConfigPeers,
): Promise<unknown> {
  if (brokerId === undefined || brokerId === local.id) return cluster.config.view(local);
  const target = cluster.nodes.get(brokerId);
  if (!target) throw failed(`Broker node ${brokerId} not found`);
  if (!target.httpAddr) throw failed(`Broker node ${brokerId} has no http_addr registered`);
  const fetchFailure = (why: string) => failed(`Failed to fetch config from broker ${brokerId}: ${why}`);
  let reply;
  try {
    reply = await peers.call(brokerId, 'GET', CONFIG_GET_PATH);
  } catch (e) {
    throw fetchFailure((e as Error)?.message ?? String(e));
  }
  let envelope: { code?: unknown; data?: unknown } | undefined;
  try {
    envelope = JSON.parse(reply.body);
  } catch {
    envelope = undefined;
  }
  if (reply.status !== 200 || envelope?.code !== 0 || envelope.data === null || typeof envelope.data !== 'object') {
    throw fetchFailure(failureText(reply.status, reply.body));
  }
  return envelope.data;
}
