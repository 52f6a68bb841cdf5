import { describe, expect, it } from 'vitest';
import { generatePlan } from '../runs/chaos/chaos-plan.ts';
import { resolveDeviations } from '../switches/resolve-switches.ts';
import { InProcessSim } from './in-process-client.ts';

/** The API steps of a chaos plan: creates, deletes, duplicates, sends and lists over small name pools. */
function apiSteps(seed: string, steps: number): { at: number; method: string; path: string; body?: Record<string, unknown> }[] {
  const plan = generatePlan({ seed, steps, nodes: 3, faults: [], bug: null });
  return plan.flatMap((s) => ('api' in s ? [{ at: s.at, ...s.api }] : []));
}

describe('in-process calls hand the parsed body along', () => {
  it('answer as the same calls sent as text only, with the same trace', async () => {
    const handed = new InProcessSim({ seed: 'hand-along', nodes: 3, workload: 'none' });
    const parsed = new InProcessSim({ seed: 'hand-along', nodes: 3, workload: 'none' });
    let compared = 0;
    for (const step of apiSteps('11', 2_000)) {
      for (const sim of [handed, parsed]) sim.cluster.engine.runUntil(Math.max(sim.cluster.now(), sim.cluster.options.epochMs + step.at));
      const a = await handed.call(step.method, step.path, step.body);
      // rawBody: the app gets only the text and parses it, the reference path.
      const b = await parsed.call(step.method, step.path, undefined, step.body ? { rawBody: JSON.stringify(step.body) } : {});
      expect({ status: a.status, text: a.text }).toEqual({ status: b.status, text: b.text });
      // The code the app gives (remembered lists from the cache included) is the parsed body's.
      expect(a.code).toBe((JSON.parse(a.text) as { code: number }).code);
      compared++;
    }
    expect(compared).toBeGreaterThan(1_500);
    expect(handed.cluster.engine.trace.hash).toBe(parsed.cluster.engine.trace.hash);
  });

  it('are checked against the parsed text in verification mode', async () => {
    const sim = new InProcessSim({ seed: 'verify', nodes: 3, workload: 'none' }, { verifyWriters: true });
    for (const step of apiSteps('12', 300)) {
      sim.cluster.engine.runUntil(Math.max(sim.cluster.now(), sim.cluster.options.epochMs + step.at));
      const res = await sim.call(step.method, step.path, step.body);
      expect(res.status).not.toBe(500);
    }
    // A handed value that is not what the text parses to is an internal error there.
    const res = await sim.app.handle({
      method: 'POST',
      url: '/api/cluster/tenant/create',
      headers: { 'content-type': 'application/json' },
      body: '{"tenant_name":"a"}',
      bodyValue: { tenant_name: 'b' },
      peer: '127.0.0.1',
      nodeId: 1,
    });
    expect(res.status).toBe(500);
    expect(res.body).toMatch(/not what its text parses to/);
  });

  it('read the code from the parsed body when a switch is on (it may rewrite the body)', async () => {
    const sim = new InProcessSim(
      { seed: 'switched', nodes: 3, workload: 'none' },
      { deviations: resolveDeviations(['tenant-list-total-count-is-page-length']) },
    );
    const res = await sim.call('GET', '/api/cluster/tenant/list');
    expect(res.code).toBe(0);
    expect(res.json.code).toBe(0);
    expect(Object.keys(JSON.parse(JSON.stringify(res)) as object)).toEqual(['status', 'headers', 'text', 'json']);
  });
});
