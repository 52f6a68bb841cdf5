import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, switchHelpLine, unaccountedSwitches } from '../../sim/switches/dialects.ts';
import { failed, OperationError } from '../../sim/model/errors/operation-error.ts';
import type { Deviation } from '../../sim/admin-api/hooks/deviation.ts';
import { aroundOn } from '../../sim/admin-api/hooks/hook-helpers.ts';
import { DEVIATIONS } from '../../sim/switches/catalogue.ts';
import type { Report } from '../../suites/conform/report-model.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';

/**
 * CONTRIBUTING.md's "Adding a dialect switch", proven: a switch of the real server's dialect (how it
 * answers differently), written as one in sim/dialects/robustmq/real-server-*.ts is, but defined only
 * in this file. The dialect must account for it; `mqsim serve --help` lists it with its standing;
 * served on, it really changes the answers, and the conformance suites accept what the spec allows:
 * no finding. The same change made so that the text loses its inner one is reported (an INFO finding:
 * the text is the project's decision where the spec gives it only in words, as real-server-allowed
 * allows), so the run looked at those texts.
 */

/** Suffixes a tenant write's refusal text, as a server that logs its meta log position might. */
function suffixRefusals(id: string, spec: Deviation['spec'], text: (inner: string) => string): Deviation {
  return {
    id,
    spec,
    notes: 'notes §2.4',
    rule: 'Errors: "generic failure of an operation, with a text in `message` or `error`"; the text still holds the inner one',
    endpoint: 'cluster.tenant.create',
    description: 'tenant create refusals carry the meta log position after the text',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: the failure text still holds the inner text',
    hooks: {
      around: aroundOn('cluster.tenant.create', async (params, next) => {
        try {
          return await next(params);
        } catch (e) {
          if (e instanceof OperationError && e.kind === 'failed') throw failed(text(e.message));
          throw e;
        }
      }),
    },
  };
}

const suffixed = suffixRefusals('tenant-refusal-log-position', 'allows', (inner) => `${inner} (meta log index 42)`);
const replaced = suffixRefusals('tenant-refusal-text-lost', 'allows', () => 'meta log index 42');

async function conformTenants(deviations: readonly Deviation[]): Promise<Report> {
  const target = await SimTarget.start({ seed: 4, workload: 'none', deviations });
  try {
    return await runConform({ target, seed: 4, only: ['tenants'], properties: false });
  } finally {
    await target.close();
  }
}

/** The answer to creating the same tenant twice, with the switch on. */
async function duplicateCreate(deviation: Deviation): Promise<string> {
  const target = await SimTarget.start({ seed: 4, workload: 'none', deviations: [deviation] });
  try {
    const body = { tenant_name: 'walkthrough', desc: '' };
    await target.request({ method: 'POST', path: '/api/cluster/tenant/create', body });
    const second = await target.request({ method: 'POST', path: '/api/cluster/tenant/create', body });
    return second.text;
  } finally {
    await target.close();
  }
}

describe('a throwaway dialect switch defined only in this file', () => {
  it('must be accounted for by the dialect, and is listed in --help with its standing and notes', () => {
    const catalogue = [...DEVIATIONS, suffixed];
    expect(unaccountedSwitches(DIALECTS.robustmq, catalogue)).toEqual([suffixed.id]);
    const withIt = { ...DIALECTS.robustmq, switches: [...DIALECTS.robustmq.switches, suffixed.id] };
    expect(unaccountedSwitches(withIt, catalogue)).toEqual([]);
    expect(switchHelpLine(suffixed)).toMatch(/^ {2}tenant-refusal-log-position +\[spec allows, notes §2\.4\] tenant create refusals/);
  });

  let allowed: Report;
  let broken: Report;
  beforeAll(async () => {
    [allowed, broken] = await Promise.all([conformTenants([suffixed]), conformTenants([replaced])]);
  }, 60_000);

  it('served on, it changes the answer', async () => {
    expect(await duplicateCreate(suffixed)).toMatch(/already exists \(meta log index 42\)/);
  });

  it('the suites accept what the spec allows: no finding', () => {
    expect(allowed.vacuous).toBe(false);
    expect(allowed.findings.map((f) => `${f.level} ${f.id}`)).toEqual([]);
  });

  it('the same change losing the inner text is reported on the endpoint, as INFO only (the run looked at those texts)', () => {
    expect(broken.findings.map((f) => [f.level, f.id, f.endpoints])).toEqual([
      ['INFO', 'decision.tenant.exists', ['POST /api/cluster/tenant/create']],
    ]);
  });
});
