import { connect, type Socket } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';

/**
 * Test helper: an MQTT client with no behaviour of its own (mqtt-packet over a bare socket), for what
 * a library client will not do on purpose: keep a message unacknowledged, resend a QoS 2 message,
 * stay silent past its keep alive, send garbage.
 */
export class RawClient {
  private readonly parser;
  private readonly received: Packet[] = [];
  private readonly waiters: { match: (p: Packet) => boolean; resolve: (p: Packet) => void }[] = [];
  readonly closed: Promise<void>;

  private constructor(
    readonly socket: Socket,
    private version: 3 | 4 | 5,
  ) {
    this.parser = mqttPacket.parser({ protocolVersion: version });
    this.parser.on('packet', (p: Packet) => {
      const i = this.waiters.findIndex((w) => w.match(p));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(p);
      else this.received.push(p);
    });
    this.parser.on('error', () => socket.destroy());
    socket.on('data', (b: Buffer) => this.parser.parse(b));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static open(port: number, version: 3 | 4 | 5 = 4): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(new RawClient(socket, version)));
      socket.once('error', reject);
    });
  }

  send(packet: Packet): void {
    this.socket.write(mqttPacket.generate(packet, { protocolVersion: this.version }));
  }

  sendBytes(bytes: Buffer | Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next packet with `cmd` (and matching `extra`), waiting up to `timeoutMs`. */
  next(cmd: Packet['cmd'], timeoutMs = 3_000, extra: (p: any) => boolean = () => true): Promise<any> {
    const match = (p: Packet) => p.cmd === cmd && extra(p);
    const i = this.received.findIndex(match);
    if (i >= 0) return Promise.resolve(this.received.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const k = this.waiters.indexOf(waiter);
        if (k >= 0) this.waiters.splice(k, 1);
        reject(new Error(`no ${cmd} within ${timeoutMs} ms (got ${this.received.map((p) => p.cmd).join(', ') || 'nothing'})`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (p: Packet) => {
          clearTimeout(timer);
          resolve(p);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** CONNECT and its CONNACK. */
  async connect(fields: Partial<Extract<Packet, { cmd: 'connect' }>> & { clientId: string }): Promise<any> {
    this.send({
      cmd: 'connect',
      protocolId: this.version === 3 ? 'MQIsdp' : 'MQTT',
      protocolVersion: this.version,
      clean: true,
      keepalive: 60,
      ...fields,
    });
    return this.next('connack');
  }

  /** Packets received and not taken by `next` yet. */
  get pending(): readonly Packet[] {
    return this.received;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
