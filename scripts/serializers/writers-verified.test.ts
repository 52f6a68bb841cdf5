import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointById } from '../../contract/index.ts';
import { obj, str, uint, unixSeconds } from '../../contract/core/schema-builders.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { successEnvelope } from '../../sim/admin-api/envelope.ts';
import { successWriter, verifiedWriter, writerVerification } from '../../sim/admin-api/response-writers.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';

/**
 * The compiled response writers write the bytes JSON.stringify wrote: the conformance suites run
 * against the simulator in verification mode (MQSIM_VERIFY_WRITERS=1: every body is written both
 * ways and a difference throws, which answers 500), in both envelope forms, so every endpoint's
 * answers, lists with data, failures and the 401s pass through a compared writer.
 */
describe('compiled response writers', () => {
  const before = process.env.MQSIM_VERIFY_WRITERS;
  beforeAll(() => {
    process.env.MQSIM_VERIFY_WRITERS = '1';
  });
  afterAll(() => {
    if (before === undefined) delete process.env.MQSIM_VERIFY_WRITERS;
    else process.env.MQSIM_VERIFY_WRITERS = before;
  });

  for (const envelope of ['A', 'B'] as const) {
    it(`write every answer of a conformance run byte for byte as JSON.stringify (envelope form ${envelope})`, async () => {
      const comparedBefore = writerVerification.compared;
      const target = await SimTarget.start({ seed: 3, envelope, warmUpMs: 600_000 });
      let report;
      try {
        report = await runConform({ target, seed: 3 });
      } finally {
        await target.close();
      }
      expect([...writerVerification.mismatches.values()]).toEqual([]);
      expect(report.summary.failed).toBe(0);
      expect(report.summary.untested).toBe(0);
      // Thousands of bodies went through a compared writer (not a run that never reached the app).
      expect(writerVerification.compared - comparedBefore).toBeGreaterThan(5_000);
    }, 180_000);
  }

  it('verification catches a schema whose properties are out of the order the simulator writes them', () => {
    const list = endpointById('cluster.tenant.list');
    // The tenant record with create_time moved first: the compiled writer writes it first.
    const reordered: EndpointContract = {
      ...list,
      response: {
        ...list.response,
        data: obj({ create_time: unixSeconds(), tenant_name: str(), desc: str(), config: obj({ max_topics: uint() }) }),
      },
    };
    const page = { data: [{ tenant_name: 't', desc: '', config: { max_topics: 1 }, create_time: 1 }], total_count: 1 };
    const body = successEnvelope('A', page);
    expect(successWriter(list, 'A')(body)).toBe(JSON.stringify(body));
    expect(() => verifiedWriter(successWriter(reordered, 'A'), 'reordered tenant list')(body)).toThrow(
      /compiled writer of reordered tenant list differs from JSON.stringify at byte/,
    );
    // A field the schema does not list would be dropped: caught the same way.
    const extra = successEnvelope('A', { ...page, data: [{ ...page.data[0], extra: true }] });
    expect(() => verifiedWriter(successWriter(list, 'A'), 'tenant list')(extra)).toThrow(/differs from JSON.stringify/);
    writerVerification.mismatches.delete('reordered tenant list');
    writerVerification.mismatches.delete('tenant list');
  });
});
