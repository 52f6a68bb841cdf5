import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import type { DeliverySink, OutgoingMessage } from '../mqtt/delivery.ts';
import { applyWireOp, decodeWireOp, dropNetworkConnections, encodeWireOp, wireAnswerText, type WireOp } from './wire-ops.ts';

const base = { tenant: 'default' };
const connect = (clientId: string, extra: Partial<Extract<WireOp, { op: 'connect' }>> = {}): WireOp => ({
  op: 'connect',
  node: 2,
  ...base,
  clientId,
  username: '',
  ip: '127.0.0.1',
  port: 40_000,
  protocol: 5,
  cleanStart: false,
  sessionExpiry: 600,
  keepAlive: 30,
  lastWill: null,
  ...extra,
});

/** A script of ops with the virtual ms each runs at, as a live listener would journal them. */
const SCRIPT: [number, WireOp][] = [
  [100, connect('sub')],
  [
    150,
    {
      op: 'subscribe',
      ...base,
      clientId: 'sub',
      connectionId: 1,
      subscriptions: [{ path: 'w/#', qos: 2, noLocal: false, retainAsPublished: true, retainHandling: 0 }],
      subscriptionIdentifier: 9,
      userProperties: [{ key: 'k', value: 'v' }],
    },
  ],
  [200, connect('pub', { protocol: 4, lastWill: { topic: 'w/will', message: 'bye', qos: 1, retain: true, properties: null } })],
  [
    250,
    {
      op: 'publish',
      ...base,
      clientId: 'pub',
      connectionId: 2,
      topic: 'w/bin',
      payload: '\ufffd',
      qos: 1,
      retain: true,
      extras: { bytes: Buffer.from([0xff, 0x01]), properties: { correlationData: Buffer.from('c'), userProperties: { a: ['1', '2'] } } },
    },
  ],
  [300, { op: 'publish', ...base, clientId: 'pub', connectionId: 99, topic: 'w/stale', payload: 'x', qos: 0, retain: false }],
  [
    400,
    {
      op: 'disconnect',
      ...base,
      clientId: 'sub',
      connectionId: 1,
      clean: false,
      keep: [
        { topic: 'w/bin', payload: 'p', qos: 1, retain: false, subscriptionIdentifier: 9, expiresAt: null, packetId: 5, queuedAt: 400 },
      ],
      why: 'connection lost',
    },
  ],
  [450, { op: 'unsubscribe', ...base, clientId: 'pub', connectionId: 2, paths: ['none'] }],
  [500, { op: 'requeue', ...base, clientId: 'sub', messages: [] }],
];

function run(withSinks: boolean, ops: [number, WireOp][]): { answers: string[]; hash: string; delivered: OutgoingMessage[] } {
  const cluster = new Cluster({ seed: 3, workload: 'none' }).start();
  const delivered: OutgoingMessage[] = [];
  const sink: DeliverySink = { deliver: (m) => delivered.push(m), closed: () => {} };
  const answers = ops.map(([at, op]) => {
    cluster.engine.runUntil(cluster.options.epochMs + at);
    return wireAnswerText(applyWireOp(cluster, op, withSinks && op.op === 'connect' ? sink : undefined));
  });
  cluster.engine.runUntil(cluster.options.epochMs + 60_000);
  return { answers, hash: cluster.engine.trace.hash, delivered };
}

describe('MQTT listener ops', () => {
  it('round-trip through the journal text, byte arrays included', () => {
    for (const [, op] of SCRIPT) expect(decodeWireOp(encodeWireOp(op))).toEqual(op);
    expect(encodeWireOp(SCRIPT[3][1])).toContain('{"$bytes":"/wE="}');
    expect(() => decodeWireOp('{"op":"format-disk"}')).toThrow(/not an MQTT listener operation/);
  });

  it('replay from the journal without sockets gives the same answers and the same trace as the live run', () => {
    const live = run(true, SCRIPT);
    const replayed = run(
      false,
      SCRIPT.map(([at, op]) => [at, decodeWireOp(encodeWireOp(op))]),
    );
    expect(replayed.answers).toEqual(live.answers);
    expect(replayed.hash).toBe(live.hash);
    expect(live.delivered.map((m) => [m.topic, m.qos, m.retain, m.subscriptionIdentifier])).toEqual([['w/bin', 1, true, 9]]);
    expect(JSON.parse(live.answers[4])).toMatchObject({ ok: false, refusal: 'not-connected' });
    expect(JSON.parse(live.answers[5])).toEqual({ ok: true });
  });

  it('drops the network connections a restart left without sockets: as lost, so wills go out', () => {
    const cluster = new Cluster({ seed: 3, workload: 'none' }).start();
    applyWireOp(
      cluster,
      connect('gone', { lastWill: { topic: 'w/gone', message: 'lost at restart', qos: 0, retain: true, properties: null } }),
    );
    cluster.mqtt.connect({ tenant: 'default', clientId: 'simulated' });
    const dropped = dropNetworkConnections(cluster);
    expect(dropped.map((d) => [d.op.clientId, d.op.clean, d.answer.ok])).toEqual([['gone', false, true]]);
    expect(cluster.mqtt.isConnected('default', 'simulated')).toBe(true);
    expect(cluster.topics.get('default', 'w/gone')?.retained?.payload).toBe('lost at restart');
  });
});
