import { failed } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import { MailboxMessages, PRIORITIES, type Mq9Message, type Mq9Priority } from './mailbox-messages.ts';
import type { Mailbox } from './mailbox.ts';

/** Where a FETCH starts when the group has no committed position, or is forced back (protocol.md `deliver`). */
export type DeliverPolicy = 'earliest' | 'latest' | 'from_time' | 'from_id';
export const DELIVER_POLICIES: readonly DeliverPolicy[] = ['earliest', 'latest', 'from_time', 'from_id'];

/** FETCH's `config.num_msgs` default, QUERY's default and cap (the real fetch.rs and query.rs). */
const FETCH_DEFAULT_MESSAGES = 100;
const QUERY_MAX_MESSAGES = 100;

export interface SendInput {
  tenant?: string;
  mailAddress: string;
  payload: string;
  /** `mq9-priority`: normal, urgent or critical; anything else reads as normal. */
  priority?: string;
  /** `mq9-key`: the message replaces the older ones of its key. */
  key?: string;
  /** `mq9-tags`. */
  tags?: readonly string[];
  /** `mq9-ttl`, seconds: the message ends that long after it is stored. */
  ttlSec?: number;
  /** `mq9-delay`, seconds: the message is stored (and gets its id) that much later. */
  delaySec?: number;
  /** The NATS header block it came with, as bytes. */
  header?: readonly number[];
}

export interface FetchInput {
  tenant?: string;
  mailAddress: string;
  /** Stateful when given (the group's committed position is used and kept); stateless without. */
  group?: string;
  deliver?: DeliverPolicy;
  /** Unix seconds, for `from_time`. */
  fromTime?: number;
  fromId?: number;
  /** With a group that has a position: move it to where `deliver` says, and keep it there. */
  force?: boolean;
  max?: number;
}

export interface QueryInput {
  tenant?: string;
  mailAddress: string;
  key?: string;
  tags?: readonly string[];
  /** Unix seconds. */
  since?: number;
  limit?: number;
}

/** An unknown text is normal priority, as the real header parser reads it. */
function priorityOf(text: string | undefined): Mq9Priority {
  const p = text?.trim();
  return (PRIORITIES as readonly string[]).includes(p ?? '') ? (p as Mq9Priority) : 'normal';
}

const TENANT = 'default';

/**
 * mq9 messaging (robustmq/mq9 protocol.md; the real nats-broker `mq9/send.rs`, `fetch.rs`, `query.rs`,
 * `delete.rs`): messages sent to a mailbox, pulled by FETCH with a consumer group's committed position
 * (moved only by ACK or a forced reset) or statelessly, peeked by QUERY, deleted one by one. Times come
 * from the virtual clock; every change is recorded in the trace, reads record nothing.
 */
export class Mq9Messaging {
  private readonly logs = new Map<string, { box: Mailbox; messages: MailboxMessages }>();

  constructor(
    private readonly engine: Pick<SimEngine, 'now' | 'record' | 'after'>,
    private readonly mailbox: (tenant: string, address: string) => Mailbox | undefined,
    private readonly requireRunning: () => void,
  ) {}

  /** The mailbox's messages; a mailbox that expired and was created again starts empty. */
  private messagesOf(tenant: string, address: string, missing: string): MailboxMessages {
    this.requireRunning();
    const box = this.mailbox(tenant, address);
    if (!box) throw failed(missing);
    const key = `${tenant}\u0000${address}`;
    let entry = this.logs.get(key);
    if (!entry || entry.box !== box) this.logs.set(key, (entry = { box, messages: new MailboxMessages() }));
    return entry.messages;
  }

  /** A mailbox went (it expired): its messages go with it. */
  forget(tenant: string, address: string): void {
    this.logs.delete(`${tenant}\u0000${address}`);
  }

  /** MSG.SEND: the message's id, or -1 for a delayed message (it gets its id when it is stored). */
  send(input: SendInput): number {
    const tenant = input.tenant ?? TENANT;
    const address = input.mailAddress;
    const messages = this.messagesOf(tenant, address, `mailbox ${address} does not exist`);
    const priority = priorityOf(input.priority);
    const store = (): Mq9Message => {
      const now = this.engine.now();
      const { message, replaced } = messages.append({
        payload: input.payload,
        priority,
        key: input.key ?? null,
        tags: input.tags ?? [],
        createdAt: now,
        expiresAt: input.ttlSec === undefined ? null : now + input.ttlSec * 1000,
        header: input.header ?? null,
      });
      this.engine.record('mq9.msg.send', {
        tenant,
        address,
        msgId: message.msgId,
        priority,
        ...(replaced.length ? { replaced } : {}),
      });
      return message;
    };
    if (input.delaySec === undefined || input.delaySec <= 0) return store().msgId;
    const box = this.mailbox(tenant, address);
    this.engine.record('mq9.msg.delay', { tenant, address, delaySec: input.delaySec });
    this.engine.after(input.delaySec * 1000, 'mq9.msg.deliver', () => {
      // Stored only if the very mailbox is still there.
      if (this.mailbox(tenant, address) === box && box) store();
    });
    return -1;
  }

