import { connectorTypeSpec } from '../../../contract/core/connector-catalogue.ts';
import type { Connector, QueuedMessage } from './connector-types.ts';

/** A message the sink did not take, with the reason. */
export interface SinkFailure {
  msg: QueuedMessage;
  error: string;
}

/** Outcome of one batch: `ok` messages delivered, the rest listed in `failed`. */
export interface SinkResult {
  ok: number;
  failed: SinkFailure[];
}

/**
 * The external system a connector writes to, simulated. Implementations must be deterministic
 * (decide from the batch, the connector and model state only).
 */
export interface SimulatedSink {
  send(batch: readonly QueuedMessage[]): SinkResult;
}

/**
 * A sink whose delivery is real, asynchronous I/O (`--live-connectors`, sim/io/live-connectors/).
 * The thread hands it a batch and waits; the outcome comes back into the model as an engine event
 * at the then-current virtual time. Not replayable by nature, and never used unless live mode is on.
 * `deliver` should not reject; a rejection counts as every message failed with its text.
 */
export interface AsyncSink {
  deliver(batch: readonly QueuedMessage[]): Promise<SinkResult>;
}

/** What a connector thread sends through: simulated (synchronous) or live (asynchronous). */
export type ConnectorSink = SimulatedSink | AsyncSink;

export function isAsyncSink(sink: ConnectorSink): sink is AsyncSink {
  return typeof (sink as Partial<AsyncSink>).deliver === 'function';
}

/** Builds the sink a connector uses for one send attempt. */
export type SinkFactory = (connector: Connector) => ConnectorSink;

/** The external target of a connector: the value of its type's `targetKey` (arrays joined by commas). */
function connectorTarget(connector: Connector): string {
  const key = connectorTypeSpec(connector.connector_type)?.targetKey;
  const value = key ? connector.config[key] : undefined;
  if (Array.isArray(value)) return value.join(',');
  return value === undefined || value === null ? '' : String(value);
}

/** Targets the model knows to be down. A connector pointing at one fails every send. */
export class TargetOutages {
  private readonly down = new Set<string>();

  setDown(target: string, isDown: boolean): boolean {
    const changed = isDown ? !this.down.has(target) : this.down.has(target);
    if (isDown) this.down.add(target);
    else this.down.delete(target);
    return changed;
  }

  isDown(target: string): boolean {
    return this.down.has(target);
  }

  /** Targets currently down, sorted. */
  list(): string[] {
    return [...this.down].sort();
  }
}

/** The default sink: delivers everything unless the connector's target is down. */
export function outageAwareSink(connector: Connector, outages: TargetOutages): SimulatedSink {
  return {
    send(batch) {
      const target = connectorTarget(connector);
      if (!outages.isDown(target)) return { ok: batch.length, failed: [] };
      const error = `${connector.connector_type} target ${target} is unreachable (simulated outage)`;
      return { ok: 0, failed: batch.map((msg) => ({ msg, error })) };
    },
  };
}
