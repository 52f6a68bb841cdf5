import { refuse } from './answers.ts';
import { CATALOGUE, checkTypeConfig } from './connector-catalogue.ts';
import type { Body } from './rules.ts';

/**
 * The connector rules of the spec beyond types and lengths (Connectors: create body, Failure
 * strategy, Connector catalogue): the type is a catalogue identifier, `config` is JSON text of an
 * object following its type's rules, and the failure strategy's per-strategy rules.
 */

const STRATEGIES = ['discard', 'discard_after_retry', 'dead_message_queue'];

/** The catalogue identifier of `type`, matched ignoring case; refuses an unknown one. */
export function connectorType(type: string): string {
  const id = type.toLowerCase();
  if (!(id in CATALOGUE)) refuse(`connector_type must be one of ${Object.keys(CATALOGUE).join(', ')}`);
  return id;
}

export function checkConfig(type: string, config: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    refuse('config must be JSON text of an object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) refuse('config must be JSON text of an object');
  checkTypeConfig(type, parsed as Body);
}

const positive = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;

export function checkFailureStrategy(fs: Body): void {
  const { strategy, retry_total_times: retries, wait_time_ms: wait, topic_name: topic } = fs;
  if (typeof strategy !== 'string' || !STRATEGIES.includes(strategy))
    refuse(`failure_strategy.strategy must be one of ${STRATEGIES.join(', ')}`);
  const given = (v: unknown) => v !== undefined && v !== null;
  if (strategy === 'discard_after_retry' && !positive(retries)) refuse('failure_strategy.retry_total_times must be above 0');
  if (given(retries) && !positive(retries)) refuse('failure_strategy.retry_total_times must be above 0');
  if (given(wait) && !positive(wait)) refuse('failure_strategy.wait_time_ms must be above 0');
  if (given(topic) && (typeof topic !== 'string' || topic.length === 0 || [...topic].length > 256))
    refuse('failure_strategy.topic_name must be 1-256 characters');
}
