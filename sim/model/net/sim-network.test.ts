import { describe, expect, it } from 'vitest';
import { SimEngine } from '../engine/sim-engine.ts';
import { SimNetwork } from './sim-network.ts';

function setup(up: Set<number> = new Set([1, 2, 3])) {
  const engine = new SimEngine({ seed: 'net', epochMs: 0 });
  const net = new SimNetwork(engine, engine.random.fork('net'), (n) => up.has(n));
  const got: string[] = [];
  const deliver = (m: string, from: number, to: number) => got.push(`${m}:${from}>${to}@${engine.now()}`);
  return { engine, net, got, deliver, up };
}

describe('simulated network', () => {
  it('delivers after the seeded per-link latency, in order without jitter', () => {
    const { engine, net, got, deliver } = setup();
    const lat = net.link(1, 2).latencyMs;
    expect(lat).toBeGreaterThanOrEqual(1);
    expect(lat).toBeLessThanOrEqual(5);
    net.send(1, 2, 'a', deliver);
    net.send(1, 2, 'b', deliver);
    engine.advance(100);
    expect(got).toEqual([`a:1>2@${lat}`, `b:1>2@${lat}`]);
  });

  it('blocks partitioned links both ways, or one way, until healed', () => {
    const { engine, net, got, deliver } = setup();
    net.partition([1], [2, 3]);
    net.send(1, 2, 'x', deliver);
    net.send(3, 1, 'y', deliver);
    net.send(2, 3, 'z', deliver);
    engine.advance(100);
    expect(got.map((g) => g.split('@')[0])).toEqual(['z:2>3']);
    net.heal();
    net.partition([1], [2], true);
    net.send(1, 2, 'p', deliver);
    net.send(2, 1, 'q', deliver);
    engine.advance(100);
    expect(got.map((g) => g.split('@')[0])).toEqual(['z:2>3', 'q:2>1']);
    expect(net.reachable(1, 2)).toBe(false);
    expect(net.reachable(2, 1)).toBe(true);
  });

  it('loses, duplicates and reorders by the seed, identically on every run', () => {
    const run = () => {
      const { engine, net, got, deliver } = setup();
      net.configureAll({ loss: 0.2, duplicate: 0.2, jitterMs: 20 });
      for (let i = 0; i < 200; i++) net.send(1 + (i % 3), 1 + ((i + 1) % 3), `m${i}`, deliver);
      engine.advance(1000);
      return { got, stats: net.snapshotStats() };
    };
    const a = run();
    const b = run();
    expect(a).toEqual(b);
    expect(a.stats.dropped).toBeGreaterThan(10);
    expect(a.stats.duplicated).toBeGreaterThan(10);
    const order = a.got.map((g) => Number(g.split(':')[0].slice(1)));
    expect(order.some((v, i) => i > 0 && v < order[i - 1])).toBe(true);
  });

  it('drops messages to a node that is down at arrival', () => {
    const { engine, net, got, deliver, up } = setup();
    net.send(1, 2, 'late', deliver);
    up.delete(2);
    engine.advance(100);
    expect(got).toEqual([]);
    expect(net.snapshotStats().dropped).toBe(1);
  });
});
