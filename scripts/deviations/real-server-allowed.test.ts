import { afterAll, describe, expect, it } from 'vitest';
import { DEVIATIONS } from '../../sim/switches/catalogue.ts';
import { conformWith, describeFindings, tagsOf } from './proof-run.ts';

/**
 * The real server's behaviours the spec allows (reference notes §11: code 100, 405 with an empty body,
 * texts that name a field in words, unknown sort fields ignored…), each a switch of the simulator: a
 * conformance run against it, property suites included, raises no MUST or SHOULD finding. INFO
 * findings (the project's own decisions) may show, and are listed.
 */

const allowed = DEVIATIONS.filter((d) => d.spec === 'allows');
const timings: string[] = [];
const started = performance.now();
afterAll(() => {
  console.log(
    `allowed-variant proof: ${timings.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s\n  ${timings.join('\n  ')}`,
  );
});

describe('behaviours the spec allows raise no MUST or SHOULD finding', () => {
  for (const d of allowed) {
    it(
      d.id,
      async () => {
        const { report, ms } = await conformWith([d.id], { tags: tagsOf(d) });
        const info = report.findings.filter((f) => f.level === 'INFO');
        timings.push(`${d.id} ${ms} ms${info.length ? `; INFO: ${info.map((f) => f.id).join(', ')}` : ''}`);
        expect(report.vacuous).toBe(false);
        expect(describeFindings(report.findings.filter((f) => f.level !== 'INFO')), d.id).toEqual([]);
      },
      120_000,
    );
  }
});
