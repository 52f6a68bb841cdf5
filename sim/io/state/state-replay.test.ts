import { describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { AdminApp } from '../../admin-api/admin-app.ts';
import { journaled, type JournaledWrite } from './state-file.ts';
import { replayWrites, type ReplayProgress } from './state-replay.ts';

const OPTIONS = { seed: 5, nodes: 2, workload: 'demo' } as const;

/** A demo run with tenant creates minutes apart, then an hour with no write (about a million engine events). */
async function recordRun(): Promise<{ cluster: Cluster; writes: JournaledWrite[] }> {
  const cluster = new Cluster(OPTIONS).start();
  const writes: JournaledWrite[] = [];
  const app = new AdminApp(cluster, { onModelWrite: (w) => void writes.push(journaled('api', w)) });
  for (let i = 0; i < 4; i++) {
    cluster.engine.advance(150_000);
    const res = await app.handle({
      method: 'POST',
      url: '/api/cluster/tenant/create',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_name: `replay-progress-${i}` }),
      peer: '127.0.0.1',
      nodeId: 1,
    });
    expect(JSON.parse(res.body).code).toBe(0);
  }
  cluster.engine.advance(3_600_000);
  return { cluster, writes };
}

async function replay(writes: JournaledWrite[], until: number, steps: Parameters<typeof replayWrites>[7]): Promise<Cluster> {
  const cluster = new Cluster(OPTIONS).start();
  await replayWrites(cluster, new AdminApp(cluster, { clock: 'manual' }), 'A', writes, until, 'test.state', undefined, steps);
  return cluster;
}

describe('state-file replay progress', () => {
  it('tells how far it is after each write and every 65,536 events of a long stretch, and reaches the recorded state', async () => {
    const { cluster, writes } = await recordRun();
    expect(writes).toHaveLength(4);
    const seen: ReplayProgress[] = [];
    const replayed = await replay(writes, cluster.now(), { onProgress: (p) => seen.push(p) });
    expect(replayed.engine.trace.hash).toBe(cluster.engine.trace.hash);

    expect(seen.at(-1)).toEqual({ applied: 4, total: 4, virtualMs: cluster.now() });
    for (let k = 1; k < seen.length; k++) {
      expect(seen[k].applied).toBeGreaterThanOrEqual(seen[k - 1].applied);
      expect(seen[k].virtualMs).toBeGreaterThanOrEqual(seen[k - 1].virtualMs);
    }
    // The writes themselves, then reports inside the hour after the last one (not only at its end).
    for (let n = 1; n <= 4; n++) expect(seen.some((p) => p.applied === n)).toBe(true);
    const inTheHour = seen.filter((p) => p.applied === 4 && p.virtualMs > writes[3].at && p.virtualMs < cluster.now());
    expect(inTheHour.length).toBeGreaterThanOrEqual(5);
    expect(replayed.engine.onEvent).toBeNull();
  });

  it('runs the same events with the progress hook as without it', async () => {
    const { cluster, writes } = await recordRun();
    const told = await replay(writes, cluster.now(), { onProgress: () => {} });
    const silent = await replay(writes, cluster.now(), {});
    expect(told.engine.trace.hash).toBe(silent.engine.trace.hash);
    expect(told.engine.trace.length).toBe(silent.engine.trace.length);
    expect(told.engine.eventsProcessed).toBe(silent.engine.eventsProcessed);
  });
});
