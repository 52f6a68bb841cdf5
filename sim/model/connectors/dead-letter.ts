import type { SimEngine } from '../engine/sim-engine.ts';
import type { Connector } from './connector-types.ts';
import type { SinkFailure } from './simulated-sink.ts';

/** Spec: Events, dead-letter record. Timestamps are Unix ms (decision: the spec gives u64 without a unit). */
interface DeadLetterRecord {
  connector_name: string;
  source_topic: string;
  error_message: string;
  retry_times: number;
  original_key: string | null;
  /** The original payload as UTF-8 bytes. */
  original_data: number[];
  original_timestamp: number;
  dead_letter_timestamp: number;
}

function deadLetterRecord(connector: Connector, failure: SinkFailure, retryTimes: number, nowMs: number): DeadLetterRecord {
  return {
    connector_name: connector.connector_name,
    source_topic: failure.msg.topic,
    error_message: failure.error,
    retry_times: retryTimes,
    original_key: failure.msg.key ?? null,
    original_data: [...Buffer.from(failure.msg.payload, 'utf8')],
    original_timestamp: failure.msg.timestamp,
    dead_letter_timestamp: nowMs,
  };
}

/** Where dead letters go: a topic of the connector's tenant (created when absent) in the storage engine. */
export interface DeadLetterSink {
  engine: Pick<SimEngine, 'now'>;
  topics: { ensure(tenant: string, topicName: string): unknown };
  storage: { appendToTopic(tenant: string, topicName: string, record: { key?: string; payload: string; timestamp: number }): number };
}

export type DeadLetterOutcome = { ok: true; written: number } | { ok: false; error: string };

/**
 * Writes one dead-letter record per failed message to the dead-letter topic of the connector's
 * tenant, creating the topic when absent. Never throws: a failed write is returned, so the caller
 * can record it (a crash inside a scheduled event would stop the whole run).
 */
export function writeDeadLetters(
  sink: DeadLetterSink,
  connector: Connector,
  topicName: string,
  failures: readonly SinkFailure[],
  retryTimes: number,
): DeadLetterOutcome {
  try {
    sink.topics.ensure(connector.tenant, topicName);
    const now = sink.engine.now();
    for (const failure of failures) {
      const record = deadLetterRecord(connector, failure, retryTimes, now);
      sink.storage.appendToTopic(connector.tenant, topicName, {
        ...(failure.msg.key !== undefined ? { key: failure.msg.key } : {}),
        payload: JSON.stringify(record),
        timestamp: now,
      });
    }
    return { ok: true, written: failures.length };
  } catch (e) {
    return { ok: false, error: `writing to dead-letter topic ${topicName} failed: ${(e as Error)?.message ?? String(e)}` };
  }
}
