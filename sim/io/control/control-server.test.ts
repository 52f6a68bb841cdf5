import { afterEach, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';

let running: RunningCluster | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('control interface on the served listeners', () => {
  it('answers /_sim/ before the API when --control is on', async () => {
    running = await startClusterServer({ seed: 1, nodes: 1, port: 0, workload: 'none', control: true });
    const clock = (await (await fetch(`${running.baseUrl}/_sim/clock`)).json()) as any;
    expect(clock).toMatchObject({ code: 0, data: { now_ms: expect.any(Number) } });
    const adv = await fetch(`${running.baseUrl}/_sim/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 3_600_000 }),
    });
    const body = (await adv.json()) as any;
    expect(body.data.now_ms).toBeGreaterThanOrEqual(clock.data.now_ms + 3_600_000);
    // Virtual time now runs ahead of wall time: the next API call does not move it back.
    expect(running.cluster.now()).toBeGreaterThanOrEqual(clock.data.now_ms + 3_600_000);
    const bad = await fetch(`${running.baseUrl}/_sim/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ms":"soon"}',
    });
    expect(bad.status).toBe(400);
  });

  it('is off by default: /_sim/ is not served', async () => {
    running = await startClusterServer({ seed: 1, nodes: 1, port: 0, workload: 'none' });
    const res = await fetch(`${running.baseUrl}/_sim/clock`);
    expect(res.status).not.toBe(200);
  });
});
