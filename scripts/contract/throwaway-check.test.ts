import { beforeAll, describe, expect, it } from 'vitest';
import { API } from '../../contract/index.ts';
import { assertionById } from '../../contract/assertions/index.ts';
import type { Deviation } from '../../sim/admin-api/hooks/deviation.ts';
import { aroundOn } from '../../sim/admin-api/hooks/hook-helpers.ts';
import { HANDLERS } from '../../sim/admin-api/handlers/index.ts';
import { readList } from '../../suites/conform/check-helpers.ts';
import { fail, inconclusive, pass } from '../../suites/conform/conform-context.ts';
import type { CheckRecord, Report } from '../../suites/conform/report-model.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SCENARIO_SUITES, type ScenarioSuite } from '../../suites/scenarios/index.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';
import { missingParts } from './completeness.ts';

/**
 * CONTRIBUTING.md's "Adding a check with its assertion", proven: a check defined only in this file,
 * in a scenario suite as suites/scenarios/<module>.ts holds them, cites a spec assertion of
 * contract/assertions and takes its level from it. Against the clean simulator it passes; against a
 * fault that breaks its rule it fails, and the finding is that assertion's on its endpoint. A check
 * citing an assertion the catalogue lacks is named by the completeness check.
 */

const LIST = 'GET /api/cluster/tenant/list';

/** "| tenant_name | string | name, length 1-128, unique |": the list names each tenant once. */
function namesOnceSuite(assertion: string): ScenarioSuite {
  return {
    name: 'walkthrough',
    tags: ['tenants'],
    scenarios: [
      {
        endpoint: LIST,
        checks: ['tenant.names-once'],
        assertion,
        async run(ctx, e) {
          const got = await readList(ctx, e.path, {});
          await ctx.check(e, 'tenant.names-once', assertion, () => {
            if (!got || got.rows.length < 2) return inconclusive('fewer than two tenants listed: nothing to compare', got?.ex);
            const names = got.rows.map((r) => String(r.tenant_name));
            const twice = names.filter((n, i) => names.indexOf(n) !== i);
            if (twice.length > 0) return fail(`tenants listed more than once: ${[...new Set(twice)].join(', ')}`, got.ex);
            return pass(`${names.length} tenants, each listed once`, got.ex);
          });
        },
      },
    ],
  };
}

const namesOnce = namesOnceSuite('resources.tenant.name');

/** A fault the check is for: the tenant list repeats its first row at the end of every page. */
const firstTenantTwice: Deviation = {
  id: 'tenant-list-first-twice',
  spec: 'breaks',
  endpoint: 'cluster.tenant.list',
  description: 'tenant list: the first tenant of a page is listed again at its end',
  checks: ['tenant.names-once'],
  caught: true,
  hooks: {
    around: aroundOn('cluster.tenant.list', async (params, next) => {
      const page = (await next(params)) as { data: unknown[]; total_count: number };
      return page.data.length > 0 ? { ...page, data: [...page.data, page.data[0]] } : page;
    }),
  },
};

async function conformTenants(deviations: readonly Deviation[]): Promise<Report> {
  const target = await SimTarget.start({ seed: 6, workload: 'demo', warmUpMs: 0, deviations });
  try {
    return await runConform({ target, seed: 6, only: ['tenants'], properties: false, scenarios: [namesOnce] });
  } finally {
    await target.close();
  }
}

const check = (r: Report, id: string): CheckRecord | undefined =>
  r.endpoints.find((e) => e.id === 'cluster.tenant.list')?.checks.find((c) => c.id === id);

describe('a throwaway check defined only in this file', () => {
  let clean: Report;
  let broken: Report;
  beforeAll(async () => {
    [clean, broken] = await Promise.all([conformTenants([]), conformTenants([firstTenantTwice])]);
  }, 60_000);

  it('runs against the clean simulator and passes, at the level of the assertion it cites', () => {
    expect(check(clean, 'tenant.names-once')).toMatchObject({
      status: 'pass',
      assertion: 'resources.tenant.name',
      level: assertionById('resources.tenant.name').level,
    });
    expect(clean.findings).toEqual([]);
  });

  it('fails against a fault that breaks its rule: a finding of its assertion on its endpoint', () => {
    expect(check(broken, 'tenant.names-once')).toMatchObject({ status: 'fail', assertion: 'resources.tenant.name' });
    const finding = broken.findings.find((f) => f.assertion === 'resources.tenant.name');
    expect(finding?.endpoints).toEqual([LIST]);
    expect(finding?.level).toBe('MUST');
    expect(broken.verdict).toBe('fail');
  });

  it('must cite an assertion of the catalogue: the completeness check names one that does not', () => {
    const impl = { api: API, handlers: HANDLERS };
    expect(missingParts({ ...impl, scenarioSuites: [...SCENARIO_SUITES, namesOnce] })).toEqual([]);
    expect(missingParts({ ...impl, scenarioSuites: [...SCENARIO_SUITES, namesOnceSuite('resources.tenant.names-once')] })).toEqual([
      'scenario tenant.names-once (walkthrough): unknown assertion resources.tenant.names-once (contract/assertions/)',
    ]);
  });
});
