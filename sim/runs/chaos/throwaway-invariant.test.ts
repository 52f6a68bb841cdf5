import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { generatePlan, type ChaosOptions } from './chaos-plan.ts';
import { runPlan } from './chaos-runner.ts';
import { replayFileOf } from './chaos.ts';
import { parseReplayFile } from './replay-file.ts';
import { shrinkPlan } from './shrink.ts';

/**
 * CONTRIBUTING.md's "Adding a chaos invariant", proven: an invariant defined only in this file is
 * registered on the cluster a chaos run builds (as a model part registers its own in its
 * constructor), checked after every event, reported by name when a run breaks it, shrunk to the
 * steps that break it, and written as a replay file that reproduces it: same violation, same trace
 * hash. A run that cannot break it reports nothing.
 */

const NAME = 'walkthrough.every-node-online';

/** Holds while every node's process runs: broken by construction by the first crash. */
function registerEveryNodeOnline(cluster: Cluster): void {
  cluster.invariants.register(NAME, () => {
    const down = cluster.nodes.all().filter((n) => !n.online);
    return down.length > 0 ? `node ${down.map((n) => n.id).join(', ')} not online` : undefined;
  });
}

const withCrashes: ChaosOptions = { seed: '11', steps: 40, nodes: 3, faults: ['crash'], bug: null };

describe('a throwaway chaos invariant registered by a test', () => {
  it('is checked after every event, and a run that crashes a node reports it by name', async () => {
    const { result, failingStep } = await runPlan(withCrashes, generatePlan(withCrashes), { prepare: registerEveryNodeOnline });
    expect(result.violations.map((v) => v.name)).toEqual([NAME]);
    expect(result.violations[0].message).toMatch(/^node \d not online$/);
    expect(failingStep).not.toBeNull();
    expect(result.invariants[NAME]).toBeGreaterThan(result.events - 1);
  });

  it('is shrunk to the steps that break it, and the replay file reproduces the violation and the trace', async () => {
    const plan = generatePlan(withCrashes);
    const shrunk = await shrinkPlan(withCrashes, plan, 100, registerEveryNodeOnline);
    expect(shrunk.violation).toBe(NAME);
    expect(shrunk.plan.length).toBeLessThan(plan.length);
    expect(shrunk.plan.some((s) => 'fault' in s && s.fault.kind.startsWith('crash'))).toBe(true);

    const { result } = await runPlan(withCrashes, shrunk.plan, { prepare: registerEveryNodeOnline });
    const saved = parseReplayFile(JSON.stringify(replayFileOf(withCrashes, shrunk.plan, result, plan.length)), 'walkthrough.json');
    expect(saved.expect.violations).toEqual([NAME]);
    const replayed = (await runPlan(saved.options, saved.plan, { prepare: registerEveryNodeOnline })).result;
    expect(replayed.violations.map((v) => v.name)).toEqual(saved.expect.violations);
    expect(replayed.trace_hash).toBe(saved.expect.trace_hash);
    // Registering the invariant changes nothing in the model: without it the same plan runs the same trace, clean.
    const unwatched = (await runPlan(saved.options, saved.plan)).result;
    expect(unwatched.trace_hash).toBe(saved.expect.trace_hash);
    expect(unwatched.violations).toEqual([]);
  });

  it('reports nothing in a run where it holds (no crash among the faults)', async () => {
    const calm: ChaosOptions = { ...withCrashes, faults: ['partition'] };
    const { result } = await runPlan(calm, generatePlan(calm), { prepare: registerEveryNodeOnline });
    expect(result.violations).toEqual([]);
    expect(result.coverage.partitions).toBeGreaterThan(0);
    expect(result.invariants[NAME]).toBeGreaterThan(0);
  });
});
