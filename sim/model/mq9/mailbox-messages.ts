/**
 * The messages of one mq9 mailbox and the read positions of its consumer groups (the real server keeps
 * them in a storage topic per mailbox, reference notes §9; robustmq/mq9 protocol.md). A message's id
 * is its offset in the mailbox: 0, 1, 2… in send order, never reused. Pure data: the clock, the trace
 * and the error texts belong to `Mq9`.
 */

/** Priorities in the order FETCH serves them: critical first, FIFO within one. */
export const PRIORITIES = ['critical', 'urgent', 'normal'] as const;
export type Mq9Priority = (typeof PRIORITIES)[number];

export interface Mq9Message {
  readonly msgId: number;
  readonly payload: string;
  readonly priority: Mq9Priority;
  /** `mq9-key`: only the newest message of a key is kept. */
  readonly key: string | null;
  /** `mq9-tags`. */
  readonly tags: readonly string[];
  /** Virtual Unix ms when it was stored. */
  readonly createdAt: number;
  /** Virtual Unix ms when its `mq9-ttl` ends it; null without one. */
  readonly expiresAt: number | null;
  /** The NATS header block it was sent with, as bytes (the real broker keeps and returns it); null without. */
  readonly header: readonly number[] | null;
}

/** At most this many messages are held per mailbox; the oldest go first (as the storage bound does). */
const MAX_MESSAGES_PER_MAILBOX = 5_000;

export class MailboxMessages {
  /** Held messages by id, in id order (ids only grow, so insertion order is id order). */
  private readonly byId = new Map<number, Mq9Message>();
  private next = 0;
  /** Committed position (the next id to read) of each consumer group. */
  private readonly positions = new Map<string, number>();

  /** The id the next message gets (the mailbox's end offset). */
  get endOffset(): number {
    return this.next;
  }

  /** The first id still held, or the end offset when none is. */
  get startOffset(): number {
    for (const id of this.byId.keys()) return id;
    return this.next;
  }

  append(m: Omit<Mq9Message, 'msgId'>): { message: Mq9Message; replaced: number[] } {
    const message: Mq9Message = { ...m, msgId: this.next++ };
    // Key compaction: a keyed message replaces the older ones of its key.
    const replaced = m.key === null ? [] : [...this.byId.values()].filter((x) => x.key === m.key).map((x) => x.msgId);
    for (const id of replaced) this.byId.delete(id);
    this.byId.set(message.msgId, message);
    if (this.byId.size > MAX_MESSAGES_PER_MAILBOX) this.byId.delete(this.startOffset);
    return { message, replaced };
  }

  delete(msgId: number): boolean {
    return this.byId.delete(msgId);
  }

  get(msgId: number): Mq9Message | undefined {
    return this.byId.get(msgId);
  }

  /** Messages not expired at `now`, in id order. */
  live(now: number): Mq9Message[] {
    return [...this.byId.values()].filter((m) => m.expiresAt === null || m.expiresAt > now);
  }

  position(group: string): number | undefined {
    return this.positions.get(group);
  }

  commit(group: string, position: number): void {
    this.positions.set(group, position);
  }
}
