import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableOutbox, type OutputGate } from './durable-outbox.ts';

/** A gate whose durable point the test moves, as the journal's fsyncs would. */
class StepGate implements OutputGate {
  journaled = 0;
  durable = 0;
  private waiting: { mark: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  mark(): number {
    return this.journaled;
  }
  whenDurable(mark: number): Promise<void> | undefined {
    if (mark <= this.durable) return undefined;
    return new Promise((resolve, reject) => this.waiting.push({ mark, resolve, reject }));
  }
  reach(durable: number): void {
    this.durable = durable;
    for (const w of this.waiting.filter((x) => x.mark <= durable)) w.resolve();
    this.waiting = this.waiting.filter((x) => x.mark > durable);
  }
  fail(): void {
    for (const w of this.waiting) w.reject(new Error('fsync failed'));
  }
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** A real TCP connection on loopback: the server side goes to the outbox, the client side collects what arrives. */
async function socketPair(): Promise<{ server: Socket; received: () => string; closed: Promise<void> }> {
  const listener = createServer();
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const port = (listener.address() as { port: number }).port;
  const accepted = new Promise<Socket>((r) => listener.once('connection', r));
  const client = connect(port, '127.0.0.1');
  let text = '';
  client.on('data', (c) => (text += c.toString()));
  const closed = new Promise<void>((r) => client.on('close', () => r()));
  client.on('error', () => {});
  const server = await accepted;
  server.on('error', () => {});
  closers.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { server, received: () => text, closed };
}

const tick = (ms = 20): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('DurableOutbox', () => {
  it('holds packets until what was journaled before them is durable, and keeps their order', async () => {
    const { server, received } = await socketPair();
    const gate = new StepGate();
    const outbox = new DurableOutbox(server, gate);
    gate.journaled = 1; // an op was journaled, then its acknowledgement written
    outbox.write(Buffer.from('ack1;'));
    await tick();
    gate.journaled = 2;
    outbox.write(Buffer.from('ack2;'));
    await tick();
    expect(received()).toBe('');
    expect(outbox.heldBytes).toBe(10);
    gate.reach(1);
    await tick();
    expect(received()).toBe('ack1;');
    gate.reach(2);
    await tick();
    expect(received()).toBe('ack1;ack2;');
    expect(outbox.heldBytes).toBe(0);
  });

  it('a packet with nothing to wait for still goes after those waiting before it', async () => {
    const { server, received } = await socketPair();
    const gate = new StepGate();
    const outbox = new DurableOutbox(server, gate);
    gate.journaled = 1;
    outbox.write(Buffer.from('suback;'));
    await tick();
    gate.durable = 1; // durable now, but the first batch has not been released yet
    outbox.write(Buffer.from('pingresp;'));
    await tick();
    expect(received()).toBe('');
    gate.reach(1);
    await tick();
    expect(received()).toBe('suback;pingresp;');
  });

  it('ends the socket after what was written before, and never sends what could not be made durable', async () => {
    const a = await socketPair();
    const gate = new StepGate();
    const ok = new DurableOutbox(a.server, gate);
    gate.journaled = 1;
    ok.write(Buffer.from('disconnect;'));
    ok.end();
    gate.reach(1);
    await a.closed;
    expect(a.received()).toBe('disconnect;');

    const b = await socketPair();
    const failing = new DurableOutbox(b.server, gate);
    gate.journaled = 2;
    failing.write(Buffer.from('puback;'));
    await tick();
    gate.fail();
    await b.closed;
    expect(b.received()).toBe('');
  });
});
