import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { CheckRecord, Report } from '../conform/report-model.ts';
import { runConform } from '../run/runner.ts';
import { SCENARIO_SUITES } from './index.ts';

/**
 * The whole conformance run against the embedded simulator (in-process, with its control interface):
 * no failure at any level, and every scenario of every family file ran.
 */

// How long it takes is printed, and judged by bench:conform (docs/performance.md), not by a test: a
// wall-clock limit here only measured how loaded the machine was.
const started = performance.now();
const report: Report = await runConform({ target: 'sim', seed: 7 });
const runMs = performance.now() - started;

function checksOfFamily(tags: readonly string[]): { endpoint: string; check: CheckRecord }[] {
  return report.endpoints
    .filter((e) => tags.includes(e.tag))
    .flatMap((e) => e.checks.map((check) => ({ endpoint: `${e.method} ${e.path}`, check })));
}

const idMatches = (declared: string, id: string) => (declared.endsWith('.*') ? id.startsWith(declared.slice(0, -1)) : id === declared);

describe('mqsim conform --target sim: the family scenario suites', () => {
  it('finish with no failure at any level, with every endpoint checked', () => {
    const failures = report.endpoints.flatMap((e) =>
      e.checks.filter((c) => c.status === 'fail').map((c) => `${e.method} ${e.path} ${c.id} (${c.level}): ${c.message}`),
    );
    expect(failures).toEqual([]);
    expect(report.vacuous).toBe(false);
    expect(report.summary.untested).toBe(0);
    expect(report.endpoints).toHaveLength(CONTRACT.length);
    expect(report.notes.filter((n) => /harness error|could not delete/.test(n))).toEqual([]);
  });

  it('ran every scenario of every family (its declared checks are in the report, none skipped for a missing capability)', () => {
    const counts: Record<string, number> = {};
    for (const family of SCENARIO_SUITES) {
      const checks = checksOfFamily(family.tags);
      for (const s of family.scenarios) {
        for (const declared of s.checks) {
          const found = checks.filter(({ check }) => idMatches(declared, check.id) || check.id.startsWith(`${declared}.`));
          expect(found.length, `${family.name}: ${s.endpoint} ${declared} never recorded`).toBeGreaterThan(0);
          for (const { check } of found)
            expect(check.message, `${family.name} ${check.id}`).not.toMatch(
              /^needs (the simulator control interface|an MQTT client|a non-exempt remote peer)/,
            );
        }
      }
      counts[family.name] = checks.filter(
        ({ check }) => family.scenarios.some((s) => s.checks.some((d) => idMatches(d, check.id))) && check.status === 'pass',
      ).length;
    }
    for (const family of SCENARIO_SUITES) expect(counts[family.name], `${family.name} has no passing scenario check`).toBeGreaterThan(0);
    console.log(
      `scenario checks passed per family (${Math.round(runMs)} ms run): ${Object.entries(counts)
        .map(([f, n]) => `${f} ${n}`)
        .join(', ')}`,
    );
  });

  it('records the capabilities it found: control and an MQTT client through it, no wider loopback exemption', () => {
    expect(report.notes).toContain('capability simulator control interface: available');
    expect(report.notes.some((n) => n.startsWith('capability MQTT client for checks: available via the simulator'))).toBe(true);
    const exemption = report.endpoints.find((e) => e.path === '/api/status')!.checks.find((c) => c.id === 'auth.loopback-exemption');
    expect(exemption?.status).toBe('pass');
  });
});
