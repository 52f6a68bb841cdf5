import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deviationById } from '../../sim/switches/catalogue.ts';
import { conformWith, describeFindings, keyOf } from './proof-run.ts';
import { DIALECTS } from '../../sim/switches/dialects.ts';

/**
 * `mqsim conform` against `--dialect robustmq` reports exactly the reviewed list of findings
 * (fixtures/dialects/robustmq-findings.json): one per real-server behaviour that breaks the spec, on
 * the switch's endpoint, INFO where an allowed behaviour differs from a project decision, and nothing
 * the list does not explain.
 */
interface Expected {
  findings: { id: string; level: string; switch: string; why: string }[];
  absent: { switch: string; why: string }[];
}
const expected = JSON.parse(readFileSync(new URL('../../fixtures/dialects/robustmq-findings.json', import.meta.url), 'utf8')) as Expected;
const dialect = DIALECTS.robustmq;

describe('conform against --dialect robustmq', () => {
  it('the reviewed list accounts for every switch of the dialect that breaks the spec', () => {
    for (const f of expected.findings) {
      expect(dialect.switches, f.id).toContain(f.switch);
      const d = deviationById(f.switch)!;
      if (d.spec === 'breaks') expect(d.finding, `${f.switch} names its finding`).toBe(f.id);
      else expect(f.level, `${f.switch} is allowed by the spec: at most INFO`).toBe('INFO');
      expect(f.why.length, f.id).toBeGreaterThan(20);
    }
    const explained = new Set([...expected.findings.map((f) => f.switch), ...expected.absent.map((a) => a.switch)]);
    for (const id of dialect.switches) {
      if (deviationById(id)!.spec === 'breaks')
        expect(explained.has(id), `${id} breaks the spec: a finding or a reason it is absent`).toBe(true);
    }
  });

  it("reports exactly the reviewed findings, each on its switch's endpoint", async () => {
    const { report } = await conformWith(dialect.switches, { envelope: dialect.envelope });
    expect(report.vacuous).toBe(false);
    const got = report.findings.map((f) => `${f.level} ${f.id}`).sort();
    const want = expected.findings.map((f) => `${f.level} ${f.id}`).sort();
    expect(got, describeFindings(report.findings).join('\n')).toEqual(want);
    for (const f of expected.findings) {
      const d = deviationById(f.switch)!;
      if (d.spec === 'breaks') expect(report.findings.find((x) => x.id === f.id)!.endpoints, f.id).toContain(keyOf(d.endpoint));
    }
  }, 300_000);
});
