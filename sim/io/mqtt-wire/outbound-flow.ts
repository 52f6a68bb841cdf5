import type { OutgoingMessage, PendingMessage } from '../../model/mqtt/delivery.ts';

/**
 * The broker-to-client half of the QoS protocol for one connection (MQTT 3.1.1 §4.3, MQTT 5 §4.3,
 * §4.9): packet ids, the in-flight window (the client's Receive Maximum), the messages waiting for
 * room in it, and the acknowledgements that free it. Pure state, no socket: it says what to send.
 *
 * QoS 0 messages take no window slot but keep their place in the order: while messages wait for
 * room, a QoS 0 message waits behind them, so a client sees messages in the order they were routed.
 */

/** Something to put on the wire. */
export type Send = { kind: 'publish'; message: OutgoingMessage; packetId?: number; dup: boolean } | { kind: 'pubrel'; packetId: number };

interface InFlight {
  message: OutgoingMessage;
  /** `publish`: waiting for PUBACK (QoS 1) or PUBREC (QoS 2); `pubrel`: waiting for PUBCOMP. */
  phase: 'publish' | 'pubrel';
}

export type AckKind = 'puback' | 'pubrec' | 'pubcomp';

export type AckOutcome = { ok: true; sends: Send[] } | { ok: false; reason: string };

export class OutboundFlow {
  private readonly inFlight = new Map<number, InFlight>();
  /** Messages waiting for room, from `head` on (a shift per release would be quadratic on a long queue). */
  private waiting: (OutgoingMessage | PendingMessage)[] = [];
  private head = 0;
  private nextId = 1;
  /** Messages dropped because the waiting queue was full. */
  dropped = 0;

  /**
   * @param window  the client's Receive Maximum: QoS 1/2 messages in flight at once (1-65535)
   * @param maxWaiting  messages kept waiting for room before new ones are dropped
   */
  constructor(
    private readonly window: number,
    private readonly maxWaiting = 10_000,
  ) {}

  /** QoS 1/2 messages sent and not yet completely acknowledged. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get waitingCount(): number {
    return this.waiting.length - this.head;
  }

  /** A message for the client: what to send now (nothing while it waits for room). */
  offer(message: OutgoingMessage | PendingMessage): Send[] {
    if (this.waitingCount > 0 || (message.qos > 0 && this.inFlight.size >= this.window)) {
      if (this.waitingCount >= this.maxWaiting) {
        this.dropped++;
        return [];
      }
      this.waiting.push(message);
      return [];
    }
    return [this.start(message)];
  }

  /** The client acknowledged packet `id`; what to send next (a PUBREL after PUBREC, then waiting messages). */
  ack(kind: AckKind, id: number): AckOutcome {
    const entry = this.inFlight.get(id);
    const expected = kind === 'pubcomp' ? 'pubrel' : 'publish';
    if (!entry || entry.phase !== expected || (kind === 'puback') !== (entry.message.qos === 1)) {
      return { ok: false, reason: `${kind.toUpperCase()} for packet id ${id}, which is not awaiting one` };
    }
    if (kind === 'pubrec') {
      entry.phase = 'pubrel';
      return { ok: true, sends: [{ kind: 'pubrel', packetId: id }] };
    }
    this.inFlight.delete(id);
    return { ok: true, sends: this.release() };
  }

  /**
   * Everything not completely delivered, for the session to keep when the connection ends: in-flight
   * messages with their packet ids and phase (oldest id first), then the waiting ones that are QoS 1/2.
   */
  unfinished(queuedAt: number): PendingMessage[] {
    const out: PendingMessage[] = [];
    for (const [packetId, f] of this.inFlight) out.push({ ...stripPending(f.message), packetId, phase: f.phase, queuedAt });
    for (const m of this.waiting.slice(this.head))
      if (m.qos > 0)
        out.push({
          ...stripPending(m),
          ...('packetId' in m && m.packetId !== undefined ? { packetId: m.packetId, phase: m.phase ?? 'publish' } : {}),
          queuedAt: 'queuedAt' in m ? m.queuedAt : queuedAt,
        });
    return out;
  }

  private start(message: OutgoingMessage | PendingMessage): Send {
    if (message.qos === 0) return { kind: 'publish', message, dup: false };
    const pending = message as PendingMessage;
    // A resent message keeps its packet id when it is free (MQTT: resend "using their original Packet Identifiers").
    const id = pending.packetId !== undefined && !this.inFlight.has(pending.packetId) ? pending.packetId : this.allocateId();
    const phase = pending.phase ?? 'publish';
    this.inFlight.set(id, { message: stripPending(message), phase });
    if (phase === 'pubrel') return { kind: 'pubrel', packetId: id };
    return { kind: 'publish', message, packetId: id, dup: pending.packetId !== undefined };
  }

  private release(): Send[] {
    const sends: Send[] = [];
    while (this.waitingCount > 0) {
      const next = this.waiting[this.head];
      if (next.qos > 0 && this.inFlight.size >= this.window) break;
      this.head++;
      sends.push(this.start(next));
    }
    if (this.head === this.waiting.length || (this.head > 1024 && this.head * 2 > this.waiting.length)) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return sends;
  }

  private allocateId(): number {
    for (let tries = 0; tries < 65_535; tries++) {
      const id = this.nextId;
      this.nextId = (this.nextId % 65_535) + 1;
      if (!this.inFlight.has(id)) return id;
    }
    throw new Error('no free packet id (65,535 messages in flight)');
  }
}

/** The message without the session bookkeeping of a pending one. */
function stripPending(m: OutgoingMessage | PendingMessage): OutgoingMessage {
  const { topic, payload, extras, qos, retain, subscriptionIdentifier, expiresAt } = m;
  return { topic, payload, ...(extras ? { extras } : {}), qos, retain, subscriptionIdentifier, expiresAt };
}
