import { beforeAll, describe, expect, it } from 'vitest';
import type { Deviation } from '../../sim/admin-api/hooks/deviation.ts';
import { aroundOn } from '../../sim/admin-api/hooks/hook-helpers.ts';
import type { Report } from '../../suites/conform/report-model.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';

/**
 * CONTRIBUTING.md's "Adding a fault", proven: a fault (a switch that exists to prove the suites)
 * written as one in sim/faults/*.ts is, but defined only in this file. The simulator serves it
 * switched on, the conformance suites run on its endpoint's area, and the report has exactly the
 * findings its bug explains, on that endpoint; served without it, none.
 */

/** A realistic bug: the tenant list counts the rows of the page it answers, not every matching tenant. */
const tenantTotalOfPage: Deviation = {
  id: 'tenant-list-total-of-page',
  spec: 'breaks',
  endpoint: 'cluster.tenant.list',
  description: 'tenant list: total_count is the size of the page instead of the number of matching tenants',
  checks: ['list.total-count', 'list.page-past-end'],
  caught: true,
  hooks: {
    around: aroundOn('cluster.tenant.list', async (params, next) => {
      const page = (await next(params)) as { data: unknown[]; total_count: number };
      return { ...page, total_count: page.data.length };
    }),
  },
};

async function conformTenants(deviations: readonly Deviation[]): Promise<Report> {
  const target = await SimTarget.start({ seed: 3, workload: 'none', deviations });
  try {
    return await runConform({ target, seed: 3, only: ['tenants'], properties: false });
  } finally {
    await target.close();
  }
}

const failing = (r: Report) => r.endpoints.flatMap((e) => e.checks.filter((c) => c.status === 'fail').map((c) => `${e.id} ${c.id}`));

describe('a throwaway fault defined only in this file', () => {
  let clean: Report;
  let broken: Report;
  beforeAll(async () => {
    [clean, broken] = await Promise.all([conformTenants([]), conformTenants([tenantTotalOfPage])]);
  }, 60_000);

  it('without it, the area checks clean: no finding, no failed check', () => {
    expect(clean.vacuous).toBe(false);
    expect(clean.findings).toEqual([]);
    expect(failing(clean)).toEqual([]);
  });

  it('with it, the run reports exactly the expected findings, all on its endpoint, from the checks it names', () => {
    expect(broken.vacuous).toBe(false);
    expect(broken.findings.map((f) => [f.id, f.endpoints])).toEqual([
      ['envelope.paged.data', ['GET /api/cluster/tenant/list']],
      ['envelope.paged.total-count', ['GET /api/cluster/tenant/list']],
    ]);
    expect(failing(broken).sort()).toEqual(tenantTotalOfPage.checks.map((c) => `${tenantTotalOfPage.endpoint} ${c}`).sort());
    expect(broken.verdict).toBe('fail');
  });
});
