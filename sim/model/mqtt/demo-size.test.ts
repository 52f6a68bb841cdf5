import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';

function demo(clients?: number): Cluster {
  const c = new Cluster({ seed: 4, workload: 'demo', nodes: 3 });
  if (clients !== undefined) c.mqtt.demo.setTargetSize(clients);
  return c.start();
}

describe('demo population size (--clients)', () => {
  it('scales the population over the tenants with ~70% connected and ~1.5 subscriptions per fleet client', () => {
    const c = demo(2_200);
    const specs = c.mqtt.demo.clients();
    expect(specs).toHaveLength(2_200);
    const tenants = new Set(specs.map((s) => s.tenant));
    expect([...tenants].sort()).toEqual(['acme', 'default', 'globex', 'initech']);
    const fleet = specs.filter((s) => s.clientId.includes('-fleet-'));
    const subsPerClient = fleet.reduce((n, s) => n + s.subscriptions.length, 0) / fleet.length;
    expect(subsPerClient).toBeGreaterThan(1.3);
    expect(subsPerClient).toBeLessThan(1.7);
    c.engine.advance(10 * 60_000);
    const connected = c.mqtt.connectionCount / specs.length;
    expect(connected).toBeGreaterThan(0.6);
    expect(connected).toBeLessThan(0.85);
  });

  it('keeps the first N hand-made clients when N is smaller, and is deterministic per seed', () => {
    expect(
      demo(10)
        .mqtt.demo.clients()
        .map((s) => s.clientId),
    ).toEqual(
      demo()
        .mqtt.demo.clients()
        .slice(0, 10)
        .map((s) => s.clientId),
    );
    const a = demo(2_100);
    const b = demo(2_100);
    a.engine.advance(2 * 60_000);
    b.engine.advance(2 * 60_000);
    expect(a.engine.trace.hash).toBe(b.engine.trace.hash);
  });

  it('leaves the default demo unchanged when no size is given', () => {
    const a = demo();
    const b = demo();
    expect(a.mqtt.demo.clients().length).toBeGreaterThan(50);
    expect(a.mqtt.demo.clients().length).toBeLessThan(70);
    expect(a.mqtt.demo.clients().some((s) => s.clientId.includes('-fleet-'))).toBe(false);
    expect(a.engine.trace.hash).toBe(b.engine.trace.hash);
  });
});
