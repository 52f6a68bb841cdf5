import type { BaselineComparison, FailureRef, Finding, Report } from '../conform/report-model.ts';

const ref = (f: Finding, endpoints: readonly string[] = f.endpoints): FailureRef => ({
  id: f.id,
  title: f.title,
  level: f.level,
  endpoints: [...endpoints],
});

/**
 * This run against a baseline report, by findings. A finding is NEW when the baseline has no finding
 * with its id, or when it now shows on endpoints where the baseline's did not (then only those
 * endpoints are listed as new); FIXED when a baseline finding has no finding with its id now (on the
 * endpoints this run checked, so a shard compared with a full baseline lists nothing about the other
 * shards). Finding ids are the assertion ids (or `<cause>@<endpoint>`), stable across runs.
 */
export function compareWithBaseline(
  current: Pick<Report, 'findings' | 'endpoints'>,
  baseline: Pick<Report, 'findings' | 'runId'>,
  baselineFile: string,
): BaselineComparison {
  const before = new Map(baseline.findings.map((f) => [f.id, f]));
  const now = new Map(current.findings.map((f) => [f.id, f]));
  const checked = new Set(current.endpoints.map((e) => `${e.method} ${e.path}`));
  const newFindings: FailureRef[] = [];
  let stillFailing = 0;
  for (const f of current.findings) {
    const old = before.get(f.id);
    if (!old) {
      newFindings.push(ref(f));
      continue;
    }
    const grown = f.endpoints.filter((k) => !old.endpoints.includes(k));
    if (grown.length > 0) newFindings.push(ref(f, grown));
    else stillFailing++;
  }
  const fixed = baseline.findings
    .filter((f) => !now.has(f.id) && f.endpoints.some((k) => checked.has(k)))
    .map((f) =>
      ref(
        f,
        f.endpoints.filter((k) => checked.has(k)),
      ),
    );
  return { baselineFile, ...(baseline.runId ? { baselineRunId: baseline.runId } : {}), newFindings, fixed, stillFailing };
}

/** The lines printed after a run with a baseline: counts, then each new and each fixed finding. */
export function baselineLines(b: BaselineComparison, max = 30): string[] {
  const lines = [
    `baseline ${b.baselineFile}${b.baselineRunId ? ` (run ${b.baselineRunId})` : ''}: ${b.newFindings.length} new findings, ${b.fixed.length} fixed, ${b.stillFailing} still present`,
  ];
  const list = (title: string, mark: string, items: readonly FailureRef[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const f of items.slice(0, max))
      lines.push(`  ${mark} [${f.level}] ${f.id} on ${f.endpoints.join(', ')}${mark === '✗' ? `: ${f.title}` : ''}`);
    if (items.length > max) lines.push(`  … and ${items.length - max} more in the report`);
  };
  list('new findings', '✗', b.newFindings);
  list('fixed', '✓', b.fixed);
  return lines;
}
