import type { AclRules } from '../broker/acl-rules.ts';
import type { Blacklist } from '../broker/blacklist.ts';
import type { Schemas } from '../broker/schemas.ts';
import type { TenantQuota } from '../broker/tenants.ts';
import type { TopicRewriteRules } from '../broker/topic-rewrite-rules.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import type { DynamicConfig } from '../config/dynamic-config.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { MessageExtras } from './delivery.ts';

/**
 * What the MQTT broker and its helpers (flapping detection, slow subscriptions, system alarms, the
 * demo population, schema validation, the monitor) use of the other parts, each as the narrow
 * interface it calls. The composition root hands them the real parts; every one of them is built
 * before the broker.
 */

interface RetainedMessageInput {
  payload: string;
  qos: number;
  retainedAt: number;
  /** Virtual ms; absent or null: never expires. */
  expiresAt?: number | null;
  extras?: MessageExtras;
}

export interface TopicRecordLike {
  tenant: string;
  topic_name: string;
  /** Retained message; `expiresAt` virtual ms or null (never). */
  retained: { payload: string; qos?: number; expiresAt?: number | null; extras?: MessageExtras } | null;
}

/** Topics: created on first publish, holding the retained messages. */
export interface TopicsPart {
  ensure(tenant: string, topicName: string): unknown;
  get(tenant: string, topicName: string): unknown;
  all(): readonly TopicRecordLike[];
  /** Topics of the tenant holding a retained message (expired ones included), by name. */
  retainedTopics(tenant: string): readonly TopicRecordLike[];
  setRetained(tenant: string, topicName: string, retained: RetainedMessageInput | null): void;
}

/** Storage: every published message is appended to its topic. */
interface StoragePart {
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

/** Connectors: listed by the overview and the monitor, and handed every published message. */
interface ConnectorsPart {
  all(): readonly ConnectorLike[];
  onMessage(tenant: string, topicName: string, message: { payload: string; key?: string; timestamp: number }): void;
}

/** The nodes clients connect to. */
interface MqttNodes {
  get(id: number): SimNode | undefined;
  online(): readonly SimNode[];
}

export interface MqttBrokerDeps {
  /** Virtual time, scheduling, the trace and the seeded random source. */
  engine: SimEngine;
  config: { current(): DynamicConfig };
  nodes: MqttNodes;
  tenants: { quota(name: string): TenantQuota };
  users: { get(tenant: string, username: string): { readonly is_superuser: boolean } | undefined };
  acl: Pick<AclRules, 'decide'>;
  blacklist: Pick<Blacklist, 'blocking' | 'add'>;
  rewriteRules: Pick<TopicRewriteRules, 'rewrite'>;
  schemas: Pick<Schemas, 'get' | 'allBindings'>;
  topics: TopicsPart;
  storage: StoragePart;
  connectors: ConnectorsPart;
}
