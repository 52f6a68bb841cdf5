import { Agent, request } from 'undici';
import type { Connector } from '../../model/connectors/connector-types.ts';
import type { QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { allFailed, cfgStr, cfgInt, deliveryRecord, errorText, type LiveSink } from './sink-support.ts';

/** The request body of one batch (spec, Events): one message → an object, several → an array. */
export function webhookBody(batch: readonly QueuedMessage[]): string {
  return JSON.stringify(batch.length === 1 ? deliveryRecord(batch[0]) : batch.map(deliveryRecord));
}

/** Request headers: content type, the configured headers, then authentication (it wins over a configured Authorization). */
export function webhookHeaders(config: Connector['config']): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries((config.headers as Record<string, string> | undefined) ?? {}))
    headers[name.toLowerCase()] = value;
  const auth = cfgStr(config, 'auth_type', 'none');
  if (auth === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${cfgStr(config, 'username')}:${cfgStr(config, 'password')}`).toString('base64')}`;
  if (auth === 'bearer') headers.authorization = `Bearer ${cfgStr(config, 'bearer_token')}`;
  return headers;
}

/** `webhook`: one HTTP request per batch; 2xx is success, anything else (or no answer in timeout_ms) fails the batch. */
export class WebhookSink implements LiveSink {
  private readonly url: string;
  private readonly method: 'POST' | 'PUT';
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly agent: Agent;

  constructor(connector: Connector) {
    const { config } = connector;
    this.url = cfgStr(config, 'url');
    this.method = cfgStr(config, 'method', 'post') === 'put' ? 'PUT' : 'POST';
    this.timeoutMs = cfgInt(config, 'timeout_ms', 5000);
    this.headers = webhookHeaders(config);
    // Keep-alive connections are reused; a dead one is replaced by the agent on the next request (reconnect).
    this.agent = new Agent({ connect: { timeout: this.timeoutMs }, keepAliveTimeout: 4_000 });
  }

  async deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    try {
      const res = await request(this.url, {
        method: this.method,
        headers: this.headers,
        body: webhookBody(batch),
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: batch.length, failed: [] };
      return allFailed(batch, `webhook ${this.url} answered HTTP ${res.statusCode}`);
    } catch (e) {
      return allFailed(batch, `webhook ${this.url}: ${errorText(e)}`);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
