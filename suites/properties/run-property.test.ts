import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointById } from '../../contract/index.ts';
import type { Target } from '../targets/target.ts';
import type { PropertyDef } from './core/property-def.ts';
import { requestAssertion } from './core/citations.ts';
import { PathPacer, PropertyClient } from './core/property-client.ts';
import { resultsOf, runProperty, type RunSettings } from './run-property.ts';
import { PropertyViolation } from './core/violation.ts';

// The property never sends a request: only run-property's handling of fast-check is under test.
const unusedTarget: Target = {
  name: 'unused',
  baseUrl: 'http://unused',
  capabilities: { remotePeer: { available: false }, loopback: true },
  login: () => Promise.reject(new Error('not used')),
  request: () => Promise.reject(new Error('not used')),
  close: async () => {},
};

const list = endpointById('cluster.user.list');

function defOf(arb: fc.Arbitrary<number>, body: (n: number) => void): PropertyDef {
  return {
    id: 'test.run-property',
    endpoints: [list],
    checkId: 'property.test',
    assertion: requestAssertion(list),
    commands: false,
    numRuns: 5,
    build: () => fc.asyncProperty(arb, async (n) => body(n)),
    describe: (v) => [String(v)],
    client: new PropertyClient(unusedTarget, new PathPacer(0)),
  };
}

const settings: RunSettings = { seed: 7, targetName: 'unused', baseUrl: 'http://unused' };

describe('runProperty', () => {
  it('reports a property fast-check refuses to run as a harness error of mqsim, with no runs, never as a finding', async () => {
    const def = defOf(
      fc.integer().map(() => {
        throw new Error('generator broke');
      }),
      () => {},
    );
    const outcome = await runProperty(def, 'INFO', settings);
    expect(outcome.details).toBeUndefined();
    const [r] = resultsOf(def, outcome, settings);
    expect([r.status, r.numRuns]).toEqual(['skipped', 0]);
    expect(r.message).toMatch(/^not decided: harness error in property test\.run-property .*generator broke/);
  });

  it('a replay that fast-check cannot follow is a usage error naming the path', async () => {
    const def = defOf(fc.integer(), () => {});
    const replay = { ...settings, replay: { propertyId: 'test.run-property', fcPath: '0:0' } };
    const broken = defOf(
      fc.integer().map(() => {
        throw new Error('generator broke');
      }),
      () => {},
    );
    await expect(runProperty(broken, 'INFO', replay)).rejects.toThrow(/--property-path test\.run-property~0:0 does not fit/);
    // The same replay of a property that runs is no error.
    await expect(runProperty(def, 'INFO', replay)).resolves.toMatchObject({ details: { failed: false } });
  });

  it('a violation becomes a failing check with the counterexample and the replay command', async () => {
    const def = defOf(fc.integer({ min: 0, max: 100 }), (n) => {
      if (n > 10) throw new PropertyViolation(requestAssertion(list), list.id, 'r1', `${n} > 10`);
    });
    const outcome = await runProperty(def, 'INFO', settings);
    const [r] = resultsOf(def, outcome, settings);
    expect(r.status).toBe('fail');
    expect(r.message).toContain('[r1] 11 > 10');
    expect(r.counterexample).toEqual(['11']);
  });
});
