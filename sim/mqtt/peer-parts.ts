import type { Cluster } from '../cluster/cluster.ts';
import type { MessageExtras } from './delivery.ts';

/**
 * The MQTT broker's view of the parts other helpers own (topics and storage: helper D; connectors:
 * helper A; raft: helper D). The method names are the agreed interfaces of the briefing. Typed here
 * structurally so this part compiles whatever stage those parts are at, and checked at call time:
 * a missing method the broker cannot do without fails loudly with the name of what is missing; the
 * read-only ones the overview may guard fall back to a documented value.
 */

export interface RetainedMessageInput {
  payload: string;
  qos: number;
  retainedAt: number;
  /** Virtual ms; absent or null: never expires. */
  expiresAt?: number | null;
  extras?: MessageExtras;
}

export interface TopicRecordLike {
  tenant?: string;
  topic_name?: string;
  /** Retained message; `expiresAt` virtual ms or null (never). */
  retained?: { payload: string; qos?: number; expiresAt?: number | null; extras?: MessageExtras } | null;
}

export interface TopicsPart {
  ensure(tenant: string, topicName: string): unknown;
  get(tenant: string, topicName: string): unknown;
  all(): TopicRecordLike[];
  /** Topics of the tenant holding a retained message (expired ones included), by name. */
  retainedTopics(tenant: string): readonly TopicRecordLike[];
  setRetained(tenant: string, topicName: string, retained: RetainedMessageInput | null): void;
}

export interface StoragePart {
  appendToTopic(tenant: string, topicName: string, record: { key?: string; payload: string; timestamp: number }): unknown;
}

export interface ConnectorLike {
  tenant: string;
  connector_name: string;
  connector_type?: string;
  status: string;
  brokerId?: number | null;
  stats?: { sendSuccessTotal?: number; sendFailTotal?: number };
}

export interface ConnectorsPart {
  all(): ConnectorLike[];
  onMessage(tenant: string, topicName: string, message: { payload: string; key?: string; timestamp: number }): void;
}

function requireMethods<T>(part: unknown, partName: string, owner: string, methods: readonly string[]): T {
  for (const m of methods) {
    if (typeof (part as Record<string, unknown> | undefined)?.[m] !== 'function') {
      throw new Error(`the MQTT broker needs cluster.${partName}.${m}() (${owner}), which is not implemented yet`);
    }
  }
  return part as T;
}

/** Topics; throws when the part lacks an agreed method (publishing cannot work without it). */
export function topicsOf(cluster: Cluster): TopicsPart {
  return requireMethods<TopicsPart>(cluster.topics, 'topics', 'helper D, sim/storage/topics.ts', [
    'ensure',
    'get',
    'all',
    'retainedTopics',
    'setRetained',
  ]);
}

/** Storage; throws when `appendToTopic` is missing. */
export function storageOf(cluster: Cluster): StoragePart {
  return requireMethods<StoragePart>(cluster.storage, 'storage', 'helper D, sim/storage/storage-engine.ts', ['appendToTopic']);
}

/** Connectors for message hand-off; throws when `onMessage` is missing. */
export function connectorSinkOf(cluster: Cluster): ConnectorsPart {
  return requireMethods<ConnectorsPart>(cluster.connectors, 'connectors', 'helper A, sim/connectors/connectors.ts', ['onMessage']);
}

/** Every connector, or none while the connectors part has no `all()` yet (the overview guards this). */
export function connectorList(cluster: Cluster): ConnectorLike[] {
  const part = cluster.connectors as unknown as Partial<ConnectorsPart> | undefined;
  return typeof part?.all === 'function' ? part.all() : [];
}

/**
 * Node id of the meta group's leader (undefined while it has none, e.g. during an election); node 1
 * while the raft part has no `metaLeaderId()` yet.
 */
export function metaLeaderId(cluster: Cluster): number | undefined {
  const raft = cluster.raft as unknown as { metaLeaderId?: () => number | undefined | null };
  if (typeof raft?.metaLeaderId !== 'function') return 1;
  return raft.metaLeaderId() ?? undefined;
}
