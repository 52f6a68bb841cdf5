import { ASSERTIONS } from '../../contract/assertions/index.ts';
import { CONTRACT } from '../../contract/index.ts';
import { citationOf, specCoverage } from '../conform/coverage.ts';
import { buildFindings } from '../conform/findings.ts';
import {
  applyVerdict,
  endpointKey,
  applyEndpointStatuses,
  endpointStatusOf,
  summarize,
  vacuousRun,
  type BaselineComparison,
  type Citation,
  type EndpointReport,
  type FailOn,
  type Report,
  type RequestStats,
  type SelectionRecord,
} from '../conform/report-model.ts';
import { compareWithBaseline } from './baseline.ts';

/** Reports that cannot be combined (different targets, overlapping or missing shards); exit status 2. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

export interface MergeInput {
  file: string;
  report: Report;
}

export interface MergeOptions {
  /** Compare the merged report with this baseline (else the inputs' own comparisons are combined). */
  baseline?: { file: string; report: Pick<Report, 'findings' | 'runId'> };
  /** Findings from this level up fail the merged run (default: the first input's, else `must`). */
  failOn?: FailOn;
}

const CONTRACT_ORDER = new Map(CONTRACT.map((e, i) => [endpointKey(e), i]));

function sumRequests(all: readonly RequestStats[]): RequestStats {
  const byStatus: Record<string, number> = {};
  for (const r of all) for (const [k, v] of Object.entries(r.byStatus ?? {})) byStatus[k] = (byStatus[k] ?? 0) + v;
  const sum = (f: (r: RequestStats) => number) => all.reduce((n, r) => n + (f(r) ?? 0), 0);
  return {
    total: sum((r) => r.total),
    unauthorized: sum((r) => r.unauthorized),
    counted: sum((r) => r.counted),
    answered: sum((r) => r.answered),
    byStatus,
    transportErrors: sum((r) => r.transportErrors),
  };
}

const selectionKey = (s: SelectionRecord | undefined) => JSON.stringify([s?.only ?? [], s?.skip ?? []]);

