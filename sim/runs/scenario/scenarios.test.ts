import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioFile, type ScenarioFile } from './scenario-file.ts';
import { runScenario } from './scenario-runner.ts';

const DIR = join(import.meta.dirname, '../../../fixtures/scenarios');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const load = (name: string): ScenarioFile => parseScenarioFile(readFileSync(join(DIR, name), 'utf8'), name);

describe('scenario files in fixtures/scenarios', () => {
  it('cover the required situations', () => {
    for (const name of [
      'leader-crash-during-writes',
      'minority-partition',
      'isr-shrinks-to-one-then-leader-lost',
      'node-leave-three-voters',
      'node-leave-two-voters',
      'connector-sink-outage-discard',
      'connector-sink-outage-discard-after-retry',
      'connector-sink-outage-dead-message-queue',
      'flapping-storm',
      'clock-skew',
    ]) {
      expect(FILES).toContain(`${name}.json`);
    }
  });

  for (const name of FILES) {
    it(`${name} passes: every eventually-check held, no invariant broke`, async () => {
      const r = await runScenario(load(name));
      expect(r.checks.filter((c) => !c.passed)).toEqual([]);
      expect(r.passed).toBe(true);
      expect(r.checks.filter((c) => c.name.startsWith('eventually')).length).toBe(load(name).eventually.checks.length);
    });
  }
});

describe('scenario runs', () => {
  it('are deterministic: the same seed gives the same trace hash, another seed another', async () => {
    const file = load('minority-partition.json');
    const [a, b, c] = [await runScenario(file), await runScenario(file), await runScenario(file, { seed: '22' })];
    expect(a.trace_hash).toBe(b.trace_hash);
    expect(a.events).toBe(b.events);
    expect(c.trace_hash).not.toBe(a.trace_hash);
  });

  it('fail when a buggy variant is on: an unclean election loses records acknowledged by an ISR of one', async () => {
    const r = await runScenario(load('isr-shrinks-to-one-then-leader-lost.json'), { bug: 'uncleanElection' });
    expect(r.passed).toBe(false);
    const failed = r.checks.filter((c) => !c.passed).map((c) => c.name);
    expect(failed).toContain('eventually[1] topic-acked');
    expect(failed).toContain('invariants');
    expect(r.violations.map((v) => v.name)).toContain('storage.no-acknowledged-write-lost');
  });

  it('fail an eventually-check that never holds, naming what was wrong', async () => {
    const file = load('node-leave-three-voters.json');
    const r = await runScenario({ ...file, eventually: { within_ms: 2_000, checks: [{ check: 'node-count', equals: 3 }] } });
    expect(r.passed).toBe(false);
    expect(r.checks.find((c) => c.name === 'eventually[0] node-count')!.message).toBe(
      'not within 2000 ms: broker_node_list has 2 nodes, expected 3',
    );
  });

  it('fail a step whose expectation is not met', async () => {
    const file = load('node-leave-two-voters.json');
    const r = await runScenario({
      ...file,
      faults: [
        {
          api: { method: 'POST', path: '/api/cluster/node/leave', body: { node_id: 2 } },
          expect: 'refused',
          message_contains: 'only 2 voters',
        },
      ],
    });
    // Node 2 still runs, so the refusal is rule 1's, not rule 2's: the expected text is missing.
    expect(r.checks.find((c) => c.name === 'faults[0]#0')).toMatchObject({ passed: false });
    expect(r.passed).toBe(false);
  });
});

describe('scenario file validation', () => {
  const good = readFileSync(join(DIR, 'leader-crash-during-writes.json'), 'utf8');
  const bad = (mutate: (d: any) => void): string => {
    const d = JSON.parse(good);
    mutate(d);
    return JSON.stringify(d);
  };
  it('accepts the fixtures', () => {
    expect(parseScenarioFile(good, 'x.json').name).toBe('leader-crash-during-writes');
  });
  it.each([
    ['not JSON', () => '{', 'x.json is not JSON'],
    ['a wrong format', () => bad((d) => (d.format = 'other')), 'x.json: invalid scenario: /format must be equal to constant'],
    ['a missing name', () => bad((d) => delete d.name), "(top level) must have required property 'name'"],
    [
      'an unknown fault kind',
      () => bad((d) => (d.faults[0].fault.kind = 'explode')),
      '/faults/0/fault/kind must be equal to one of the allowed values',
    ],
    ['a fault without its node', () => bad((d) => delete d.faults[0].fault.node), "/faults/0/fault must have required property 'node'"],
    ['a negative wait', () => bad((d) => (d.setup[1].wait_ms = -5)), '/setup/1/wait_ms must be >= 1'],
    ['an unknown step key', () => bad((d) => (d.workload[0].times = 3)), '/workload/0 must NOT have additional properties (times)'],
    [
      'an unknown check',
      () => bad((d) => (d.eventually.checks[0].check = 'magic')),
      '/eventually/checks/0/check must be equal to one of the allowed values',
    ],
    [
      'a check without its field',
      () => bad((d) => delete d.eventually.checks[1].equals),
      "/eventually/checks/1 must have required property 'equals'",
    ],
    ['an unknown bug', () => bad((d) => (d.bug = 'nope')), '/bug'],
  ])('rejects %s with a message naming the field', (_what, text, message) => {
    expect(() => parseScenarioFile(text(), 'x.json')).toThrow(message);
  });
});
