import { endpoints } from '../../../contract/endpoints/cluster-status.ts';
import { MQSIM_VERSION } from '../../version.ts';
import { unixSeconds } from '../../model/api/time-format.ts';
import type { SimNode } from '../../model/nodes/node-registry.ts';

import { WithStatus, handlersFor, type HandlerCluster } from '../core/handler-types.ts';
import type { RaftStateRecord } from '../../../contract/records.ts';

/** The spec's cluster status object, as `node` answers it. */
function clusterStatus(cluster: HandlerCluster, node: SimNode) {
  const online = cluster.nodes.online();
  const meta: Record<string, RaftStateRecord> = {};
  for (const name of cluster.raft.names()) meta[name] = cluster.raft.stateView(name, node.id);
  return {
    version: MQSIM_VERSION,
    cluster_name: cluster.options.clusterName,
    start_time: unixSeconds(node.startTime),
    broker_node_list: online.map((n) => cluster.nodes.view(n)),
    nodes: distinctIps(cluster),
    meta,
  };
}

/** Distinct IPs of the broker node list and of every consensus group member (as the real server). */
function distinctIps(cluster: HandlerCluster): string[] {
  const ips = new Set(cluster.nodes.online().map((n) => n.ip));
  for (const g of cluster.raft.groups()) for (const addr of g.members.values()) ips.add(addr.slice(0, addr.lastIndexOf(':')));
  return [...ips].sort();
}

/** `/health/cluster`: ok while every member node is online and every consensus group has a leader. */
function clusterHealth(cluster: HandlerCluster) {
  const members = cluster.nodes.all().filter((n) => !n.removed);
  const offline = members.filter((n) => !n.online).map((n) => n.id);
  const leaderless = cluster.raft
    .groups()
    .filter((g) => g.leaderId === null)
    .map((g) => g.name);
  const problems: string[] = [];
  if (offline.length > 0) problems.push(`node${offline.length > 1 ? 's' : ''} ${offline.join(', ')} offline`);
  if (leaderless.length > 0) problems.push(`no leader in group${leaderless.length > 1 ? 's' : ''} ${leaderless.join(', ')}`);
  const up = `${members.length - offline.length} of ${members.length} nodes online`;
  return problems.length === 0
    ? { status: 'ok', check_type: 'cluster', message: `${up}; every consensus group has a leader` }
    : { status: 'degraded', check_type: 'cluster', message: `${up}; ${problems.join('; ')}` };
}

export const handlers = handlersFor(endpoints, {
  'cluster.status': ({ cluster, node }) => clusterStatus(cluster, node),
  'cluster.info': ({ cluster, node }) => clusterStatus(cluster, node),
  'cluster.healthy': () => true,
  'health.ready': ({ node }) =>
    node.portsReady
      ? { status: 'ok', check_type: 'ready', message: 'all configured ports are ready' }
      : new WithStatus(503, { status: 'not_ready', check_type: 'ready', message: 'one or more configured ports are not ready' }),
  'health.node': ({ node }) => ({ status: 'ok', check_type: 'node', message: `node ${node.id} is alive` }),
  'health.cluster': ({ cluster }) => clusterHealth(cluster),
});
