import type { ConnectorTypeId } from '../../../contract/core/connector-catalogue.ts';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { AsyncSink, ConnectorSink, SinkFactory, SinkResult } from '../../model/connectors/simulated-sink.ts';
import { FileSink } from './file-sink.ts';
import { MqttSink } from './mqtt-sink.ts';
import { RabbitMqSink } from './rabbitmq-sink.ts';
import { RedisSink } from './redis-sink.ts';
import { allFailed, errorText, withDeadline, type LiveSink } from './sink-support.ts';
import { MysqlSink, PostgresSink } from './sql-sinks.ts';
import { WebhookSink } from './webhook-sink.ts';

/** Types that deliver for real with `--live-connectors`; the others stay simulated. */
const LIVE_CONNECTOR_TYPES: readonly ConnectorTypeId[] = ['webhook', 'mqtt', 'redis', 'postgres', 'mysql', 'rabbitmq', 'file'];

/** Upper bound on one batch's real delivery, whatever the sink's own timeouts (ms of wall time). */
const BATCH_DEADLINE_MS = 120_000;

export interface LiveConnectorsOptions {
  /** Test hook: file rotation by size at this many bytes instead of max_size_gb GiB. */
  fileRotationBytes?: number;
}

/**
 * The live sinks of one served cluster: one per connector (tenant, name, config), created on the
 * connector's first send and kept (with its connections) until `close()`. `factory()` plugs them
 * into `Connectors.setSinkFactory`, sending every other type to the simulated fallback.
 */
export class LiveConnectors {
  private readonly sinks = new Map<string, LiveSink>();

  constructor(private readonly options: LiveConnectorsOptions = {}) {}

  static isLive(type: string): boolean {
    return (LIVE_CONNECTOR_TYPES as readonly string[]).includes(type);
  }

  factory(fallback: (connector: Connector) => ConnectorSink): SinkFactory {
    return (connector) => (LiveConnectors.isLive(connector.connector_type) ? this.sinkFor(connector) : fallback(connector));
  }

  private sinkFor(connector: Connector): AsyncSink {
    const key = `${connector.tenant}\u0000${connector.connector_name}\u0000${connector.configText}`;
    let sink = this.sinks.get(key);
    if (!sink) {
      sink = this.build(connector);
      this.sinks.set(key, sink);
    }
    const live = sink;
    return {
      deliver: (batch: readonly QueuedMessage[]): Promise<SinkResult> =>
        withDeadline(live.deliver(batch), BATCH_DEADLINE_MS, `${connector.connector_type} delivery`).catch((e: unknown) =>
          allFailed(batch, errorText(e)),
        ),
    };
  }

  private build(connector: Connector): LiveSink {
    switch (connector.connector_type) {
      case 'webhook':
        return new WebhookSink(connector);
      case 'mqtt':
        return new MqttSink(connector);
      case 'redis':
        return new RedisSink(connector);
      case 'postgres':
        return new PostgresSink(connector);
      case 'mysql':
        return new MysqlSink(connector);
      case 'rabbitmq':
        return new RabbitMqSink(connector);
      case 'file':
        return new FileSink(connector, this.options.fileRotationBytes);
      default:
        throw new Error(`connector type ${connector.connector_type} has no live sink`);
    }
  }

  /** Closes every connection the sinks hold. */
  async close(): Promise<void> {
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    await Promise.all(sinks.map((s) => s.close().catch(() => undefined)));
  }
}
