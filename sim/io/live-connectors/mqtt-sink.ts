import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { allFailed, cfgBool, cfgInt, cfgStr, errorText, perMessage, withDeadline, type LiveSink } from './sink-support.ts';

/** Catalogue `protocol_version` → the client's protocol (v3 is MQTT 3.1, which has its own protocol name). */
function protocolOptions(version: string): Pick<IClientOptions, 'protocolVersion' | 'protocolId'> {
  if (version === 'v3') return { protocolVersion: 3, protocolId: 'MQIsdp' };
  if (version === 'v4') return { protocolVersion: 4 };
  return { protocolVersion: 5 };
}

/**
 * `mqtt` bridge: one client per connector, published to `topic_prefix` + original topic with the
 * configured qos and retain. The client reconnects on its own (every second); while it is not
 * connected, a batch waits up to connect_timeout_secs and then fails (no hidden offline queue: the
 * connector's failure strategy decides what happens to the messages).
 */
export class MqttSink implements LiveSink {
  private readonly client: MqttClient;
  private readonly server: string;
  private readonly prefix: string;
  private readonly qos: 0 | 1 | 2;
  private readonly retain: boolean;
  private readonly connectTimeoutMs: number;
  private lastError = 'not connected yet';

  constructor(connector: Connector) {
    const { config } = connector;
    this.server = cfgStr(config, 'server');
    this.prefix = cfgStr(config, 'topic_prefix');
    this.qos = cfgInt(config, 'qos', 1) as 0 | 1 | 2;
    this.retain = cfgBool(config, 'retain', false);
    this.connectTimeoutMs = cfgInt(config, 'connect_timeout_secs', 10) * 1000;
    const username = cfgStr(config, 'username');
    const password = cfgStr(config, 'password');
    this.client = connect(this.server, {
      ...protocolOptions(cfgStr(config, 'protocol_version', 'v5')),
      // Decision: client id = client_id_prefix (default "mqsim") + "_" + tenant + "_" + connector name.
      clientId: `${cfgStr(config, 'client_id_prefix') || 'mqsim'}_${connector.tenant}_${connector.connector_name}`,
      keepalive: cfgInt(config, 'keepalive_secs', 60),
      connectTimeout: this.connectTimeoutMs,
      reconnectPeriod: 1000,
      clean: true,
      queueQoSZero: false,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
    });
    this.client.on('error', (e) => (this.lastError = errorText(e)));
    this.client.on('offline', () => (this.lastError = `${this.server} is offline`));
  }

  private connected(): Promise<void> {
    if (this.client.connected) return Promise.resolve();
    return withDeadline(
      new Promise<void>((resolve) => this.client.once('connect', () => resolve())),
      this.connectTimeoutMs,
      `connecting to ${this.server} (${this.lastError})`,
    );
  }

  async deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    try {
      await this.connected();
    } catch (e) {
      return allFailed(batch, `mqtt ${this.server}: ${errorText(e)}`);
    }
    const outcomes = await Promise.all(
      batch.map((msg) =>
        withDeadline(
          this.client.publishAsync(this.prefix + msg.topic, msg.payload, { qos: this.qos, retain: this.retain }),
          this.connectTimeoutMs,
          'publish',
        ).then(
          () => null,
          (e: unknown) => `mqtt ${this.server}: ${errorText(e)}`,
        ),
      ),
    );
    return perMessage(batch, outcomes);
  }

  close(): Promise<void> {
    return this.client.endAsync(true).catch(() => undefined);
  }
}
