import {
  FAILURE_STRATEGY_NAMES,
  FAILURE_STRATEGY_SPEC,
  type FailureStrategyFieldSpec,
  type FailureStrategyName,
} from '../../../contract/core/connector-catalogue.ts';
import { invalidParam } from '../errors/operation-error.ts';
import { charLength } from '../api/validate-params.ts';

/**
 * A connector's normalised failure strategy (spec: Failure strategy). `retry_total_times` and
 * `wait_time_ms` are set for the two retrying strategies, `topic_name` for dead_message_queue only.
 */
export interface FailureStrategy {
  strategy: FailureStrategyName;
  retry_total_times?: number;
  wait_time_ms?: number;
  topic_name?: string;
}

const FIELD = (name: FailureStrategyFieldSpec['name']): FailureStrategyFieldSpec =>
  FAILURE_STRATEGY_SPEC.fields.find((f) => f.name === name)!;

function refuse(field: string, rule: string): never {
  throw invalidParam(`failure_strategy.${field}`, `failure_strategy.${field} ${rule}`);
}

function checkField(spec: FailureStrategyFieldSpec, value: unknown): string | number {
  if (spec.type === 'string') {
    if (typeof value !== 'string') refuse(spec.name, `must be a string (got ${JSON.stringify(value)})`);
    const len = charLength(value);
    if (spec.minLength !== undefined && len < spec.minLength) refuse(spec.name, 'must not be empty');
    if (spec.maxLength !== undefined && len > spec.maxLength)
      refuse(spec.name, `must be at most ${spec.maxLength} characters (got ${len})`);
    if (spec.enum && !spec.enum.includes(value))
      refuse(spec.name, `must be one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`);
    return value;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) refuse(spec.name, `must be an integer (got ${JSON.stringify(value)})`);
  if (spec.minimum !== undefined && value < spec.minimum) refuse(spec.name, `must be above ${spec.minimum - 1} (got ${value})`);
  if (spec.maximum !== undefined && value > spec.maximum) refuse(spec.name, `must be at most ${spec.maximum} (got ${value})`);
  return value;
}

/** Sets one field of the strategy, as the catalogue types it (text for `topic_name`, integers otherwise). */
function setField(out: FailureStrategy, name: FailureStrategyFieldSpec['name'], value: string | number): void {
  if (name === 'topic_name' && typeof value === 'string') out.topic_name = value;
  else if ((name === 'retry_total_times' || name === 'wait_time_ms') && typeof value === 'number') out[name] = value;
  else throw new Error(`failure strategy field ${name} cannot hold ${JSON.stringify(value)}: the catalogue and FailureStrategy disagree`);
}

/**
 * Checks a `failure_strategy` object and returns it normalised, with the strategy's defaults.
 * Omitted (undefined or null) → `{strategy: 'discard'}` (decision). Unknown fields are ignored;
 * a field the strategy does not use must be null or absent (decision).
 */
export function parseFailureStrategy(raw: unknown): FailureStrategy {
  if (raw === undefined || raw === null) return { ...FAILURE_STRATEGY_SPEC.whenOmitted };
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalidParam('failure_strategy', `failure_strategy must be a JSON object (got ${JSON.stringify(raw)})`);
  const input = raw as Record<string, unknown>;
  const read = (name: string): unknown =>
    Object.prototype.hasOwnProperty.call(input, name) && input[name] !== null ? input[name] : undefined;

  const strategyValue = read('strategy');
  if (strategyValue === undefined) refuse('strategy', `is required: one of ${FAILURE_STRATEGY_NAMES.join(', ')}`);
  const strategy = checkField(FIELD('strategy'), strategyValue) as FailureStrategyName;
  const rules = FAILURE_STRATEGY_SPEC.strategies[strategy];

  const out: FailureStrategy = { strategy };
  for (const spec of FAILURE_STRATEGY_SPEC.fields) {
    if (spec.name === 'strategy') continue;
    const value = read(spec.name);
    if (!rules.allowed.includes(spec.name)) {
      if (value !== undefined) {
        const users = FAILURE_STRATEGY_NAMES.filter((n) => FAILURE_STRATEGY_SPEC.strategies[n].allowed.includes(spec.name));
        refuse(spec.name, `is not used by strategy ${strategy}: leave it null or absent (it applies to ${users.join(' and ')})`);
      }
      continue;
    }
    if (value === undefined) {
      if (rules.required.includes(spec.name)) refuse(spec.name, `is required for strategy ${strategy}`);
      const dflt = rules.defaults[spec.name];
      if (dflt !== undefined) setField(out, spec.name, dflt);
      continue;
    }
    setField(out, spec.name, checkField(spec, value));
  }
  return out;
}
