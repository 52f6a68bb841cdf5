import { connect, type Socket } from 'node:net';
import type { MqttClientSession, MqttDriver, MqttOutcome } from './target.ts';

/**
 * A minimal MQTT 3.1.1 client over TCP: CONNECT (clean session), SUBSCRIBE, PUBLISH at QoS 0 or 1,
 * DISCONNECT. Just enough for the suites to cause what the admin API should then show (a client, a
 * subscription, a retained message); it does not read messages delivered to it.
 */

const CONNACK_REASONS: Record<number, string> = {
  1: 'unacceptable protocol version',
  2: 'client identifier rejected',
  3: 'server unavailable',
  4: 'bad user name or password',
  5: 'not authorized',
};

function utf8(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(bytes.length);
  return Buffer.concat([len, bytes]);
}

/** The MQTT "remaining length" variable-byte integer. */
export function encodeLength(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

function packet(firstByte: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([firstByte]), encodeLength(body.length), body]);
}

export function connectPacket(clientId: string, keepAliveSeconds: number, credentials?: { username: string; password?: string }): Buffer {
  let flags = 0x02; // clean session
  if (credentials) flags |= 0x80 | (credentials.password !== undefined ? 0x40 : 0);
  const keepAlive = Buffer.alloc(2);
  keepAlive.writeUInt16BE(keepAliveSeconds);
  const parts = [utf8('MQTT'), Buffer.from([4, flags]), keepAlive, utf8(clientId)];
  if (credentials) {
    parts.push(utf8(credentials.username));
    if (credentials.password !== undefined) parts.push(utf8(credentials.password));
  }
  return packet(0x10, Buffer.concat(parts));
}

interface Incoming {
  type: number;
  flags: number;
  body: Buffer;
}

/** Splits a byte stream into MQTT packets. */
export class PacketReader {
  private buffer = Buffer.alloc(0);

  push(chunk: Buffer): Incoming[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: Incoming[] = [];
    for (;;) {
      if (this.buffer.length < 2) return out;
      let length = 0;
      let multiplier = 1;
      let i = 1;
      for (;;) {
        if (i >= this.buffer.length) return out;
        const byte = this.buffer[i++];
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if ((byte & 0x80) === 0) break;
        if (i > 4) throw new Error('malformed remaining length');
      }
      if (this.buffer.length < i + length) return out;
      out.push({ type: this.buffer[0] >> 4, flags: this.buffer[0] & 0x0f, body: this.buffer.subarray(i, i + length) });
      this.buffer = this.buffer.subarray(i + length);
    }
  }
}

class WireSession implements MqttClientSession {
  private readonly reader = new PacketReader();
  private nextId = 1;
  private readonly waiting = new Map<string, (p: Incoming) => void>();
  private closed = false;
  /** PINGREQ every half keep-alive, so a client kept through a long run is not dropped as silent. */
  private readonly pinger: NodeJS.Timeout;

  constructor(
    readonly clientId: string,
    private readonly socket: Socket,
    private readonly timeoutMs: number,
    keepAliveSeconds: number,
  ) {
    this.pinger = setInterval(
      () => {
        if (!socket.destroyed) socket.write(packet(0xc0, Buffer.alloc(0)));
      },
      (keepAliveSeconds * 1000) / 2,
    );
    this.pinger.unref();
    socket.on('close', () => clearInterval(this.pinger));
    socket.on('data', (chunk: Buffer) => {
      let packets: Incoming[];
      try {
        packets = this.reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const p of packets) {
        // Answers are matched by type and packet id; deliveries to this client are ignored.
        const id = p.body.length >= 2 ? p.body.readUInt16BE(0) : 0;
        const key = p.type === 2 ? 'connack' : `${p.type}:${id}`;
        this.waiting.get(key)?.(p);
        this.waiting.delete(key);
      }
    });
  }

