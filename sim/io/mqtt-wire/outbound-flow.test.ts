import { describe, expect, it } from 'vitest';
import type { OutgoingMessage, PendingMessage } from '../../model/mqtt/delivery.ts';
import { OutboundFlow, type Send } from './outbound-flow.ts';

const msg = (payload: string, qos: 0 | 1 | 2): OutgoingMessage => ({
  topic: 't',
  payload,
  qos,
  retain: false,
  subscriptionIdentifier: null,
  expiresAt: null,
});
const described = (sends: Send[]): string[] =>
  sends.map((s) => (s.kind === 'pubrel' ? `pubrel#${s.packetId}` : `${s.message.payload}#${s.packetId ?? '-'}${s.dup ? 'd' : ''}`));

describe('OutboundFlow', () => {
  it('numbers QoS 1/2 messages, keeps at most the window in flight, and releases waiting ones in order as acks come', () => {
    const flow = new OutboundFlow(2);
    expect(described(flow.offer(msg('a', 1)))).toEqual(['a#1']);
    expect(described(flow.offer(msg('b', 2)))).toEqual(['b#2']);
    expect(described(flow.offer(msg('c', 1)))).toEqual([]);
    expect(described(flow.offer(msg('z', 0)))).toEqual([]); // QoS 0 keeps its place behind c
    expect(flow.waitingCount).toBe(2);
    const acked = flow.ack('puback', 1);
    expect(acked.ok && described(acked.sends)).toEqual(['c#3', 'z#-']);
    expect(flow.ack('pubrec', 2)).toEqual({ ok: true, sends: [{ kind: 'pubrel', packetId: 2 }] });
    expect(flow.inFlightCount).toBe(2);
    expect(flow.ack('pubcomp', 2)).toEqual({ ok: true, sends: [] });
    expect(flow.inFlightCount).toBe(1);
  });

  it('refuses acknowledgements that do not fit: unknown id, PUBACK for QoS 2, PUBCOMP before PUBREC', () => {
    const flow = new OutboundFlow(10);
    flow.offer(msg('q2', 2));
    expect(flow.ack('puback', 1).ok).toBe(false);
    expect(flow.ack('pubcomp', 1).ok).toBe(false);
    expect(flow.ack('puback', 99).ok).toBe(false);
    expect(flow.ack('pubrec', 1).ok).toBe(true);
    expect(flow.ack('pubrec', 1).ok).toBe(false);
  });

  it('gives back what is unfinished with packet ids and phase, and resends it with DUP and the same ids', () => {
    const flow = new OutboundFlow(2);
    flow.offer(msg('a', 1));
    flow.offer(msg('b', 2));
    flow.offer(msg('c', 1));
    flow.offer(msg('zero', 0));
    flow.ack('pubrec', 2);
    const kept = flow.unfinished(500);
    expect(kept.map((m) => [m.payload, m.packetId, m.phase])).toEqual([
      ['a', 1, 'publish'],
      ['b', 2, 'pubrel'],
      ['c', undefined, undefined],
    ]);
    const next = new OutboundFlow(5);
    // c was never sent: it gets the next free id (1 and 2 are taken by the resent ones), without DUP.
    expect(described(kept.flatMap((m: PendingMessage) => next.offer(m)))).toEqual(['a#1d', 'pubrel#2', 'c#3']);
  });

  it('drops new messages once the waiting queue is full, and wraps packet ids around 65535 skipping ids in use', () => {
    const full = new OutboundFlow(1, 2);
    full.offer(msg('a', 1));
    full.offer(msg('b', 1));
    full.offer(msg('c', 1));
    full.offer(msg('d', 1));
    expect(full.waitingCount).toBe(2);
    expect(full.dropped).toBe(1);

    const flow = new OutboundFlow(65_535);
    for (let i = 0; i < 65_534; i++) flow.offer(msg(`m${i}`, 1));
    flow.ack('puback', 2);
    expect(described(flow.offer(msg('last', 1)))).toEqual(['last#65535']);
    expect(described(flow.offer(msg('wrap', 1)))).toEqual(['wrap#2']);
  });
});
