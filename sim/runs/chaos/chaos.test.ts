import { describe, expect, it } from 'vitest';
import { CHAOS_FAULT_KINDS, generatePlan, type ChaosBug, type ChaosOptions } from './chaos-plan.ts';
import { runPlan } from './chaos-runner.ts';
import { checkDeterminism, replayFileOf, resultLine, runFailed } from './chaos.ts';
import { parseReplayFile } from './replay-file.ts';
import { shrinkPlan } from './shrink.ts';

const ALL = [...CHAOS_FAULT_KINDS];
const opts = (o: Partial<ChaosOptions> = {}): ChaosOptions => ({ seed: '7', steps: 400, nodes: 5, faults: ALL, bug: null, ...o });

describe('chaos runs', () => {
  it('are deterministic: the same seed and options give the same trace hash, another seed another', async () => {
    const d = await checkDeterminism(opts());
    expect(d.same).toBe(true);
    const other = (await runPlan(opts({ seed: '8' }), generatePlan(opts({ seed: '8' })))).result;
    expect(other.trace_hash).not.toBe(d.hashes[0]);
  });

  it('print one JSON line of the documented shape, with checks counted per invariant', async () => {
    const { result } = await runPlan(opts(), generatePlan(opts()), { replay: 'mqsim replay x.json' });
    const line = resultLine(result);
    expect(line).not.toContain('\n');
    const parsed = JSON.parse(line);
    expect(Object.keys(parsed)).toEqual([
      'seed',
      'steps',
      'events',
      'trace_hash',
      'invariants',
      'violations',
      'coverage',
      'unexercised',
      'replay',
    ]);
    expect(parsed.trace_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(parsed.coverage)).toEqual(
      expect.arrayContaining(['leader_changes', 'node_crashes', 'partitions', 'connector_failures', 'bans']),
    );
    // Checked after every event (and after every step): at least once per event.
    expect(parsed.invariants['raft.election-safety']).toBeGreaterThanOrEqual(parsed.events);
    expect(parsed.invariants['storage.leader-in-isr']).toBeGreaterThanOrEqual(parsed.events);
    expect(parsed.replay).toBe('mqsim replay x.json');
  });

  it('report coverage: every requested fault happens in a long enough run, and a too-short run is not a pass', async () => {
    // The problems earlier sweeps found are fixed (fixtures/scenarios/findings/); seed 2 is clean.
    const o = opts({ seed: '2', steps: 1500 });
    const { result } = await runPlan(o, generatePlan(o));
    expect(result.violations).toEqual([]);
    expect(result.unexercised).toEqual([]);
    for (const k of ALL) expect(result.coverage.faults[k], k).toBeGreaterThan(0);
    const c = result.coverage;
    for (const [name, n] of Object.entries({
      leader_changes: c.leader_changes,
      node_crashes: c.node_crashes,
      partitions: c.partitions,
      connector_failures: c.connector_failures,
      bans: c.bans,
      bans_lifted: c.bans_lifted,
    })) {
      expect(n, name).toBeGreaterThan(0);
    }
    expect(runFailed(result)).toBe(false);

    const short = (await runPlan(opts({ steps: 5 }), generatePlan(opts({ steps: 5 })))).result;
    expect(short.violations).toEqual([]);
    expect(short.unexercised.length).toBeGreaterThan(0);
    expect(runFailed(short)).toBe(true);
  });

  it('replay a saved plan exactly, and dump the cluster state at an event', async () => {
    const o = opts({ steps: 300 });
    const plan = generatePlan(o);
    const first = (await runPlan(o, plan, { replay: 'r' })).result;
    const saved = parseReplayFile(JSON.stringify(replayFileOf(o, plan, first)), 'run.json');
    const again = (await runPlan(saved.options, saved.plan, { replay: 'r' })).result;
    expect(resultLine(again)).toBe(resultLine(first));
    const { dump } = await runPlan(saved.options, saved.plan, { untilEvent: 1000 });
    expect(dump!.event).toBe(1000);
    expect(dump!.nodes).toHaveLength(5);
    expect(dump!.groups.map((g) => g.name)).toContain('meta');
    expect(dump!.isr.segments).toBeGreaterThan(0);
  });
});

// commitPreviousTermByCount (Raft's "figure 8": a leader counting replicas of an older term's entry)
// needs a leader to crash with uncommitted entries of its term on a minority, which the plan's
// committed-before-answered API writes almost never leave; 0 of 100 seeds find it, so its proof is
// the sweep of Raft fault schedules with that fault mix in sim/model/raft/raft-bugs.test.ts (within 10 seeds).
describe('the checkers bite: buggy variants are found by a sweep of at most 100 seeds', () => {
  const expected: Record<string, string[]> = {
    grantVoteTwice: ['raft.election-safety', 'raft.log-matching', 'raft.leader-completeness', 'raft.state-machine-safety'],
    skipLogUpToDateCheck: ['raft.leader-completeness', 'raft.state-machine-safety', 'raft.log-matching'],
    skipConsistencyCheck: ['raft.log-matching', 'raft.state-machine-safety', 'raft.leader-completeness'],
    hwPastIsrMember: ['storage.hw-at-most-isr-leo'],
    uncleanElection: ['storage.hw-at-most-isr-leo', 'storage.no-acknowledged-write-lost', 'storage.leader-in-isr'],
  };
  for (const bug of Object.keys(expected) as ChaosBug[]) {
    it(`finds ${bug}, and its replay file reproduces the failure`, async () => {
      let found: { o: ChaosOptions; line: string; name: string } | null = null;
      for (let seed = 1; seed <= 100 && found === null; seed++) {
        // Without node leave, as when these seeds were chosen (leave faults change the plans' timing).
        const o = opts({ seed: String(seed), steps: 1500, bug, faults: ALL.filter((k) => k !== 'leave') });
        const plan = generatePlan(o);
        const { result } = await runPlan(o, plan);
        if (result.violations.length === 0) continue;
        const file = JSON.stringify(replayFileOf(o, plan, result));
        const saved = parseReplayFile(file, 'f');
        const replayed = (await runPlan(saved.options, saved.plan)).result;
        expect(replayed.trace_hash).toBe(saved.expect.trace_hash);
        expect(replayed.violations.map((v) => v.name)).toEqual(saved.expect.violations);
        found = { o, line: resultLine(result), name: result.violations[0].name };
        expect(resultLine(replayed)).toBe(found.line);
      }
      expect(found, `${bug} not found in 100 seeds`).not.toBeNull();
      expect(expected[bug]).toContain(found!.name);
    });
  }

  it('shrinking reduces a failing plan to a much shorter one that still breaks the same invariant', async () => {
    const o = opts({ seed: '3', steps: 1500, bug: 'hwPastIsrMember' });
    const plan = generatePlan(o);
    const shrunk = await shrinkPlan(o, plan, 80);
    expect(shrunk.plan.length).toBeLessThan(plan.length / 10);
    const { result } = await runPlan(o, shrunk.plan);
    expect(result.violations.map((v) => v.name)).toContain(shrunk.violation);
  });
});
