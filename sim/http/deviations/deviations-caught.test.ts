import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../fixtures/contract/index.ts';
import type { Report } from '../../../suites/conform/report-model.ts';
import { runConform } from '../../../suites/conform/runner.ts';
import { SIM_ADMIN } from '../../../suites/targets/sim-target.ts';
import { UrlTarget } from '../../../suites/targets/url-target.ts';
import { startClusterServer } from '../cluster-server.ts';
import { DEVIATIONS } from './catalogue.ts';
import type { Deviation } from './deviation.ts';

/**
 * Proof that the conformance suites catch deviations: the simulator is served with one deliberately
 * broken behaviour at a time, the suites run against it over HTTP, and the report must show a failed
 * check on the deviation's endpoint. The unbroken simulator, served the same way, must show none.
 * Deviations the current checks miss (`caught: false`) are run too and listed, as gaps to close.
 */

/** Ten virtual minutes of demo history: enough for every check (monitor series, bans), 6x faster to start than an hour. */
const WARM_UP_MS = 600_000;
/** Families every run needs: fixtures live in a tenant; the node list comes from the status endpoint. */
const BASE_TAGS = ['tenants', 'cluster-status'];

const timings: string[] = [];
const started = performance.now();

interface ProofRun {
  report: Report;
  /** Why the auth checks could not run (no second loopback address to send from), if so. */
  noRemotePeer?: string;
}

async function conformWith(deviations: readonly string[], tags?: ReadonlySet<string>): Promise<ProofRun> {
  const t0 = performance.now();
  const running = await startClusterServer({ seed: 1, nodes: 3, workload: 'demo', host: '127.0.0.1', port: 0, warmUpMs: WARM_UP_MS, admin: { ...SIM_ADMIN }, deviations });
  try {
    const target = await UrlTarget.create({ url: running.baseUrl, name: 'sim', username: SIM_ADMIN.username, password: SIM_ADMIN.password, signingSecret: SIM_ADMIN.jwtSecret });
    try {
      const report = await runConform({ target, seed: 1, contract: tags ? CONTRACT.filter((e) => tags.has(e.tag)) : CONTRACT });
      const remote = target.capabilities.remotePeer;
      return { report, ...(remote.available ? {} : { noRemotePeer: remote.reason ?? 'unavailable' }) };
    } finally {
      await target.close();
    }
  } finally {
    await running.close();
    timings.push(`${deviations.join(',') || '(none)'} ${Math.round(performance.now() - t0)} ms`);
  }
}

/** The contract families a deviation's run needs: its endpoint's, the base ones and its own extras. */
function tagsOf(d: Deviation): Set<string> {
  const endpoint = CONTRACT.find((e) => e.id === d.endpoint)!;
  return new Set([endpoint.tag, ...BASE_TAGS, ...(d.tags ?? [])]);
}

const matches = (pattern: string, id: string) => new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(id);

function failures(report: Report, endpointId?: string): { endpoint: string; id: string; level: string; message: string }[] {
  return report.endpoints
    .filter((e) => endpointId === undefined || e.id === endpointId)
    .flatMap((e) => e.checks.filter((c) => c.status === 'fail').map((c) => ({ endpoint: e.id, id: c.id, level: c.level, message: c.message })));
}

afterAll(() => {
  console.log(`deviation proof: ${timings.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s\n  ${timings.join('\n  ')}`);
});

describe('the conformance suites against the unbroken simulator', () => {
  it('report no failed check at all (any level), over the whole contract', async () => {
    const { report } = await conformWith([]);
    expect(report.vacuous).toBe(false);
    expect(failures(report).map((f) => `${f.endpoint} ${f.id}: ${f.message}`)).toEqual([]);
  });
});

/** Behaviours the spec allows are not bugs to catch; their proof (no MUST or SHOULD failure) is written elsewhere. */
const BREAKING = DEVIATIONS.filter((x) => x.spec === 'breaks');

describe('the conformance suites catch each deviation on the right endpoint', () => {
  for (const d of BREAKING.filter((x) => x.caught)) {
    it(`${d.id} → ${d.endpoint} (${d.checks.join(' | ')})`, async (test) => {
      const { report, noRemotePeer } = await conformWith([d.id], tagsOf(d));
      // The auth checks need a non-loopback peer (127.0.0.2); where none can be bound they are skipped.
      if (noRemotePeer && d.checks.every((c) => c.startsWith('auth.'))) test.skip(`auth checks cannot run here: ${noRemotePeer}`);
      expect(report.vacuous, `${d.id}: the run was vacuous`).toBe(false);
      const onEndpoint = failures(report, d.endpoint);
      const expected = onEndpoint.filter((f) => d.checks.some((pattern) => matches(pattern, f.id)));
      const elsewhere = failures(report).filter((f) => f.endpoint !== d.endpoint).slice(0, 5);
      expect(
        expected.map((f) => f.id),
        `${d.id}: no failed ${d.checks.join('/')} on ${d.endpoint}; failed there: ${JSON.stringify(onEndpoint.map((f) => f.id))}; elsewhere: ${JSON.stringify(elsewhere.map((f) => `${f.endpoint} ${f.id}`))}`,
      ).not.toEqual([]);
      // A MUST failure fails the run as a whole, so a CI gate on the exit status stops it.
      if (expected.some((f) => f.level === 'MUST')) expect(report.verdict, `${d.id}: a MUST check failed but the verdict is pass`).toBe('fail');
    });
  }
});

describe('deviations the current checks miss', () => {
  const missed = BREAKING.filter((x) => !x.caught);
  it(`are listed with the reason (${missed.length}): gaps for new checks`, async () => {
    const lines: string[] = [];
    for (const d of missed) {
      const { report } = await conformWith([d.id], tagsOf(d));
      expect(report.vacuous, `${d.id}: the run was vacuous`).toBe(false);
      const onEndpoint = failures(report, d.endpoint);
      lines.push(
        onEndpoint.length === 0
          ? `MISSED ${d.id} (${d.endpoint}): ${d.reason}`
          : `NOW CAUGHT ${d.id} (${d.endpoint}) by ${[...new Set(onEndpoint.map((f) => f.id))].join(', ')}: set caught: true in the catalogue`,
      );
    }
    console.log(`deviations not caught by the current checks:\n  ${lines.join('\n  ')}`);
    // One conformance run per missed deviation, in sequence: the time budget grows with their number.
  }, 30_000 + missed.length * 20_000);
});
