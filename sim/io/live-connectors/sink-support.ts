import type { NormalisedConfig } from '../../model/connectors/config-validator.ts';
import type { QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';

/**
 * Helpers shared by the live sinks. Everything under sim/io/live-connectors/ does real I/O and uses
 * wall-clock timers: it is exempt from the determinism scan because live mode is by definition
 * not replayable, and it is only reached with `mqsim serve --live-connectors`.
 */

/** A live sink: real delivery plus the connections it holds. */
export interface LiveSink {
  deliver(batch: readonly QueuedMessage[]): Promise<SinkResult>;
  close(): Promise<void>;
}

export function allFailed(batch: readonly QueuedMessage[], error: string): SinkResult {
  return { ok: 0, failed: batch.map((msg) => ({ msg, error })) };
}

/** Builds a result from one outcome per message (null = delivered, text = why not). */
export function perMessage(batch: readonly QueuedMessage[], errors: readonly (string | null)[]): SinkResult {
  const failed = batch.flatMap((msg, i) => (errors[i] === null ? [] : [{ msg, error: errors[i] as string }]));
  return { ok: batch.length - failed.length, failed };
}

/** A readable reason from whatever a client library threw (undici and net give AggregateErrors with codes). */
export function errorText(e: unknown): string {
  if (e instanceof AggregateError && e.errors.length > 0) return errorText(e.errors[0]);
  const err = e as { message?: string; code?: string } | undefined;
  const message = err?.message || (err?.code ?? String(e));
  return err?.code && !message.includes(err.code) ? `${err.code}: ${message}` : message;
}

/** Rejects with `what` when `promise` takes longer than `ms` of wall time. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Spec, Events: the delivery shape of one message (`timestamp` in seconds, `key` only when set). */
export interface DeliveryRecord {
  payload: string;
  timestamp: number;
  key?: string;
}

export function deliveryRecord(msg: QueuedMessage): DeliveryRecord {
  return { payload: msg.payload, timestamp: Math.floor(msg.timestamp / 1000), ...(msg.key !== undefined ? { key: msg.key } : {}) };
}

/** Typed readers of a normalised config (defaults already applied by the validator). */
export const cfgStr = (config: NormalisedConfig, key: string, dflt = ''): string =>
  typeof config[key] === 'string' ? (config[key] as string) : dflt;
export const cfgInt = (config: NormalisedConfig, key: string, dflt: number): number =>
  typeof config[key] === 'number' ? (config[key] as number) : dflt;
export const cfgBool = (config: NormalisedConfig, key: string, dflt: boolean): boolean =>
  typeof config[key] === 'boolean' ? (config[key] as boolean) : dflt;
