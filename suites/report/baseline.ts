import { endpointKey, type BaselineComparison, type CheckRecord, type EndpointReport, type FailureRef, type Report } from '../conform/report-model.ts';

function ref(e: EndpointReport, c: CheckRecord): FailureRef {
  return { method: e.method, path: e.path, ...(e.id ? { endpointId: e.id } : {}), id: c.id, level: c.level, message: c.message };
}

/** `METHOD path` → check id → status, for the checks of a report. */
function statusIndex(report: Pick<Report, 'endpoints'>): Map<string, Map<string, CheckRecord['status']>> {
  const index = new Map<string, Map<string, CheckRecord['status']>>();
  for (const e of report.endpoints) {
    const checks = index.get(endpointKey(e)) ?? new Map<string, CheckRecord['status']>();
    // A check id repeated on one endpoint counts as failing when any of its records failed.
    for (const c of e.checks) if (checks.get(c.id) !== 'fail') checks.set(c.id, c.status);
    index.set(endpointKey(e), checks);
  }
  return index;
}

/**
 * This run against a baseline report. Endpoints are matched by method and path, checks by id. A NEW
 * failure fails now and did not fail in the baseline (it passed, was skipped, or did not exist);
 * FIXED failed in the baseline and passes now. Only endpoints of this run are compared, so a shard
 * compared with a full baseline lists nothing about the other shards.
 */
export function compareWithBaseline(current: Pick<Report, 'endpoints'>, baseline: Pick<Report, 'endpoints' | 'runId'>, baselineFile: string): BaselineComparison {
  const before = statusIndex(baseline);
  const newFailures: FailureRef[] = [];
  const fixed: FailureRef[] = [];
  let stillFailing = 0;
  for (const e of current.endpoints) {
    const old = before.get(endpointKey(e));
    const seen = new Set<string>();
    for (const c of e.checks) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      const was = old?.get(c.id);
      const failing = e.checks.some((x) => x.id === c.id && x.status === 'fail');
      const first = failing ? e.checks.find((x) => x.id === c.id && x.status === 'fail')! : c;
      if (failing && was === 'fail') stillFailing++;
      else if (failing) newFailures.push(ref(e, first));
      else if (was === 'fail' && c.status === 'pass') fixed.push(ref(e, first));
    }
  }
  return {
    baselineFile,
    ...(baseline.runId ? { baselineRunId: baseline.runId } : {}),
    newFailures,
    fixed,
    stillFailing,
    newMustFailures: newFailures.filter((f) => f.level === 'MUST').length,
  };
}

/** The lines printed after a run with a baseline: counts, then each new and each fixed failure. */
export function baselineLines(b: BaselineComparison, max = 30): string[] {
  const lines = [`baseline ${b.baselineFile}${b.baselineRunId ? ` (run ${b.baselineRunId})` : ''}: ${b.newFailures.length} new failures (MUST ${b.newMustFailures}), ${b.fixed.length} fixed, ${b.stillFailing} still failing`];
  const list = (title: string, mark: string, items: readonly FailureRef[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const f of items.slice(0, max)) lines.push(`  ${mark} [${f.level}] ${f.method} ${f.path} ${f.id}${mark === '✗' ? `: ${f.message}` : ''}`);
    if (items.length > max) lines.push(`  … and ${items.length - max} more in the report`);
  };
  list('new failures', '✗', b.newFailures);
  list('fixed', '✓', b.fixed);
  return lines;
}
