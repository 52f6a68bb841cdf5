import { describe, expect, it } from 'vitest';
import { Cluster, type WarmUpProgress } from './cluster.ts';

describe('warm-up progress', () => {
  it('calls back after every virtual minute and runs the same warm-up (same trace hash) as one step', () => {
    const options = { seed: 'w', workload: 'demo' as const, nodes: 3, warmUpMs: 300_000 };
    const plain = new Cluster(options).start();
    const seen: WarmUpProgress[] = [];
    const stepped = new Cluster(options).start((p) => seen.push(p));
    expect(seen.map((p) => p.doneMs)).toEqual([60_000, 120_000, 180_000, 240_000, 300_000]);
    expect(seen.every((p) => p.totalMs === 300_000 && p.clients > 0 && p.connections > 0)).toBe(true);
    expect(stepped.now()).toBe(plain.now());
    expect(stepped.engine.trace.length).toBe(plain.engine.trace.length);
    expect(stepped.engine.trace.hash).toBe(plain.engine.trace.hash);
  });
});
