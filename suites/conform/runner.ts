import { readFileSync } from 'node:fs';
import { CONTRACT } from '../../fixtures/contract/index.ts';
import type { EndpointContract } from '../../fixtures/contract/types.ts';
import type { Target } from '../targets/target.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { ConformContext, fail, fixtureNames, succeeded } from './conform-context.ts';
import { badTokens, runAuthChecks, runLoginChecks, type BadTokens } from './checks/auth-checks.ts';
import {
  runConfigForwarding,
  runConfigRoundTrip,
  runErrorCaseChecks,
  runHealthChecks,
  runMonitorChecks,
  runMonitorTypes,
  runNodeLeaveChecks,
  runTokenLifetime,
  runUpdateVisible,
  runWrongMethodCheck,
} from './checks/behaviour-checks.ts';
import { runConnectorStates, runOverviewConsistency, runReplicaInvariants, runTenantDefaults } from './checks/consistency-checks.ts';
import { runEnvelopeInvariants } from './checks/envelope-invariants.ts';
import { runHappyPath } from './checks/happy-path.ts';
import { runLimitChecks } from './checks/limit-checks.ts';
import { runGoneAfterDelete, runListFilters, runListLaws, runShowsCreated } from './checks/list-laws.ts';
import { runRequiredParamChecks, runUnknownFieldCheck } from './checks/param-checks.ts';
import type { Exchange } from './exchange.ts';
import { setUpFixtures } from './fixture-setup.ts';
import { buildParams } from './param-values.ts';
import { endpointStatusOf, exitCodeOf, summarize, vacuousRun, verdictLineOf, type CheckRecord, type EndpointReport, type Report, type RequestStats } from './report-model.ts';
import { CreatedResources, familyByCreatePath, familyByDeletePath, RESOURCE_FAMILIES } from './resource-families.ts';
import { writeReports } from './writers/write-reports.ts';

export interface ConformOptions {
  /** A ready target, or `sim` / a URL for the runner to open (and close). */
  target: Target | string;
  seed: number;
  /** When given, report.json, index.html and junit.xml are written there. */
  reportDir?: string;
  timeoutMs?: number;
  rate?: number;
  /** Cluster size when the target is `sim`. */
  nodes?: number;
  username?: string;
  password?: string;
  /** One line per family as the run goes (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
  /** Endpoints to check; the whole contract by default. */
  contract?: readonly EndpointContract[];
  /** How the run can be repeated, shown in the report. */
  replay?: string;
  runId?: string;
}

function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** `2026-11-22T01-02-03Z-sim-seed1`: sortable, readable, safe as a directory name. */
export function runIdOf(startedAt: Date, targetName: string, seed: number): string {
  const stamp = startedAt.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
  const slug = targetName === 'sim' ? 'sim' : targetName.replace(/^https?:\/\//, '').replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${stamp}-${slug}-seed${seed}`;
}

async function openTarget(options: ConformOptions): Promise<{ target: Target; owned: boolean }> {
  if (typeof options.target !== 'string') return { target: options.target, owned: false };
  if (options.target === 'sim') {
    // Loaded lazily: the sim adapter is the one door from suites/ into sim/.
    const { SimTarget } = await import('../targets/sim-target.ts');
    return { target: await SimTarget.start({ seed: options.seed, ...(options.nodes ? { nodes: options.nodes } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.rate ? { rate: options.rate } : {}) }), owned: true };
  }
  const target = await UrlTarget.create({
    url: options.target,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.rate ? { rate: options.rate } : {}),
  });
  return { target, owned: true };
}

function requestStats(exchanges: readonly Exchange[]): RequestStats {
  const byStatus: Record<string, number> = {};
  let unauthorized = 0;
  let counted = 0;
  let answered = 0;
  let transportErrors = 0;
  for (const x of exchanges) {
    const status = x.response ? String(x.response.status) : 'error';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (!x.response) transportErrors++;
    if (x.purpose === 'auth') continue;
    counted++;
    if (x.response) answered++;
    if (x.response?.status === 401) unauthorized++;
  }
  return { total: exchanges.length, unauthorized, counted, answered, byStatus, transportErrors };
}

