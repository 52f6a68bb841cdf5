import { describe, it } from 'vitest';
import { DIALECTS } from '../../sim/switches/dialects.ts';
import { runPropertySuites } from '../../suites/properties/index.ts';
import { expectPassed } from '../../suites/properties/list-histories/testing/expect-passed.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';

/**
 * The list histories against the simulator answering as the real server does (`--dialect robustmq`):
 * a correct server with other choices where the spec is silent (default page size 10, code 100,
 * idempotent deletes, connector names unique across tenants, upserts): no history may fail.
 */
describe('list histories against --dialect robustmq', () => {
  it('pass every history', async () => {
    const d = DIALECTS.robustmq;
    const sim = await SimTarget.start({ seed: 1, warmUpMs: 60_000, deviations: d.switches, envelope: d.envelope });
    try {
      expectPassed(await runPropertySuites(sim, { seed: 1, families: ['history'] }));
    } finally {
      await sim.close();
    }
  }, 60_000);
});
