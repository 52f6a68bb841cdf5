import { Redis } from 'ioredis';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { parseRedisTemplate, type RedisCommandTemplate } from './redis-command.ts';
import { allFailed, cfgInt, cfgStr, errorText, perMessage, withDeadline, type LiveSink } from './sink-support.ts';

/**
 * `redis`: one command per message from `command_template` (see redis-command.ts), sent as one
 * pipeline per batch; a command Redis rejects fails only its message. Mode `single` only: for
 * `cluster` and `sentinel` every batch fails with a message saying so (decision: refusing is
 * honest, a silent fallback to the simulation would report deliveries that never happened).
 * ioredis reconnects by itself; commands are not queued while disconnected (the failure strategy
 * decides), a batch waits up to connect_timeout_ms for the connection.
 */
export class RedisSink implements LiveSink {
  private readonly client: Redis | null = null;
  private readonly refusal: string | null = null;
  private readonly template: RedisCommandTemplate | null = null;
  private readonly server: string;
  private readonly connectTimeoutMs: number;
  private lastError = 'not connected yet';

  constructor(connector: Connector) {
    const { config } = connector;
    this.server = cfgStr(config, 'server');
    this.connectTimeoutMs = cfgInt(config, 'connect_timeout_ms', 5000);
    const mode = cfgStr(config, 'mode', 'single');
    if (mode !== 'single') {
      this.refusal = `redis mode ${mode} is not supported by live connectors (only single); the message was not delivered`;
      return;
    }
    try {
      this.template = parseRedisTemplate(cfgStr(config, 'command_template'));
    } catch (e) {
      this.refusal = `redis: ${errorText(e)}`;
      return;
    }
    const [host, port] = splitHostPort(this.server.split(',')[0].trim());
    const retryMs = cfgInt(config, 'retry_interval_ms', 1000);
    const username = cfgStr(config, 'username');
    const password = cfgStr(config, 'password');
    this.client = new Redis({
      host,
      port,
      db: cfgInt(config, 'database', 0),
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      connectTimeout: this.connectTimeoutMs,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => retryMs,
    });
    this.client.on('error', (e) => (this.lastError = errorText(e)));
    this.client.connect().catch(() => undefined); // failures surface through 'error'; retryStrategy reconnects
  }

  private ready(client: Redis): Promise<void> {
    if (client.status === 'ready') return Promise.resolve();
    return withDeadline(
      new Promise<void>((resolve) => client.once('ready', () => resolve())),
      this.connectTimeoutMs,
      `connecting to ${this.server} (${this.lastError})`,
    );
  }

  async deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    if (this.refusal || !this.client || !this.template) return allFailed(batch, this.refusal ?? 'redis sink not initialised');
    try {
      await this.ready(this.client);
      const pipeline = this.client.pipeline();
      for (const msg of batch) {
        const [command, ...args] = this.template.render(msg);
        pipeline.call(command, ...args);
      }
      const replies = (await withDeadline(pipeline.exec(), this.connectTimeoutMs, 'redis pipeline')) ?? [];
      return perMessage(
        batch,
        batch.map((_, i) => (replies[i]?.[0] ? `redis ${this.server}: ${errorText(replies[i][0])}` : null)),
      );
    } catch (e) {
      return allFailed(batch, `redis ${this.server}: ${errorText(e)}`);
    }
  }

  async close(): Promise<void> {
    this.client?.disconnect();
  }
}

function splitHostPort(hostPort: string): [string, number] {
  const i = hostPort.lastIndexOf(':');
  return [hostPort.slice(0, i).replace(/^\[|\]$/g, ''), Number(hostPort.slice(i + 1))];
}
