import amqp from 'amqplib';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { allFailed, cfgBool, cfgInt, cfgStr, errorText, perMessage, withDeadline, type LiveSink } from './sink-support.ts';

interface Link {
  connection: amqp.ChannelModel;
  channel: amqp.Channel | amqp.ConfirmChannel;
}

/**
 * `rabbitmq` with amqplib. Decisions: the exchange is asserted as a durable `topic` exchange; an
 * empty `routing_key` routes by the message's MQTT topic with `/` turned into `.` (AMQP topic
 * words), a set one is used as is. Body = the payload; properties: persistent per delivery_mode,
 * timestamp (seconds), messageId = the key when set, header `mqtt-topic`. With publisher_confirms a
 * confirm channel is used and a batch succeeds message by message as the broker acks within
 * confirm_timeout_secs. A lost connection is dropped and the next batch connects again.
 */
export class RabbitMqSink implements LiveSink {
  private link: Promise<Link> | null = null;
  private readonly label: string;

  constructor(private readonly connector: Connector) {
    const { config } = connector;
    this.label = `rabbitmq ${cfgStr(config, 'server')}:${cfgInt(config, 'port', 5672)}`;
  }

  private connectLink(): Promise<Link> {
    const { config } = this.connector;
    const timeoutMs = cfgInt(config, 'connection_timeout_secs', 30) * 1000;
    const open = async (): Promise<Link> => {
      // channelMax is read by amqplib but missing from its type definitions.
      const options: amqp.Options.Connect & { channelMax: number } = {
        protocol: cfgBool(config, 'enable_tls', false) ? 'amqps' : 'amqp',
        hostname: cfgStr(config, 'server'),
        port: cfgInt(config, 'port', 5672),
        username: cfgStr(config, 'username'),
        password: cfgStr(config, 'password'),
        vhost: cfgStr(config, 'virtual_host', '/'),
        heartbeat: cfgInt(config, 'heartbeat_secs', 60),
        frameMax: cfgInt(config, 'frame_max', 131_072),
        channelMax: cfgInt(config, 'channel_max', 2047),
      };
      const connection = await amqp.connect(options, { timeout: timeoutMs });
      const drop = (): void => {
        this.link = null;
      };
      connection.on('error', drop);
      connection.on('close', drop);
      try {
        const channel = cfgBool(config, 'publisher_confirms', true)
          ? await connection.createConfirmChannel()
          : await connection.createChannel();
        channel.on('error', drop);
        channel.on('close', drop);
        await channel.assertExchange(cfgStr(config, 'exchange'), 'topic', { durable: true });
        return { connection, channel };
      } catch (e) {
        await connection.close().catch(() => undefined);
        throw e;
      }
    };
    return withDeadline(open(), timeoutMs, `connecting to ${this.label}`);
  }

  async deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    const { config } = this.connector;
    let link: Link;
    try {
      this.link ??= this.connectLink();
      link = await this.link;
    } catch (e) {
      this.link = null;
      return allFailed(batch, `${this.label}: ${errorText(e)}`);
    }
    const exchange = cfgStr(config, 'exchange');
    const fixedKey = cfgStr(config, 'routing_key');
    const confirms = cfgBool(config, 'publisher_confirms', true);
    const confirmMs = cfgInt(config, 'confirm_timeout_secs', 30) * 1000;
    const outcomes = batch.map(
      (msg) =>
        new Promise<string | null>((resolve) => {
          const options: amqp.Options.Publish = {
            persistent: cfgStr(config, 'delivery_mode', 'NonPersistent') === 'Persistent',
            timestamp: Math.floor(msg.timestamp / 1000),
            contentType: 'application/octet-stream',
            headers: { 'mqtt-topic': msg.topic },
            ...(msg.key !== undefined ? { messageId: msg.key } : {}),
          };
          const routingKey = fixedKey || msg.topic.split('/').join('.');
          try {
            if (confirms) {
              (link.channel as amqp.ConfirmChannel).publish(exchange, routingKey, Buffer.from(msg.payload, 'utf8'), options, (err) =>
                resolve(err ? `${this.label}: broker nacked the message (${errorText(err)})` : null),
              );
            } else {
              link.channel.publish(exchange, routingKey, Buffer.from(msg.payload, 'utf8'), options);
              resolve(null);
            }
          } catch (e) {
            resolve(`${this.label}: ${errorText(e)}`);
          }
        }),
    );
    const settled = await Promise.all(
      outcomes.map((p) => withDeadline(p, confirmMs, 'publisher confirm').catch((e: unknown) => `${this.label}: ${errorText(e)}`)),
    );
    return perMessage(batch, settled);
  }

  async close(): Promise<void> {
    const link = this.link;
    this.link = null;
    if (link) await link.then((l) => l.connection.close()).catch(() => undefined);
  }
}
