import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { DISRUPTIVE_FAULT_KINDS, randomFaultSchedule, runFaultSchedule, type RaftFault } from '../cluster-ops/raft-fault-schedule.ts';
import type { RaftBugs } from './raft-bugs.ts';
import type { RaftInvariantName } from './raft-invariants.ts';

/**
 * Each deliberately buggy Raft is run under seeded fault schedules (crashes, graceful stops,
 * partitions, lossy links, leaves and rejoins) of 300 virtual seconds, seed after seed, until a
 * checker catches it; the correct Raft runs the same schedules without a violation.
 */
interface Scenario {
  bugs: RaftBugs;
  caughtBy: RaftInvariantName[];
  kinds: readonly RaftFault['kind'][];
  writeEveryMs: number;
  meanGapMs: number;
}

const DURATION_MS = 300_000;
const MAX_SEEDS = 10;

const SCENARIOS: Record<string, Scenario> = {
  'a vote granted twice in one term': {
    bugs: { grantVoteTwice: true },
    caughtBy: ['raft.election-safety'],
    kinds: DISRUPTIVE_FAULT_KINDS,
    writeEveryMs: 200,
    meanGapMs: 1_000,
  },
  'a vote granted without the log up-to-date check': {
    bugs: { skipLogUpToDateCheck: true },
    caughtBy: ['raft.leader-completeness', 'raft.state-machine-safety', 'raft.log-matching'],
    kinds: DISRUPTIVE_FAULT_KINDS,
    writeEveryMs: 200,
    meanGapMs: 1_000,
  },
  'AppendEntries accepted without the consistency check': {
    bugs: { skipConsistencyCheck: true },
    caughtBy: ['raft.log-matching'],
    kinds: DISRUPTIVE_FAULT_KINDS,
    writeEveryMs: 200,
    meanGapMs: 1_000,
  },
  // The current-term rule matters when a new leader replicates an earlier term's entry before any
  // entry of its own (figure 8 of the Raft paper): leaders cut off with a fresh tail, leader crashes,
  // and sparse writes make that common.
  'an entry of a previous term committed by counting replicas': {
    bugs: { commitPreviousTermByCount: true },
    caughtBy: ['raft.leader-completeness', 'raft.state-machine-safety'],
    kinds: ['tail-isolate', 'crash-leader'],
    writeEveryMs: 1_000,
    meanGapMs: 1_000,
  },
};

function run(seed: number, scenario: Scenario, buggy: boolean) {
  const cluster = new Cluster({ seed, nodes: 5, workload: 'none' }).start();
  if (buggy) cluster.raft.bugs = scenario.bugs;
  const schedule = randomFaultSchedule(cluster.engine.random.fork('schedule'), {
    durationMs: DURATION_MS,
    count: DURATION_MS / scenario.meanGapMs,
    nodes: 5,
    groups: cluster.raft.names().length,
    kinds: scenario.kinds,
  });
  return runFaultSchedule(cluster, schedule, { durationMs: DURATION_MS, writeEveryMs: scenario.writeEveryMs });
}

describe('buggy Raft variants are caught by the invariant checkers', () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(`catches ${name}`, () => {
      let caught: { seed: number; name: string; message: string; atMs: number } | null = null;
      for (let seed = 1; seed <= MAX_SEEDS && caught === null; seed++) {
        const result = run(seed, scenario, true);
        if (result.violations.length > 0)
          caught = { seed, name: result.violations[0].name, message: result.violations[0].message, atMs: result.violationAtMs! };
      }
      expect(caught, `not caught within ${MAX_SEEDS} seeds of ${DURATION_MS / 1000} virtual s`).not.toBeNull();
      expect(scenario.caughtBy, `seed ${caught!.seed}: ${caught!.message}`).toContain(caught!.name);
      expect(caught!.atMs).toBeLessThanOrEqual(DURATION_MS);
    });

    it(`runs the same schedules clean without the bug (${name})`, () => {
      for (const seed of [1, 2]) {
        const result = run(seed, scenario, false);
        expect(result.violations, `seed ${seed}`).toEqual([]);
        expect(result.writes).toBeGreaterThan(0);
      }
    });
  }
});
