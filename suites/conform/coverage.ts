import type { SpecAssertion } from '../../contract/assertions/index.ts';
import type { Citation, EndpointReport, SpecCoverage } from './report-model.ts';

/** The report's view of an assertion. */
export function citationOf(a: SpecAssertion): Citation {
  return { section: a.section, quote: a.quote, level: a.level, source: a.source, kind: a.kind };
}

/**
 * Spec coverage of a run, like a TCK's: an assertion is tested when a check citing it passed or
 * failed. The others are listed with the reason: no check cites it, or every check citing it was
 * skipped or inconclusive (with the first such message). Assertions marked untestable are listed
 * apart and left out of the testable count.
 */
export function specCoverage(assertions: readonly SpecAssertion[], endpoints: readonly EndpointReport[]): SpecCoverage {
  const run = new Set(endpoints.map((e) => e.id));
  const decided = new Set<string>();
  const why = new Map<string, string>();
  for (const e of endpoints) {
    for (const c of e.checks) {
      for (const a of [c.assertion, ...(c.also ?? [])]) {
        if (c.status === 'pass' || c.status === 'fail') decided.add(a);
        else if (!why.has(a)) why.set(a, `${c.status}: ${c.message} (${e.method} ${e.path} ${c.id})`);
      }
    }
  }
  const testable = assertions.filter((a) => !a.untestable);
  return {
    assertions: assertions.length,
    testable: testable.length,
    tested: testable.filter((a) => decided.has(a.id)).length,
    untested: testable
      .filter((a) => !decided.has(a.id))
      .map((a) => ({ id: a.id, level: a.level, reason: why.get(a.id) ?? uncitedReason(a, run) })),
    untestable: assertions.filter((a) => a.untestable).map((a) => ({ id: a.id, reason: a.untestable! })),
  };
}

/** Why no check of the run cites `a`: its endpoints were left out of the run, or no check of mqsim tests it yet. */
function uncitedReason(a: SpecAssertion, run: ReadonlySet<string>): string {
  const own = [...new Set((a.covers ?? []).flatMap((c) => c.endpoints))];
  if (own.length > 0 && !own.some((id) => run.has(id)))
    return `its endpoints (${own.slice(0, 3).join(', ')}${own.length > 3 ? ', …' : ''}) were not checked in this run`;
  if (a.gap) return `no check yet: ${a.gap}`;
  return 'no check of this run cites it';
}

/** "spec coverage: 212 of 240 testable assertions tested (88%)". */
export function coverageLine(c: SpecCoverage): string {
  const pct = c.testable === 0 ? 0 : Math.round((c.tested / c.testable) * 100);
  return `spec coverage: ${c.tested} of ${c.testable} testable assertions tested (${pct}%); ${c.untested.length} untested, ${c.untestable.length} not testable over HTTP`;
}
