import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { liveHarness, type LiveHarness } from './testing/live-test-kit.ts';

/** A webhook receiver the test controls: records requests, can be closed and reopened on its port. */
class Receiver {
  readonly requests: { method: string; headers: Record<string, unknown>; body: unknown }[] = [];
  private server: Server | null = null;
  port = 0;

  async start(port = 0): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({ method: req.method ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s)
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }
}

let h: LiveHarness | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await h?.close();
  await rx?.stop();
  h = rx = undefined;
});

describe('live webhook connector', () => {
  it('delivers the Events delivery shape with method, headers and auth', async () => {
    rx = new Receiver();
    await rx.start();
    h = liveHarness();
    await h.create({
      name: 'wh',
      type: 'webhook',
      config: { url: rx.url, method: 'put', headers: { 'X-Source': 'mqsim' }, auth_type: 'bearer', bearer_token: 'tok' },
    });
    const publishedAt = h.sim.cluster.now();
    h.publish('live/a', 'first');
    expect(await h.until(() => h!.connector('wh').stats.sendSuccessTotal === 1)).toBe(true);
    const req = rx.requests[0];
    expect(req.method).toBe('PUT');
    expect(req.headers['x-source']).toBe('mqsim');
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(req.body).toEqual({ payload: 'first', timestamp: Math.floor(publishedAt / 1000) });
    h.publish('live/a', 'x');
    h.publish('live/b', 'y');
    expect(await h.until(() => h!.connector('wh').stats.sendSuccessTotal === 3)).toBe(true);
    expect((rx.requests[1].body as unknown[]).map((r: any) => r.payload)).toEqual(['x', 'y']);
  });

  it('closed port: discard counts send_fail_total; dead_message_queue writes a dead-letter record', async () => {
    h = liveHarness();
    await h.create({ name: 'gone', type: 'webhook', config: { url: 'http://127.0.0.1:1/hook', timeout_ms: 1000 } });
    await h.create({
      name: 'dlq',
      type: 'webhook',
      config: { url: 'http://127.0.0.1:1/hook', timeout_ms: 1000 },
      failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 500, topic_name: 'dead' },
    });
    h.publish('live/a', 'doomed');
    expect(await h.until(() => h!.connector('gone').stats.sendFailTotal === 1 && h!.connector('dlq').stats.sendFailTotal === 1)).toBe(true);
    expect(h.connector('gone').stats.sendSuccessTotal).toBe(0);
    const read = await h.sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'dead', offset: 0 });
    const record = JSON.parse(read.json.data.messages[0].content);
    expect(record).toMatchObject({ connector_name: 'dlq', source_topic: 'live/a', retry_times: 1 });
    expect(Buffer.from(record.original_data).toString('utf8')).toBe('doomed');
    expect(record.error_message).toMatch(/webhook http:\/\/127\.0\.0\.1:1\/hook: .*ECONNREFUSED/);
  });

  it('recovers when the receiver comes back: later batches succeed', async () => {
    rx = new Receiver();
    await rx.start();
    const port = rx.port;
    h = liveHarness();
    await h.create({ name: 'wh', type: 'webhook', config: { url: rx.url, timeout_ms: 1000 } });
    await rx.stop();
    h.publish('live/a', 'while-down');
    expect(await h.until(() => h!.connector('wh').stats.sendFailTotal === 1)).toBe(true);
    await rx.start(port);
    h.publish('live/a', 'after-up');
    expect(await h.until(() => h!.connector('wh').stats.sendSuccessTotal === 1)).toBe(true);
    expect(rx.requests.map((r: any) => r.body.payload)).toEqual(['after-up']);
    const detail = await h.sim.get('/api/cluster/connector/detail?tenant=default&connector_name=wh');
    expect(detail.json.data).toMatchObject({ send_success_total: 1, send_fail_total: 1, last_msg: 'after-up' });
  });
});
