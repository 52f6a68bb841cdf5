import type { Socket } from 'node:net';

/**
 * Tells what has been journaled and when it is durable (`mqsim serve --state`: the state keeper).
 * Numbers grow with every journaled change.
 */
export interface OutputGate {
  /** Number of the last change journaled so far. */
  mark(): number;
  /** Undefined when change `mark` is durable already; otherwise resolves when it is, rejects when it cannot become durable. */
  whenDurable(mark: number): Promise<void> | undefined;
}

/**
 * A connection's outgoing packets, held until every change journaled before them is durable, and sent
 * in the order written. So a CONNACK, SUBACK, PUBACK... of an op that changed the model reaches the
 * client only once the op's record is on disk, a message delivered because of a publish only once
 * that publish is, and a connection's packets never overtake each other. Everything written in one
 * turn of the event loop forms a batch sent in one writev; a batch whose changes are durable already
 * (and with none before it waiting) goes out at once.
 */
export class DurableOutbox {
  private batch: Buffer[] = [];
  private sealing = false;
  private ending = false;
  private held = 0;
  /** The last batch still waiting, if any: the next one goes out after it. */
  private tail: Promise<void> | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly gate: OutputGate,
  ) {}

  /** Bytes written here and not yet handed to the socket. */
  get heldBytes(): number {
    return this.held;
  }

  write(bytes: Buffer): void {
    if (this.ending) return;
    this.batch.push(bytes);
    this.held += bytes.length;
    this.sealSoon();
  }

  /** Ends the socket once everything written before is sent. */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.sealSoon();
  }

  private sealSoon(): void {
    if (this.sealing) return;
    this.sealing = true;
    // After this turn's microtasks too: an API write journals its record after awaiting its handler.
    setImmediate(() => this.seal());
  }

  /** Closes the batch of this turn: it waits for everything journaled up to now. */
  private seal(): void {
    this.sealing = false;
    const chunks = this.batch;
    const end = this.ending;
    this.batch = [];
    const durable = this.gate.whenDurable(this.gate.mark());
    if (!durable && !this.tail) return this.send(chunks, end);
    const sent = (this.tail ?? Promise.resolve())
      .then(() => durable)
      .then(
        () => this.send(chunks, end),
        // Not durable: nothing more may be acknowledged on this connection.
        () => void this.socket.destroy(),
      );
    this.tail = sent;
    void sent.then(() => {
      if (this.tail === sent) this.tail = undefined;
    });
  }

  private send(chunks: Buffer[], end: boolean): void {
    const socket = this.socket;
    for (const c of chunks) this.held -= c.length;
    if (socket.destroyed) return;
    if (chunks.length > 1) socket.cork();
    for (const c of chunks) socket.write(c);
    if (chunks.length > 1) socket.uncork();
    if (end) socket.end();
  }
}
