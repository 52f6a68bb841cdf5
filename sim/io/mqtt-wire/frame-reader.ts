/**
 * Splits a connection's byte stream into MQTT packets (fixed header, remaining length, body) without
 * reading them: each complete packet is handed on whole, as one buffer, in arrival order. The
 * listener reads the common packets itself (`fast-packets.ts`) and gives every other one to
 * mqtt-packet's parser, which then always sees exactly one complete packet.
 *
 * Bytes of a packet still incomplete are kept as a list of chunks and joined once the packet is all
 * there, so a large packet arriving in many chunks is copied once, not once per chunk.
 */
export interface FrameSink {
  /** The largest remaining length taken (max_packet_size); read at each packet header. */
  readonly maxRemaining: number;
  /** A complete packet; `bodyAt`: where its body starts (after the remaining length). False: stop reading. */
  frame(packet: Buffer, bodyAt: number, remaining: number): boolean;
  /** A packet announced a remaining length above the limit: refused before its body is read. */
  tooLarge(remaining: number): void;
  /** The remaining length is not a valid variable byte integer: the stream cannot be split any more. */
  unframeable(): void;
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes needed before anything more can be read (a header, or the whole of the packet begun). */
  private needed = 1;

  constructor(private readonly sink: FrameSink) {}

  /** Bytes received and not yet handed on. */
  get heldBytes(): number {
    return this.held;
  }

  push(chunk: Buffer): void {
    const sink = this.sink;
    if (this.held + chunk.length < this.needed) {
      this.chunks.push(chunk);
      this.held += chunk.length;
      return;
    }
    const buf = this.held === 0 ? chunk : Buffer.concat([...this.chunks, chunk], this.held + chunk.length);
    this.chunks = [];
    this.held = 0;
    this.needed = 1;
    let at = 0;
    while (at < buf.length) {
      // Remaining length: 1-4 bytes of 7 bits each, the high bit saying another byte follows.
      let remaining = 0;
      let mul = 1;
      let i = at + 1;
      let done = false;
      while (i < buf.length && i <= at + 4) {
        const b = buf[i++];
        remaining += (b & 0x7f) * mul;
        mul *= 0x80;
        if ((b & 0x80) === 0) {
          done = true;
          break;
        }
      }
      if (!done) {
        if (i > at + 4) {
          sink.unframeable();
          return;
        }
        this.keep(buf, at, i - at + 1);
        return;
      }
      if (remaining > sink.maxRemaining) {
        sink.tooLarge(remaining);
        return;
      }
      const end = i + remaining;
      if (end > buf.length) {
        this.keep(buf, at, end - at);
        return;
      }
      if (!sink.frame(buf.subarray(at, end), i - at, remaining)) return;
      at = end;
    }
  }

  /** Keeps the bytes from `at` on until `needed` of them are there. */
  private keep(buf: Buffer, at: number, needed: number): void {
    const rest = buf.subarray(at);
    this.chunks = [rest];
    this.held = rest.length;
    this.needed = needed;
  }
}