/** Parameters a check can start from when the valid request could not be built. */
function baseParams(e: EndpointContract): Record<string, unknown> {
  if (e.path === '/api/cluster/config/set') return { config_type: 'MqttSlowSubscribeConfig', config: '{}' };
  if (e.path === '/api/cluster/node/leave') return { node_id: 0 };
  return buildParams(e, {});
}

async function checkEndpoint(ctx: ConformContext, e: EndpointContract, resources: CreatedResources, tokens: BadTokens | undefined): Promise<void> {
  const key = `${e.method} ${e.path}`;
  let happy: Exchange | undefined;
  let params: Record<string, unknown> = baseParams(e);
  if (key === 'POST /api/cluster/config/set') await runConfigRoundTrip(ctx, e);
  else if (key === 'POST /api/cluster/node/leave') await runNodeLeaveChecks(ctx, e);
  else {
    happy = await runHappyPath(ctx, e, resources);
    if (happy) params = buildParams(e, (happy.sent.body as Record<string, unknown> | undefined) ?? queryParams(happy));
  }

  if (e.path.startsWith('/health/')) await runHealthChecks(ctx, e, happy);
  if (key === 'GET /api/mqtt/monitor/data') {
    await runMonitorChecks(ctx, e, happy);
    await runMonitorTypes(ctx, e);
  }
  await runErrorCaseChecks(ctx, e);
  await runUpdateVisible(ctx, e, happy);
  await runConfigForwarding(ctx, e);
  await runOverviewConsistency(ctx, e);
  await runConnectorStates(ctx, e, happy);
  await runTenantDefaults(ctx, e, resources);
  await runReplicaInvariants(ctx, e, resources);
  if (e.path === '/api/v1/login') {
    await runLoginChecks(ctx, e, ctx.contract.find((x) => x.method === 'GET' && x.auth === 'token' && x.path.startsWith('/api/') && x.response.kind === 'envelope' && !x.params.some((p) => p.required)));
    await runTokenLifetime(ctx, e, happy);
  }
  const deleted = e.method === 'POST' ? familyByDeletePath(e.path) : undefined;
  if (deleted && happy && succeeded(happy)) await runGoneAfterDelete(ctx, e, deleted, deleted.fields(ctx, '-hp'));

  if (e.list && happy) {
    await runListLaws(ctx, e, happy, params);
    await runListFilters(ctx, e, happy, params);
    const family = RESOURCE_FAMILIES.find((f) => f.listPath === e.path);
    if (family) await runShowsCreated(ctx, e, family, resources, params);
  }
  await runRequiredParamChecks(ctx, e, params, resources);
  if (happy) await runUnknownFieldCheck(ctx, e, params, resources);
  const family = e.method === 'POST' ? familyByCreatePath(e.path) : undefined;
  if (family) await runLimitChecks(ctx, e, family, resources);
  await runWrongMethodCheck(ctx, e);
  await runAuthChecks(ctx, e, tokens);
}

/** The parameters a GET exchange sent, read back from its query (for checks that vary them). */
function queryParams(ex: Exchange): Record<string, unknown> {
  const q = ex.sent.query;
  if (!q || typeof q === 'string') return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) if (v !== undefined) out[k] = v;
  return out;
}

function progressLine(tag: string, endpoints: readonly EndpointContract[], ctx: ConformContext, ms: number): string {
  const checks: CheckRecord[] = endpoints.flatMap((e) => ctx.results.get(e.id) ?? []);
  const failed = checks.filter((c) => c.status === 'fail');
  const must = failed.filter((c) => c.level === 'MUST').length;
  return `${tag.padEnd(16)} ${String(endpoints.length).padStart(2)} endpoints ${String(checks.length).padStart(4)} checks ${String(checks.filter((c) => c.status === 'pass').length).padStart(4)} passed ${String(failed.length).padStart(3)} failed${must ? ` (MUST ${must})` : ''} ${String(checks.filter((c) => c.status === 'skipped').length).padStart(3)} skipped  ${(ms / 1000).toFixed(1)} s`;
}