  /** MSG.FETCH: up to `max` messages from the start position, critical first, FIFO within a priority. */
  fetch(input: FetchInput): Mq9Message[] {
    const tenant = input.tenant ?? TENANT;
    const messages = this.messagesOf(tenant, input.mailAddress, `mailbox ${input.mailAddress} does not exist`);
    const now = this.engine.now();
    const committed = input.group === undefined ? undefined : messages.position(input.group);
    let from: number;
    if (input.group !== undefined && committed !== undefined && input.force) {
      from = this.startFor(messages, input, now);
      messages.commit(input.group, from);
      this.engine.record('mq9.msg.reset', { tenant, address: input.mailAddress, group: input.group, position: from });
    } else {
      from = committed ?? this.startFor(messages, input, now);
    }
    const rank = (p: Mq9Priority) => PRIORITIES.indexOf(p);
    return messages
      .live(now)
      .filter((m) => m.msgId >= from)
      .sort((a, b) => rank(a.priority) - rank(b.priority) || a.msgId - b.msgId)
      .slice(0, input.max ?? FETCH_DEFAULT_MESSAGES);
  }

  /**
   * Where `deliver` starts. `from_time` takes the first message stored at or after it and, when there
   * is none, falls back to the earliest (the storage's timestamp lookup with its Earliest strategy).
   */
  private startFor(messages: MailboxMessages, input: FetchInput, now: number): number {
    const start = messages.startOffset;
    const end = messages.endOffset;
    switch (input.deliver ?? 'latest') {
      case 'earliest':
        return start;
      case 'latest':
        return end;
      case 'from_time': {
        const at = (input.fromTime ?? 0) * 1000;
        return messages.live(now).find((m) => m.createdAt >= at)?.msgId ?? start;
      }
      case 'from_id':
        return Math.min(Math.max(input.fromId ?? 0, start), end);
    }
  }

  /** MSG.ACK: the group's next FETCH starts after `msgId`. */
  ack(input: { tenant?: string; mailAddress: string; group: string; msgId: number }): void {
    const tenant = input.tenant ?? TENANT;
    const messages = this.messagesOf(tenant, input.mailAddress, `mailbox not found: ${input.mailAddress}`);
    messages.commit(input.group, input.msgId + 1);
    this.engine.record('mq9.msg.ack', { tenant, address: input.mailAddress, group: input.group, msgId: input.msgId });
  }

  /**
   * MSG.QUERY, without moving any position: by key (its newest message), else by tags (the messages of
   * each tag, up to the limit per tag), else since a time (from the first message at or after it), else
   * from the start; `limit` defaults to and is capped at 100.
   */
  query(input: QueryInput): Mq9Message[] {
    const tenant = input.tenant ?? TENANT;
    const messages = this.messagesOf(tenant, input.mailAddress, `mailbox ${input.mailAddress} does not exist`);
    const limit = Math.min(input.limit ?? QUERY_MAX_MESSAGES, QUERY_MAX_MESSAGES);
    const live = messages.live(this.engine.now());
    if (input.key !== undefined)
      return live
        .filter((m) => m.key === input.key)
        .slice(-1)
        .slice(0, limit);
    if (input.tags !== undefined && input.tags.length > 0) {
      const out: Mq9Message[] = [];
      for (const tag of input.tags)
        for (const m of live.filter((x) => x.tags.includes(tag)).slice(0, limit)) if (!out.includes(m)) out.push(m);
      return out;
    }
    const since = (input.since ?? 0) * 1000;
    const first = live.find((m) => m.createdAt >= since)?.msgId ?? messages.startOffset;
    return live.filter((m) => m.msgId >= first).slice(0, limit);
  }

  /** MSG.DELETE. */
  delete(input: { tenant?: string; mailAddress: string; msgId: number }): void {
    const tenant = input.tenant ?? TENANT;
    const messages = this.messagesOf(tenant, input.mailAddress, `mailbox ${input.mailAddress} does not exist`);
    if (!messages.delete(input.msgId)) throw failed('message not found');
    this.engine.record('mq9.msg.delete', { tenant, address: input.mailAddress, msgId: input.msgId });
  }

  /** How many messages a mailbox holds now (for views and tests). */
  count(tenant: string, address: string): number {
    return this.logs.get(`${tenant}\u0000${address}`)?.messages.live(this.engine.now()).length ?? 0;
  }
}
