/**
 * The MQTT load generator of `npm run bench:mqtt`: bare sockets speaking MQTT 3.1.1 through
 * mqtt-packet, the same code against every broker, so what differs between two figures is the broker.
 * (mqtt.js would cost the generator more CPU than some brokers spend serving it on a 2-core machine.)
 */
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import mqttPacket, { type Packet } from 'mqtt-packet';

/** One MQTT 3.1.1 connection with a packet callback. */
class LoadClient {
  private readonly parser = mqttPacket.parser({ protocolVersion: 4 });
  onPacket: (p: Packet) => void = () => {};

  private constructor(readonly socket: Socket) {
    this.parser.on('packet', (p: Packet) => this.onPacket(p));
    socket.on('data', (b: Buffer) => this.parser.parse(b));
    socket.on('error', () => {});
  }

  static async open(port: number, clientId: string): Promise<LoadClient> {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const c = new LoadClient(socket);
    const connack = c.next('connack');
    c.send({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId, clean: true, keepalive: 120 });
    const ack = await connack;
    if (ack.returnCode !== 0) throw new Error(`CONNECT of ${clientId} refused with ${ack.returnCode}`);
    return c;
  }

  /** Writes a packet; false when the socket's buffer is full (wait for 'drain'). */
  send(p: Packet): boolean {
    return this.socket.write(mqttPacket.generate(p));
  }

  /** The next packet of kind `cmd`; the others go to the handler that was there before. */
  next<C extends Packet['cmd']>(cmd: C): Promise<Extract<Packet, { cmd: C }>> {
    return new Promise((resolve) => {
      const previous = this.onPacket;
      this.onPacket = (p) => {
        if (p.cmd === cmd) {
          this.onPacket = previous;
          resolve(p as Extract<Packet, { cmd: C }>);
        } else previous(p);
      };
    });
  }

  close(): void {
    if (!this.socket.destroyed) this.socket.end(mqttPacket.generate({ cmd: 'disconnect' }));
  }
}

export interface ConnectFigures {
  connections: number;
  seconds: number;
  perSecond: number;
}

/**
 * Connection rate: `total` clients each CONNECT, wait for the CONNACK, DISCONNECT and close, with at
 * most `concurrency` handshakes under way at once.
 */
export async function measureConnects(port: number, total: number, concurrency: number): Promise<ConnectFigures> {
  const tag = randomBytes(3).toString('hex');
  let started = 0;
  let done = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const more = (): void => {
      while (started < total && started - done < concurrency) {
        const i = started++;
        LoadClient.open(port, `bench-c-${tag}-${i}`).then((c) => {
          c.close();
          if (++done === total) resolve();
          else more();
        }, reject);
      }
    };
    more();
  });
  const seconds = (performance.now() - t0) / 1000;
  return { connections: total, seconds, perSecond: total / seconds };
}

export interface PublishFigures {
  qos: 0 | 1;
  sent: number;
  received: number;
  seconds: number;
  /** Messages the subscriber received per second, first publish to last receipt. */
  perSecond: number;
}

/**
 * Publish throughput with one subscriber receiving: a publisher sends `total` messages of
 * `payloadBytes` on one topic at QoS `qos` (QoS 0: as fast as the socket takes them; QoS 1: at most
 * `window` awaiting PUBACK), a subscriber at the same QoS receives (and acknowledges) them. Time runs
 * from the first publish to the last message received; QoS 0 messages the broker drops end the wait
 * after a quiet second.
 */
export async function measurePublishes(
  port: number,
  qos: 0 | 1,
  total: number,
  payloadBytes: number,
  window: number,
): Promise<PublishFigures> {
  const tag = randomBytes(3).toString('hex');
  const topic = `bench/${tag}/q${qos}`;
  const sub = await LoadClient.open(port, `bench-s-${tag}`);
  const suback = sub.next('suback');
  sub.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic, qos }] });
  const granted = (await suback).granted[0];
  if (granted !== qos) throw new Error(`SUBSCRIBE at QoS ${qos} granted ${granted}`);
  const pub = await LoadClient.open(port, `bench-p-${tag}`);
  const payload = randomBytes(payloadBytes);
  let received = 0;
  let lastAt = performance.now();
  let finish: () => void = () => {};
  const allReceived = new Promise<void>((resolve) => (finish = resolve));
  sub.onPacket = (p) => {
    if (p.cmd !== 'publish') return;
    received++;
    lastAt = performance.now();
    if (p.qos === 1) sub.send({ cmd: 'puback', messageId: p.messageId });
    if (received === total) finish();
  };
  let sent = 0;
  const t0 = performance.now();
  if (qos === 0) {
    while (sent < total) {
      const ok = pub.send({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false });
      sent++;
      if (!ok) await new Promise((r) => pub.socket.once('drain', r));
    }
  } else {
    let acked = 0;
    let nextId = 1;
    await new Promise<void>((resolve) => {
      const fill = (): void => {
        while (sent < total && sent - acked < window) {
          pub.send({ cmd: 'publish', topic, payload, qos: 1, messageId: nextId, retain: false, dup: false });
          nextId = (nextId % 65_535) + 1;
          sent++;
        }
      };
      pub.onPacket = (p) => {
        if (p.cmd !== 'puback') return;
        if (++acked === total) resolve();
        else fill();
      };
      fill();
    });
  }
  // Wait for the last message, or (QoS 0 drops) for a second without one.
  await Promise.race([
    allReceived,
    new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (performance.now() - lastAt > 1_000) {
          clearInterval(poll);
          resolve();
        }
      }, 100);
      void allReceived.then(() => clearInterval(poll));
    }),
  ]);
  const seconds = (lastAt - t0) / 1000;
  pub.close();
  sub.close();
  return { qos, sent, received, seconds, perSecond: received / seconds };
}

/** Whether something accepts TCP connections at 127.0.0.1:port. */
export function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