  /** Waits for the packet with `key`, or gives up after the timeout or when the socket closes. */
  expect(key: string): Promise<Incoming | string> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        resolve(`no answer within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      const closed = () => {
        clearTimeout(timer);
        resolve('the broker closed the connection');
      };
      this.socket.once('close', closed);
      this.waiting.set(key, (p) => {
        clearTimeout(timer);
        this.socket.off('close', closed);
        resolve(p);
      });
    });
  }

  private packetId(): number {
    const id = this.nextId;
    this.nextId = (this.nextId % 65_535) + 1;
    return id;
  }

  async subscribe(filter: string, qos: 0 | 1 | 2): Promise<MqttOutcome> {
    const id = this.packetId();
    const head = Buffer.alloc(2);
    head.writeUInt16BE(id);
    const answer = this.expect(`9:${id}`);
    this.socket.write(packet(0x82, Buffer.concat([head, utf8(filter), Buffer.from([qos])])));
    const p = await answer;
    if (typeof p === 'string') return { ok: false, reason: `SUBSCRIBE ${filter}: ${p}` };
    const granted = p.body[2];
    return granted === 0x80 ? { ok: false, reason: `SUBSCRIBE ${filter} refused by the broker (SUBACK 0x80)` } : { ok: true };
  }

  async publish(topic: string, payload: string, options: { qos: 0 | 1; retain: boolean }): Promise<MqttOutcome> {
    const first = 0x30 | (options.qos << 1) | (options.retain ? 1 : 0);
    if (options.qos === 0) {
      this.socket.write(packet(first, Buffer.concat([utf8(topic), Buffer.from(payload, 'utf8')])));
      return { ok: true };
    }
    const id = this.packetId();
    const head = Buffer.alloc(2);
    head.writeUInt16BE(id);
    const answer = this.expect(`4:${id}`);
    this.socket.write(packet(first, Buffer.concat([utf8(topic), head, Buffer.from(payload, 'utf8')])));
    const p = await answer;
    return typeof p === 'string' ? { ok: false, reason: `PUBLISH ${topic}: ${p}` } : { ok: true };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pinger);
    await new Promise<void>((resolve) => {
      this.socket.end(packet(0xe0, Buffer.alloc(0)), () => resolve());
      setTimeout(resolve, 200);
    });
    this.socket.destroy();
  }
}

export interface WireDriverOptions {
  host: string;
  port: number;
  /** Tenant its clients land in, when known (detection reads it from the probe client's record). */
  tenant?: string;
  credentials?: { username: string; password?: string };
  timeoutMs?: number;
}

const KEEP_ALIVE_SECONDS = 60;

/** Opens a TCP connection; resolves with the socket or the reason it could not be opened. */
export function openSocket(host: string, port: number, timeoutMs: number): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no TCP connection to ${host}:${port} within ${timeoutMs} ms`);
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      resolve(`cannot connect to ${host}:${port}: ${(e as Error).message}`);
    });
  });
}

/** Clients that reach the target's MQTT listener over TCP (MQTT 3.1.1). */
export function wireMqttDriver(options: WireDriverOptions): MqttDriver {
  const timeoutMs = options.timeoutMs ?? 3000;
  return {
    via: `MQTT 3.1.1 over TCP at ${options.host}:${options.port}${options.tenant !== undefined ? ` (tenant ${options.tenant})` : ''}`,
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    async connect(clientId: string) {
      const socket = await openSocket(options.host, options.port, timeoutMs);
      if (typeof socket === 'string') return { ok: false, reason: socket };
      const session = new WireSession(clientId, socket, timeoutMs, KEEP_ALIVE_SECONDS);
      const answer = session.expect('connack');
      socket.write(connectPacket(clientId, KEEP_ALIVE_SECONDS, options.credentials));
      const p = await answer;
      if (typeof p === 'string') {
        socket.destroy();
        return { ok: false, reason: `CONNECT: ${p}` };
      }
      const code = p.body[1];
      if (code !== 0) {
        socket.destroy();
        return { ok: false, reason: `CONNECT refused: return code ${code} (${CONNACK_REASONS[code] ?? 'unknown'})` };
      }
      return session;
    },
  };
}