/**
 * Checks every endpoint of the contract on a target and builds the report: fixtures first, then
 * each family's endpoints (valid request, envelope and data schema, documented alternatives,
 * behaviour rules, list laws, missing and unknown parameters, length limits, wrong method, auth),
 * then cleanup and the envelope invariants over every answer seen. Never throws for a target's
 * misbehaviour: each problem becomes a failed check or a note.
 */
export async function runConform(options: ConformOptions): Promise<Report> {
  const startedAt = new Date();
  const t0 = performance.now();
  const contract = options.contract ?? CONTRACT;
  const progress = options.onProgress ?? (() => {});
  const { target, owned } = await openTarget(options);
  const ctx = new ConformContext(target, options.seed, contract);
  try {
    if (target.credentials) {
      try {
        const res = await target.login();
        if (!target.token) ctx.notes.push(`login with the given credentials failed: HTTP ${res.status} ${res.text.slice(0, 160)}; requests carry no token`);
      } catch (e) {
        ctx.notes.push(`login with the given credentials failed: ${(e as Error).message}`);
      }
    }
    if (!target.capabilities.remotePeer.available) ctx.notes.push(`auth checks skipped: ${target.capabilities.remotePeer.reason}`);
    const tokens = await badTokens(target.credentials?.username ?? 'admin', target.token);

    const resources = new CreatedResources(ctx);
    const fixtureStart = performance.now();
    const problems = await setUpFixtures(ctx, resources);
    ctx.notes.push(...problems);
    progress(`${'fixtures'.padEnd(16)} ${resources.fixtures.size} created in tenant ${fixtureNames(options.seed).tenant}${problems.length ? `, ${problems.length} problems (see notes)` : ''}  ${((performance.now() - fixtureStart) / 1000).toFixed(1)} s`);

    const tags = [...new Set(contract.map((e) => e.tag))];
    for (const tag of tags) {
      const tagStart = performance.now();
      const endpoints = contract.filter((e) => e.tag === tag);
      for (const e of endpoints) {
        try {
          await checkEndpoint(ctx, e, resources, tokens);
        } catch (err) {
          // A harness bug outside a check: record it on the endpoint and go on with the next one.
          await ctx.check(e, 'harness', 'MUST', () => fail(`the checks of this endpoint stopped on a harness error: ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`));
        }
      }
      progress(progressLine(tag, endpoints, ctx, performance.now() - tagStart));
    }

    const leftovers = await resources.cleanup();
    ctx.notes.push(...leftovers);
    for (const e of contract) await runEnvelopeInvariants(ctx, e);
  } catch (e) {
    // A bug of the harness: keep what was found and say so, rather than losing the run.
    ctx.notes.push(`the run stopped early on a harness error: ${(e as Error)?.stack ?? String(e)}`);
  } finally {
    if (owned) await target.close().catch(() => {});
  }

  const endpoints: EndpointReport[] = contract.map((e) => {
    const checks = ctx.results.get(e.id) ?? [];
    return { id: e.id, method: e.method, path: e.path, tag: e.tag, summary: e.summary, status: endpointStatusOf(checks), checks };
  });
  const requests = requestStats(ctx.log.exchanges);
  const vac = vacuousRun(requests);
  const summary = summarize(endpoints, vac.vacuous);
  const finishedAt = new Date();
  const targetName = target.name;
  const report: Report = {
    tool: { name: 'mqsim', version: toolVersion() },
    runId: options.runId ?? runIdOf(startedAt, targetName, options.seed),
    target: targetName,
    seed: options.seed,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    replay: options.replay ?? `mqsim conform --target ${targetName} --seed ${options.seed}${target.credentials ? ` --username ${target.credentials.username} --password '…'` : ''}`,
    vacuous: vac.vacuous,
    ...(vac.reason ? { vacuousReason: vac.reason } : {}),
    verdict: 'pass',
    verdictLine: '',
    requests,
    summary,
    endpoints,
    notes: ctx.notes,
  };
  report.verdict = exitCodeOf(report) === 0 ? 'pass' : 'fail';
  report.verdictLine = verdictLineOf(summary, vac.vacuous, vac.reason);
  if (options.reportDir) writeReports(report, options.reportDir);
  return report;
}
