import type { BrokerConfigRecord } from '../../../contract/records.ts';
import type { ResolvedClusterOptions } from '../nodes/cluster-options.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import type { RaftGroupLayout } from '../raft/raft-groups.ts';
import type { DynamicConfig } from './dynamic-config.ts';
import { dynamicReadView } from './section-read-view.ts';
import { staticNodeConfig } from '../nodes/static-node-config.ts';

/**
 * What config get shows in place of a secret. The real server returns `admin.password` and
 * `admin.jwt_secret` in clear text; anyone who can read the config (any loopback peer, no token)
 * could then mint tokens, so the simulator never shows them.
 */
const REDACTED = '******';

/** What config get reads besides the sections: the static options, the group layout and the nodes. */
export interface ConfigViewSources {
  options: Pick<ResolvedClusterOptions, 'clusterName' | 'admin' | 'secretFreeLogin'>;
  raft: { layoutOf(): RaftGroupLayout };
  nodes: { all(): readonly SimNode[] };
}

/**
 * `data` of config get for one node (spec: Broker configuration): the node's own settings, then the
 * cluster-wide dynamic sections in their read form, then `llm_client` and `admin` (secrets redacted).
 * Keys are in the spec table's order.
 */
export function brokerConfigView(cluster: ConfigViewSources, node: SimNode, dynamic: DynamicConfig): BrokerConfigRecord {
  const fixed = staticNodeConfig(node, cluster.raft.layoutOf(), cluster.options.secretFreeLogin);
  const sections = dynamicReadView(dynamic);
  const admin = cluster.options.admin;
  const metaAddrs = Object.fromEntries(
    cluster.nodes
      .all()
      .filter((n) => n.roles.includes('meta'))
      .sort((a, b) => a.id - b.id)
      .map((n) => [String(n.id), `${n.ip}:${n.ports.grpc}`]),
  );
  return {
    cluster_name: cluster.options.clusterName,
    broker_id: node.id,
    broker_ip: node.ip as string | null,
    roles: [...node.roles],
    grpc_port: node.ports.grpc,
    http_port: node.ports.http,
    meta_addrs: metaAddrs,
    prometheus: fixed.prometheus,
    log: fixed.log,
    runtime: fixed.runtime,
    network: fixed.network,
    pprof: fixed.pprof,
    meta_runtime: fixed.meta_runtime,
    rocksdb: fixed.rocksdb,
    storage_runtime: fixed.storage_runtime,
    mqtt_server: fixed.mqtt_server,
    mqtt_keep_alive: fixed.mqtt_keep_alive,
    mqtt_runtime: { ...fixed.mqtt_runtime, default_password: REDACTED },
    mqtt_offline_message: sections.mqtt_offline_message,
    mqtt_slow_subscribe: sections.mqtt_slow_subscribe,
    mqtt_flapping_detect: sections.mqtt_flapping_detect,
    mqtt_protocol: sections.mqtt_protocol,
    mqtt_schema: sections.mqtt_schema,
    mqtt_system_monitor: sections.mqtt_system_monitor,
    cluster_limit: sections.cluster_limit,
    mqtt_limit: sections.mqtt_limit,
    llm_client: null as null | { platform: string; model: string; token: string | null; base_url: string | null },
    admin: { username: admin.username, password: REDACTED, jwt_secret: REDACTED, token_ttl_hours: admin.tokenTtlHours },
  };
}

export type BrokerConfigView = BrokerConfigRecord;
