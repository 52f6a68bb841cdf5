import { afterAll, describe, expect, it } from 'vitest';
import { DEVIATIONS } from '../../sim/switches/catalogue.ts';
import { conformWith, describeFindings, keyOf, tagsOf } from './proof-run.ts';
import { DEFAULT_HISTORY_DEPTH } from '../../suites/properties/list-histories/history-property.ts';

/**
 * Proof that the conformance suites catch deviations: the simulator is served with one deliberately
 * broken behaviour at a time, the suites run against it over HTTP, and the report must show a finding
 * on the deviation's endpoint. The unbroken simulator, served the same way, must show none at all.
 * Deviations the current checks miss (`caught: false`) are run too and listed, as gaps to close. The
 * real server's behaviours (`notes` set) have proofs of their own: real-server-findings.test.ts and
 * real-server-allowed.test.ts.
 */

const timings: string[] = [];
const started = performance.now();
afterAll(() => {
  console.log(
    `deviation proof: ${timings.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s\n  ${timings.join('\n  ')}`,
  );
});

const invented = DEVIATIONS.filter((d) => d.spec === 'breaks' && d.notes === undefined);

describe('the conformance suites against the unbroken simulator', () => {
  it('report no finding at all (any level), over the whole contract, property suites included', async () => {
    const { report, ms } = await conformWith([]);
    timings.push(`(none) ${ms} ms`);
    expect(report.vacuous).toBe(false);
    expect(describeFindings(report.findings)).toEqual([]);
    expect(report.summary.failed).toBe(0);
  }, 120_000);
});

describe('the conformance suites catch each invented deviation as a finding on the right endpoint', () => {
  for (const d of invented.filter((x) => x.caught)) {
    it(`${d.id} → ${d.endpoint} (${d.checks.join(' | ')})`, async (test) => {
      // The property suites run where a deviation's expected checks are theirs (they take most of a run's time).
      const { report, noRemotePeer, ms } = await conformWith([d.id], {
        tags: tagsOf(d),
        properties: d.checks.some((c) => c.startsWith('property.')),
        // A list fault only a history shows is proven at the depth `mqsim conform` runs by default.
        ...(d.checks.includes('property.history.lists') ? { depth: DEFAULT_HISTORY_DEPTH } : {}),
      });
      timings.push(`${d.id} ${ms} ms`);
      if (noRemotePeer && d.checks.every((c) => c.startsWith('auth.'))) test.skip(`auth checks cannot run here: ${noRemotePeer}`);
      expect(report.vacuous, `${d.id}: the run was vacuous`).toBe(false);
      const on = report.findings.filter((f) => f.endpoints.includes(keyOf(d.endpoint)));
      expect(
        on.length,
        `${d.id}: no finding on ${d.endpoint}; findings: ${JSON.stringify(describeFindings(report.findings))}`,
      ).toBeGreaterThan(0);
      // A deviation that names its finding is that one finding and no other (one per cause).
      if (d.finding)
        expect(
          report.findings.map((f) => f.id),
          JSON.stringify(describeFindings(report.findings)),
        ).toEqual([d.finding]);
      // A MUST finding fails the run as a whole, so a CI gate on the exit status stops it.
      if (on.some((f) => f.level === 'MUST')) expect(report.verdict, `${d.id}: a MUST finding but the verdict is pass`).toBe('fail');
    }, 120_000);
  }
});

describe('invented deviations the current checks miss', () => {
  const missed = invented.filter((x) => !x.caught);
  it(`are listed with the reason (${missed.length}): gaps for new checks`, async () => {
    const lines: string[] = [];
    for (const d of missed) {
      const { report, ms } = await conformWith([d.id], { tags: tagsOf(d), properties: false });
      timings.push(`${d.id} ${ms} ms`);
      expect(report.vacuous, `${d.id}: the run was vacuous`).toBe(false);
      const on = report.findings.filter((f) => f.endpoints.includes(keyOf(d.endpoint)));
      lines.push(
        on.length === 0
          ? `MISSED ${d.id} (${d.endpoint}): ${d.reason}`
          : `NOW CAUGHT ${d.id} (${d.endpoint}) as ${on.map((f) => f.id).join(', ')}: set caught: true in the catalogue`,
      );
    }
    console.log(`invented deviations not caught by the current checks:\n  ${lines.join('\n  ') || '(none)'}`);
  }, 600_000);
});
