import { localTimeString } from '../api/time-format.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { ConnectInput, ConnectRefusal } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import type { FlappingDetector } from './flapping-detector.ts';
import { CONNECTION_TYPES, type ConnectionType, type ProtocolVersion } from './mqtt-labels.ts';
import type { ClientState, LastWill } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { RateWindow } from './rate-window.ts';

/** A connect request with its defaults applied and its node chosen. */
export interface NormalizedConnect {
  tenant: string;
  clientId: string;
  username: string;
  ip: string;
  port: number | undefined;
  connectionType: ConnectionType;
  protocol: ProtocolVersion;
  keepAlive: number;
  cleanStart: boolean;
  sessionExpiry: number;
  lastWill: LastWill | null;
  nodeId: number;
}

/** A refusal of a connect request: its kind and the text. */
export interface Refused {
  refusal: ConnectRefusal;
  reason: string;
}

/** What the admission of a connect reads: the limits, the nodes, the blacklist and the counts. */
export interface AdmissionParts {
  deps: Pick<MqttBrokerDeps, 'config' | 'nodes' | 'tenants' | 'blacklist'>;
  registry: Pick<ClientRegistry, 'liveOn' | 'liveByNode' | 'liveTotal' | 'sessionsOf'>;
  rates: RateWindow;
  flapping: Pick<FlappingDetector, 'isBanned' | 'onConnectAttempt'>;
}

const DEFAULT_KEEP_ALIVE = 60;

// Refusals of a connect, at module level: closures made per connect cost a reconnect storm.
function invalid(reason: string): Refused {
  return { refusal: 'invalid', reason };
}
function banned(reason: string): Refused {
  return { refusal: 'banned', reason };
}
function quotaReached(reason: string): Refused {
  return { refusal: 'quota', reason };
}

/** The connect request with its defaults applied and the node chosen (seeded), or why it is malformed. */
export function normalizeConnect(input: ConnectInput, deps: AdmissionParts['deps'], rng: SeededRandom): NormalizedConnect | Refused {
  const { tenant, clientId } = input;
  if (!tenant) return invalid('tenant must not be empty');
  if (!clientId) return { refusal: 'invalid-client-id', reason: 'client id must not be empty' };
  const connectionType = input.connectionType ?? 'Tcp';
  if (!CONNECTION_TYPES.includes(connectionType)) return invalid(`unknown connection type ${JSON.stringify(connectionType)}`);
  const protocol = input.protocol ?? 5;
  if (protocol !== 3 && protocol !== 4 && protocol !== 5) return invalid(`unknown MQTT protocol level ${JSON.stringify(protocol)}`);
  const keepAlive = input.keepAlive ?? DEFAULT_KEEP_ALIVE;
  if (!Number.isInteger(keepAlive) || keepAlive < 0 || keepAlive > 65_535)
    return invalid(`keep alive must be 0-65535 seconds, got ${keepAlive}`);
  const protocolCfg = deps.config.current().MqttProtocol;
  const sessionExpiry = Math.min(
    input.sessionExpiry ?? protocolCfg.default_session_expiry_interval,
    protocolCfg.max_session_expiry_interval,
  );
  if (!Number.isInteger(sessionExpiry) || sessionExpiry < 0)
    return invalid(`session expiry must be a non-negative integer, got ${input.sessionExpiry}`);
  const online = deps.nodes.online();
  if (online.length === 0) return { refusal: 'unavailable', reason: 'no broker node is online' };
  if (input.nodeId !== undefined && !online.some((n) => n.id === input.nodeId))
    return { refusal: 'unavailable', reason: `node ${input.nodeId} is not online` };
  const nodeId = input.nodeId ?? rng.pick(online).id;
  return {
    tenant,
    clientId,
    username: input.username ?? '',
    ip: input.ip ?? '127.0.0.1',
    port: input.port,
    connectionType,
    protocol,
    keepAlive,
    cleanStart: input.cleanStart ?? false,
    sessionExpiry,
    lastWill: input.lastWill ?? null,
    nodeId,
  };
}

/**
 * Why a well-formed connect is refused, in the broker's order: blacklist, flapping ban, flapping
 * detection (this attempt counts), connection rates, connection limits, session quota.
 */
export function admissionRefusal(parts: AdmissionParts, req: NormalizedConnect, existing: ClientState | undefined): Refused | undefined {
  const { tenant, clientId } = req;
  const blocking = parts.deps.blacklist.blocking({ tenant, clientId, username: req.username || undefined, ip: req.ip });
  if (blocking) return banned(`refused by blacklist entry ${blocking.name} (${blocking.blacklist_type} ${blocking.resource_name})`);
  if (parts.flapping.isBanned(tenant, clientId)) return banned(`client ${clientId} is banned for connection flapping`);
  const verdict = parts.flapping.onConnectAttempt(tenant, clientId);
  if (verdict.banned)
    return banned(
      `client ${clientId} connected more than max_client_connections times within window_time: banned for flapping until ${localTimeString(verdict.untilMs)}`,
    );
  return rateRefusal(parts, tenant) ?? limitRefusal(parts, req, existing);
}

/** A connect over the tenant's or the cluster's connection rate in this virtual second. */
function rateRefusal({ deps, rates }: AdmissionParts, tenant: string): Refused | undefined {
  const quota = deps.tenants.quota(tenant);
  const limits = deps.config.current();
  rates.roll();
  if (rates.connectsOf(tenant) >= quota.max_create_connection_rate_per_second) {
    return {
      refusal: 'rate',
      reason: `tenant ${tenant} reached max_create_connection_rate_per_second (${quota.max_create_connection_rate_per_second})`,
    };
  }
  if (rates.connectsTotal >= limits.ClusterLimit.max_network_connection_rate)
    return {
      refusal: 'rate',
      reason: `cluster reached max_network_connection_rate (${limits.ClusterLimit.max_network_connection_rate})`,
    };
  return undefined;
}

/** A connect over a connection limit (tenant per node, node, cluster) or the tenant's session quota. */
function limitRefusal({ deps, registry }: AdmissionParts, req: NormalizedConnect, existing: ClientState | undefined): Refused | undefined {
  const { tenant, nodeId } = req;
  const quota = deps.tenants.quota(tenant);
  const limits = deps.config.current();
  // A takeover frees the old connection's slot, so the limits count without it.
  const sameSlot = existing?.connection ? 1 : 0;
  const sameSlotOnNode = existing?.connection?.nodeId === nodeId ? 1 : 0;
  const tenantOnNode = registry.liveOn(nodeId, tenant) - sameSlotOnNode;
  if (tenantOnNode >= quota.max_connections_per_node)
    return quotaReached(`tenant ${tenant} reached max_connections_per_node (${quota.max_connections_per_node}) on node ${nodeId}`);
  const onNode = (registry.liveByNode.get(nodeId) ?? 0) - sameSlotOnNode;
  if (onNode >= limits.MqttLimit.cluster.max_connections_per_node)
    return quotaReached(
      `node ${nodeId} reached the cluster's max_connections_per_node (${limits.MqttLimit.cluster.max_connections_per_node})`,
    );
  if (registry.liveTotal - sameSlot >= limits.ClusterLimit.max_network_connection)
    return quotaReached(`cluster reached max_network_connection (${limits.ClusterLimit.max_network_connection})`);
  // A clean start replaces an existing session one for one; only a client without one adds a session.
  if (!existing?.session && registry.sessionsOf(tenant) >= quota.max_sessions)
    return quotaReached(`tenant ${tenant} reached max_sessions (${quota.max_sessions})`);
  return undefined;
}
