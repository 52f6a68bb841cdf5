import type { ConnectorTypeId } from '../../../contract/core/connector-catalogue.ts';
import type { NormalisedConfig } from './config-validator.ts';
import type { FailureStrategy } from './failure-strategy.ts';

/** Spec: Connector status. `Idle` = not assigned to a node. */
export type ConnectorStatus = 'Idle' | 'Running' | 'Stopped';

/** Runtime counters of the connector's current thread; they reset when the connector (re)starts. */
export interface ConnectorStats {
  /** Virtual Unix ms of the last successful send; null before the first one. */
  lastSendTimeMs: number | null;
  /** Messages delivered. */
  sendSuccessTotal: number;
  /** Messages given up on (after the strategy's retries) or dropped. */
  sendFailTotal: number;
  /** Payload of the last delivered message, at most 256 characters. */
  lastMsg: string | null;
}

/** One connector as the model keeps it. Identity: (tenant, connector_name). */
export interface Connector {
  readonly tenant: string;
  readonly connector_name: string;
  /** Lower-case catalogue id. */
  readonly connector_type: ConnectorTypeId;
  /** Config with the type's defaults applied (catalogue keys only). */
  readonly config: Readonly<NormalisedConfig>;
  /** The normalised config as JSON text: what the list serves as `config`. */
  readonly configText: string;
  /** MQTT topic filter whose messages the connector forwards. */
  readonly topic_name: string;
  readonly failureStrategy: Readonly<FailureStrategy>;
  status: ConnectorStatus;
  /** Node running the connector; null while Idle or Stopped. */
  brokerId: number | null;
  /** Virtual Unix ms. */
  readonly createdAt: number;
  updatedAt: number;
  stats: ConnectorStats;
}

/** A message as the MQTT broker hands it to `onMessage`. */
export interface ConnectorMessage {
  payload: string;
  key?: string;
  /** Virtual Unix ms of the publish. */
  timestamp: number;
}

/** A message waiting in a connector's queue, with the topic it was published to. */
export interface QueuedMessage extends ConnectorMessage {
  topic: string;
}

export const freshStats = (): ConnectorStats => ({ lastSendTimeMs: null, sendSuccessTotal: 0, sendFailTotal: 0, lastMsg: null });