/** Shards of one selection must all be there: a missing shard would silently drop its endpoints. */
function checkShardsComplete(inputs: readonly MergeInput[]): void {
  const groups = new Map<string, { count: number; seen: Set<number>; files: string[] }>();
  for (const { file, report } of inputs) {
    if (!report.shard) continue;
    const key = shardGroupOf(report);
    const g = groups.get(key) ?? { count: report.shard.count, seen: new Set<number>(), files: [] };
    if (g.seen.has(report.shard.index))
      throw new MergeError(`shard ${report.shard.index}/${report.shard.count} is given twice (${g.files.join(', ')} and ${file})`);
    g.seen.add(report.shard.index);
    g.files.push(file);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    const missing = Array.from({ length: g.count }, (_, i) => i + 1).filter((i) => !g.seen.has(i));
    if (missing.length)
      throw new MergeError(
        `missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${g.count}`).join(', ')} (merged: ${g.files.join(', ')})`,
      );
  }
}

/** Which run's shards a report belongs to: its selection and shard count. */
function shardGroupOf(report: Report): string {
  return `${selectionKey(report.selection)} ${report.shard?.count ?? 0}`;
}

/** One endpoint's checks from two shards of a run, as one entry. */
function combineEndpoint(a: EndpointReport, b: EndpointReport): EndpointReport {
  const checks = [...a.checks, ...b.checks];
  const ms = a.durationMs === undefined && b.durationMs === undefined ? undefined : (a.durationMs ?? 0) + (b.durationMs ?? 0);
  // The status is set again by the rule over the merged findings (applyEndpointStatuses).
  return { ...a, checks, status: endpointStatusOf({ id: a.id, checks }), ...(ms !== undefined ? { durationMs: ms } : {}) };
}

/** The replay commands of the inputs without their `--shard`: one command when the shards split one run. */
function mergedReplay(inputs: readonly MergeInput[]): string {
  const unique = [...new Set(inputs.map((i) => i.report.replay.replace(/ --shard \d+\/\d+/, '')))];
  return unique.join(' ; ');
}

/** The inputs' own baseline comparisons, combined when all were made against the same file. */
function combinedBaseline(inputs: readonly MergeInput[]): BaselineComparison | undefined {
  const all = inputs.map((i) => i.report.baseline);
  if (all.some((b) => !b) || new Set(all.map((b) => b!.baselineFile)).size !== 1) return undefined;
  const list = all as BaselineComparison[];
  return {
    baselineFile: list[0].baselineFile,
    ...(list[0].baselineRunId ? { baselineRunId: list[0].baselineRunId } : {}),
    newFindings: list.flatMap((b) => b.newFindings),
    fixed: list.flatMap((b) => b.fixed),
    stillFailing: list.reduce((n, b) => n + b.stillFailing, 0),
  };
}

/**
 * The inputs' endpoints in contract order, an endpoint reported by several shards of one run combined
 * into one entry; refuses an endpoint present in overlapping runs.
 */
function mergedEndpoints(inputs: readonly MergeInput[]): EndpointReport[] {
  const owner = new Map<string, { file: string; shards?: string; at: number }>();
  const endpoints: { e: EndpointReport; order: number }[] = [];
  // Shards in order, so an endpoint's checks from several shards come in a stable order.
  const ordered = [...inputs].sort((a, b) => (a.report.shard?.index ?? 0) - (b.report.shard?.index ?? 0));
  for (const { file, report } of ordered) {
    const shards = report.shard ? shardGroupOf(report) : undefined;
    for (const e of report.endpoints) {
      const key = endpointKey(e);
      const first = owner.get(key);
      if (first === undefined) {
        owner.set(key, { file, ...(shards ? { shards } : {}), at: endpoints.length });
        endpoints.push({ e, order: CONTRACT_ORDER.get(key) ?? CONTRACT.length + endpoints.length });
        continue;
      }
      // Shards of one run may each report checks on one endpoint (a property dealt to another shard
      // than the endpoint); the same check in two inputs means the runs overlap.
      const held = endpoints[first.at].e;
      const twice = held.checks.find((c) => e.checks.some((d) => d.id === c.id));
      if (!shards || shards !== first.shards || twice) {
        throw new MergeError(
          `${key} is in both ${first.file} and ${file}${twice ? ` (check ${twice.id} in each)` : ''}: merge the shards of one run, not overlapping runs`,
        );
      }
      endpoints[first.at].e = combineEndpoint(held, e);
    }
  }
  endpoints.sort((a, b) => a.order - b.order);
  return endpoints.map((x) => x.e);
}

/** Vacuous when any input was, or when the requests of all of them together make a vacuous run. */
function mergedVacuity(inputs: readonly MergeInput[], requests: Report['requests']): { vacuous: boolean; vacuousReason?: string } {
  const vacuousInputs = inputs.filter((i) => i.report.vacuous);
  const whole = vacuousRun(requests);
  const vacuous = vacuousInputs.length > 0 || whole.vacuous;
  const vacuousReason =
    vacuousInputs.length > 0 ? `${vacuousInputs.map((i) => `${i.file}: ${i.report.vacuousReason ?? 'vacuous'}`).join('; ')}` : whole.reason;
  return { vacuous, vacuousReason };
}

/** From the earliest start to the latest finish of the inputs. */
function mergedSpan(inputs: readonly MergeInput[]): { startedAt: Date; finishedAt: Date } {
  const started = inputs.map((i) => Date.parse(i.report.startedAt)).filter(Number.isFinite);
  const finished = inputs.map((i) => Date.parse(i.report.finishedAt)).filter(Number.isFinite);
  const startedAt = started.length ? new Date(Math.min(...started)) : new Date(0);
  const finishedAt = finished.length ? new Date(Math.max(...finished)) : startedAt;
  return { startedAt, finishedAt };
}

/** The contract's citations, and those only the inputs carry. */
function mergedCitations(inputs: readonly MergeInput[]): Record<string, Citation> {
  const citations: Record<string, Citation> = Object.fromEntries(ASSERTIONS.map((a) => [a.id, citationOf(a)]));
  for (const i of inputs) for (const [id, c] of Object.entries(i.report.citations ?? {})) citations[id] ??= c;
  return citations;
}

/**
 * Combines reports of one target (typically the shards of a run) into one report: endpoints in
 * contract order, counts and verdict recomputed, vacuous when any input was. An endpoint reported by
 * several shards of one run (its own checks in one, a property's in another) becomes one entry with
 * all their checks. Refuses reports of different targets, an endpoint present in overlapping runs
 * (not shards of one run, or the same check twice), and an incomplete set of shards.
 */
export function mergeReports(inputs: readonly MergeInput[], options: MergeOptions = {}): Report {
  if (inputs.length === 0) throw new MergeError('nothing to merge: give at least one report directory');
  const targets = [...new Set(inputs.map((i) => i.report.target))];
  if (targets.length > 1) throw new MergeError(`the reports are of different targets: ${targets.join(', ')}`);
  checkShardsComplete(inputs);

  const merged = mergedEndpoints(inputs);

  const requests = sumRequests(
    inputs.map((i) => i.report.requests ?? { total: 0, unauthorized: 0, counted: 0, answered: 0, byStatus: {}, transportErrors: 0 }),
  );
  const { vacuous, vacuousReason } = mergedVacuity(inputs, requests);

  const first = inputs[0].report;
  const { startedAt, finishedAt } = mergedSpan(inputs);
  const selections = new Set(inputs.map((i) => selectionKey(i.report.selection)));
  const shared = selections.size === 1 ? first.selection : undefined;
  const notes = [...new Set(inputs.flatMap((i) => i.report.notes ?? []))];
  const stoppedInput = inputs.find((i) => i.report.stopped);
  if (stoppedInput)
    notes.push(`${stoppedInput.file}: the target stopped answering at ${stoppedInput.report.stopped!.at}; that run is incomplete`);
  // Findings are made again over all endpoints: a rule broken in two shards is one finding.
  const citations = mergedCitations(inputs);
  const findings = buildFindings(merged, citations);
  const failOn = options.failOn ?? first.failOn ?? 'must';
  applyEndpointStatuses({ endpoints: merged, findings, failOn });
  const baseline = options.baseline
    ? compareWithBaseline({ findings, endpoints: merged }, options.baseline.report, options.baseline.file)
    : combinedBaseline(inputs);
  if (!baseline && inputs.some((i) => i.report.baseline))
    notes.push('the inputs were compared with different baselines (or only some were): pass --baseline to compare the merged report');

  const report: Report = {
    tool: first.tool,
    runId: `${first.runId}-merged`,
    target: first.target,
    seed: first.seed,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: Math.max(0, finishedAt.getTime() - startedAt.getTime()),
    replay: mergedReplay(inputs),
    vacuous,
    ...(vacuous && vacuousReason ? { vacuousReason } : {}),
    failOn,
    verdict: 'pass',
    verdictLine: '',
    requests,
    summary: summarize(merged, vacuous, findings),
    findings,
    coverage: specCoverage(ASSERTIONS, merged),
    citations,
    endpoints: merged,
    ...(shared && (shared.only.length || shared.skip.length) ? { selection: { ...shared, selectedEndpoints: merged.length } } : {}),
    ...(baseline ? { baseline } : {}),
    merged: {
      inputs: inputs.map(({ file, report: r }) => ({
        file,
        runId: r.runId,
        target: r.target,
        seed: r.seed,
        ...(r.shard ? { shard: r.shard } : {}),
        endpoints: r.endpoints.length,
      })),
    },
    notes,
    // An input whose target stopped answering leaves the merge incomplete too (exit status 2).
    ...(stoppedInput ? { stopped: stoppedInput.report.stopped } : {}),
  };
  return applyVerdict(report);
}
