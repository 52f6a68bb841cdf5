import mqttPacket, { type Packet, type Parser } from 'mqtt-packet';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';

/** What mqtt-packet made of one complete packet. */
export type ParseOutcome = { ok: true; packet: Packet } | { ok: false; error: Error };

const CONNECT = 1;

/**
 * mqtt-packet's parsers, shared by every connection of the listener. `FrameReader` hands on complete
 * packets only, so a parser keeps nothing between two calls (no partial packet) and one per protocol
 * version serves all connections: no parser, buffer list and listeners built per connection. A
 * CONNECT goes to a parser of its own, since reading one sets the parser's protocol version.
 */
export class PacketParsers {
  private readonly byVersion = new Map<number, Parser>();
  private connectParser = this.fresh(4);
  private outcome: ParseOutcome | undefined;

  /** Reads one complete packet (fixed header included) sent by a client speaking `version`. */
  parse(frame: Buffer, version: ProtocolVersion): ParseOutcome {
    const isConnect = frame[0] >> 4 === CONNECT;
    let parser = isConnect ? this.connectParser : this.byVersion.get(version);
    if (!parser) this.byVersion.set(version, (parser = this.fresh(version)));
    this.outcome = undefined;
    parser.parse(frame);
    const outcome = this.outcome as ParseOutcome | undefined;
    if (outcome?.ok === true) return outcome;
    // After an error (or, should it ever happen, a packet it still waits on) the parser is replaced: nothing carries over.
    if (isConnect) this.connectParser = this.fresh(4);
    else this.byVersion.set(version, this.fresh(version));
    return outcome ?? { ok: false, error: new Error(`incomplete ${frame.length}-byte packet`) };
  }

  private fresh(version: ProtocolVersion): Parser {
    const parser = mqttPacket.parser({ protocolVersion: version });
    parser.on('packet', (packet: Packet) => (this.outcome ??= { ok: true, packet }));
    parser.on('error', (error: Error) => (this.outcome = { ok: false, error }));
    return parser;
  }
}
