import { API } from '../../contract/index.ts';
import { PACKAGE_VERSION } from '../../fixtures/package-version.ts';
import type { ApiContract, EndpointContract } from '../../contract/core/types.ts';
import type { Target } from '../targets/target.ts';
import { openTargetSpec } from '../targets/open-target.ts';
import { ConformContext, fixtureNames, succeeded } from '../conform/conform-context.ts';
import { badTokens, runAuthChecks, type BadTokens } from '../conform/checks/auth-checks.ts';
import { runWrongMethodCheck } from '../conform/checks/behaviour-checks.ts';
import { startDetection } from '../conform/checks/capabilities.ts';
import { runEnvelopeInvariants } from '../conform/checks/envelope-invariants.ts';
import { OWN_HAPPY_PATH, runHappyPath } from '../conform/checks/happy-path.ts';
import { runLimitChecks, runOutOfRangeLengthChecks } from '../conform/checks/limit-checks.ts';
import { runListFilters } from '../conform/checks/list-filters.ts';
import { runListLaws } from '../conform/checks/list-laws.ts';
import { runListParamChecks } from '../conform/checks/list-params.ts';
import { runGoneAfterDelete, runShowsCreated } from '../conform/checks/list-visibility.ts';
import { runRequiredParamChecks, runUnknownFieldCheck } from '../conform/checks/param-checks.ts';
import { runRangeChecks } from '../conform/checks/range-checks.ts';
import { runScenarios, type ScenarioSuite } from '../scenarios/index.ts';
import type { Exchange } from '../conform/exchange.ts';
import { populateLists, setUpFixtures } from '../conform/fixture-setup.ts';
import { unmetBase } from '../conform/base-request.ts';
import { connectListedClients, type ListedClients } from '../conform/mqtt-population.ts';
import { parseMqttFlag } from '../conform/mqtt-listener-address.ts';
import { preflight } from '../conform/preflight.ts';
import { buildParams } from '../../contract/minimal-params.ts';
import { ASSERTIONS } from '../../contract/assertions/index.ts';
import { citationOf, specCoverage } from '../conform/coverage.ts';
import { buildFindings } from '../conform/findings.ts';
import { redactReport } from '../conform/redact.ts';
import { recordRunStop } from '../conform/run-stop.ts';
import { WatchedTarget } from '../conform/target-watch.ts';
import {
  applyEndpointStatuses,
  applyVerdict,
  endpointStatusOf,
  summarize,
  vacuousRun,
  type CheckRecord,
  type Citation,
  type EndpointReport,
  type FailOn,
  type Report,
  type RequestStats,
  type ShardSpec,
} from '../conform/report-model.ts';
import { CreatedResources, familyByCreate, familyByDelete, familyByListing, fixtureFields } from '../conform/resource-families.ts';
import { writeReports } from '../report/writers/write-reports.ts';
import { BESIDE_MQTT_PROBE, DEFAULT_CONCURRENCY, planGroups, propertyLanes } from '../conform/endpoint-lanes.ts';
import { runLanes } from '../conform/run-order.ts';
import type { PropertyRunRecord } from '../conform/report-model.ts';
import { DEFAULT_MODEL_RUNS, runPropertySuites, toCheckRecord, type PropertyResult } from '../properties/index.ts';
import { compareWithBaseline } from '../report/baseline.ts';
import type { EndpointProgress } from '../report/progress.ts';
import { selectEndpoints, selectionFlags, shellArg, type SelectionResult } from '../report/selection.ts';

export { SetupError } from '../conform/preflight.ts';

export interface ConformOptions {
  /** A ready target, or a `--target` value (`sim`, `docker:IMAGE`, a URL) for the runner to open (and close). */
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
  /**
   * `--jwt-secret`: the server's token signing secret (config admin.jwt_secret), so the auth checks can
   * send a correctly signed expired token. Never written to a report (the replay reads $MQSIM_JWT_SECRET).
   */
  jwtSecret?: string;
  /** `--peer-address`: the local address the auth checks send from as a peer the spec does not exempt. */
  peerAddress?: string;
  /**
   * `--mqtt HOST:PORT`: the target's MQTT listener, instead of finding it in config get and the node
   * records; `none`: the target has none (the checks that need an MQTT client are skipped, no probe).
   */
  mqtt?: string;
  /** One line per family as the run goes (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
  /** After each endpoint: its position, outcome and the failures so far. */
  onEndpoint?: (progress: EndpointProgress) => void;
  /**
   * The API to check against: its endpoints and resource families (fixtures, family checks, the
   * property suites' model). Default: the built-in contract.
   */
  api?: ApiContract;
  /** Endpoints to check; all of the API's by default. */
  contract?: readonly EndpointContract[];
  /**
   * Scenario suites run besides the built-in ones (suites/scenarios/index.ts), after them, on the
   * endpoints of their tags: a check a test defines (CONTRIBUTING.md's walk-through).
   */
  scenarios?: readonly ScenarioSuite[];
  /**
   * Check only endpoints matching one of these patterns (path glob, endpoint id glob, tag, or
   * `METHOD /path/glob`; comma-separated values allowed), then leave out those matching `skip`.
   * A pattern matching no endpoint throws a SelectionError before the target is opened.
   */
  only?: string | readonly string[];
  skip?: string | readonly string[];
  /** Check one shard of the selection (fixtures are still set up in every shard). */
  shard?: ShardSpec;
  /** An earlier report: only new findings (at the --fail-on level) make the verdict fail; the report lists new and fixed findings. */
  baseline?: { file: string; report: Pick<Report, 'findings' | 'runId'> };
  /** Findings from this level up fail the run (default `must`). */
  failOn?: FailOn;
  /**
   * Endpoints checked at once against a server (families on lanes of their own, `endpoint-lanes.ts`;
   * the report is the same as with 1). Default: 1 for the embedded simulator (one process: nothing
   * to gain), DEFAULT_CONCURRENCY for a URL or container.
   */
  concurrency?: number;
  /** Run the property-based suites after the per-endpoint checks (default true). */
  properties?: boolean;
  /** Runs per property (fast-check numRuns). */
  propertyRuns?: number;
  /** `--property-path`: replay exactly one property case; the per-endpoint checks are left out. */
  propertyPath?: string;
  /** `--depth`: steps per list history (the `history.lists` property; default DEFAULT_HISTORY_DEPTH). */
  depth?: number;
  /** How the run can be repeated, shown in the report. */
  replay?: string;
  runId?: string;
}

/** `2026-11-22T01-02-03Z-sim-seed1`: sortable, readable, safe as a directory name. */
export function runIdOf(startedAt: Date, targetName: string, seed: number): string {
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  const slug = targetName
    .replace(/^https?:\/\//, '')
    .replace(/[^A-Za-z0-9.-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${stamp}-${slug}-seed${seed}`;
}

/** The target to check and whether the run opened it (and so closes it). */
async function openTarget(options: ConformOptions): Promise<{ target: Target; owned: boolean; replayFlags: string[] }> {
  if (typeof options.target !== 'string') return { target: options.target, owned: false, replayFlags: [] };
  return { ...(await openTargetSpec(options.target, options)), owned: true };
}

/**
 * The property-based suites (fast-check, a reference model written from the spec), started once the
 * endpoint checks are done, so the instances they create never meet the list checks; `lanes`
 * properties at once. `checked` is the whole selection: with --shard the properties are dealt to
 * shards on their own, and may use (and report on) endpoints whose other checks another shard runs.
 */
async function runProperties(
  target: Target,
  checked: readonly EndpointContract[],
  options: ConformOptions,
  run: { progress: (line: string) => void; targetFlags: readonly string[]; lanes: number },
): Promise<{ results: PropertyResult[]; record: PropertyRunRecord }> {
  const started = performance.now();
  const numRuns = options.propertyRuns ?? DEFAULT_MODEL_RUNS;
  const results = await runPropertySuites(target, {
    seed: options.seed,
    numRuns,
    contract: checked,
    concurrency: run.lanes,
    ...(options.api ? { api: options.api } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    ...(options.propertyPath ? { path: options.propertyPath } : {}),
    ...(options.depth !== undefined ? { historyDepth: options.depth } : {}),
    ...(options.username !== undefined ? { username: options.username } : {}),
    replayFlags: [...run.targetFlags, ...connectionFlags(options)],
    onProgress: (line) => run.progress(`property         ${line}`),
  });
  const record: PropertyRunRecord = {
    seed: options.seed,
    numRuns,
    ...(options.propertyPath ? { path: options.propertyPath } : {}),
    results: results.length,
    failed: results.filter((r) => r.status === 'fail').length,
    durationMs: Math.round(performance.now() - started),
  };
  return { results, record };
}

/**
 * Each property result becomes a check of its endpoint, after that endpoint's own checks (added
 * when every endpoint check is done, so their place does not depend on when the properties ran); a
 * failure's message carries the seed, the path and the replay command.
 */
function addPropertyChecks(ctx: ConformContext, checked: readonly EndpointContract[], results: readonly PropertyResult[]): void {
  const inRun = new Set(checked.map((e) => e.id));
  for (const r of results) {
    if (!inRun.has(r.endpointId)) continue;
    const list = ctx.results.get(r.endpointId) ?? [];
    list.push(toCheckRecord(r));
    ctx.results.set(r.endpointId, list);
  }
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

/**
 * Every check of one endpoint: its valid request (answer, envelope, data schema, time forms), its
 * family's scenarios (suites/scenarios/<family>.ts), then the generic rules — list laws and filters,
 * required parameters, unknown fields, length limits, numeric ranges and enums, the wrong method, auth.
 */
async function checkEndpoint(
  ctx: ConformContext,
  e: EndpointContract,
  resources: CreatedResources,
  tokens: BadTokens | undefined,
  extraSuites: readonly ScenarioSuite[] = [],
): Promise<void> {
  let happy: Exchange | undefined;
  let params: Record<string, unknown> = baseParams(e);
  // config set and node leave send their valid requests inside their family scenarios.
  if (!OWN_HAPPY_PATH.has(`${e.method} ${e.path}`)) {
    happy = await runHappyPath(ctx, e, resources);
    if (happy) params = buildParams(e, (happy.sent.body as Record<string, unknown> | undefined) ?? queryParams(happy));
  }
  await runScenarios(ctx, e, { ...(happy ? { happy } : {}), params, resources, ...(tokens ? { tokens } : {}) }, extraSuites);

  const deleted = familyByDelete(ctx, e);
  if (deleted && happy && succeeded(happy))
    await runGoneAfterDelete(ctx, e, deleted, fixtureFields(ctx, deleted, '-hp'), ctx.state.listedBeforeDelete.get(e.id));
  if (e.list && happy) {
    await runListLaws(ctx, e, happy, params);
    await runListFilters(ctx, e, happy, params);
    await runListParamChecks(ctx, e, params);
    const listed = familyByListing(ctx, e);
    if (listed) await runShowsCreated(ctx, e, listed, resources, params);
  }
  // The generated checks vary one parameter of a request that must itself be accepted to decide anything.
  const unmet = unmetBase(ctx, e, resources, happy, OWN_HAPPY_PATH.has(`${e.method} ${e.path}`));
  await ctx.withUnmetBase(unmet, async () => {
    await runRequiredParamChecks(ctx, e, params, resources);
    if (happy) await runUnknownFieldCheck(ctx, e, params, resources);
    const family = familyByCreate(ctx, e);
    if (family) await runLimitChecks(ctx, e, family, resources);
    else await runOutOfRangeLengthChecks(ctx, e, params);
    await runRangeChecks(ctx, e, params, resources);
  });
  await runWrongMethodCheck(ctx, e);
  await runAuthChecks(ctx, e, tokens);
}

/** Endpoints checked so far (of `total`), and their failures. */
interface EndpointsDone {
  endpoints: number;
  total: number;
  failures: number;
  mustFailures: number;
}

/** Checks `endpoints` one after another, reporting each as it is done. */
async function checkEndpoints(
  ctx: ConformContext,
  endpoints: readonly EndpointContract[],
  resources: CreatedResources,
  tokens: BadTokens | undefined,
  run: { target: WatchedTarget; durations: Map<string, number>; done: EndpointsDone; options: ConformOptions },
): Promise<void> {
  const { durations, done, options } = run;
  for (const e of endpoints) {
    if (run.target.stopped) break;
    const endpointStart = performance.now();
    try {
      await checkEndpoint(ctx, e, resources, tokens, options.scenarios);
    } catch (err) {
      // A harness bug outside a check: record it on the endpoint and go on with the next one.
      ctx.notes.push(
        `the checks of ${e.method} ${e.path} stopped on a harness error (a bug of mqsim, not a finding about the target): ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`,
      );
    }
    durations.set(e.id, performance.now() - endpointStart);
    reportEndpointDone(
      e,
      ctx.results.get(e.id) ?? [],
      durations.get(e.id)!,
      ++done.endpoints,
      done.total,
      done,
      options.onEndpoint,
      options.failOn ?? 'must',
    );
  }
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

/** Tells the caller one endpoint is done, with the failures of the run so far. */
function reportEndpointDone(
  e: EndpointContract,
  checks: readonly CheckRecord[],
  durationMs: number,
  index: number,
  total: number,
  soFar: { failures: number; mustFailures: number },
  onEndpoint: ConformOptions['onEndpoint'],
  failOn: FailOn,
): void {
  const failed = checks.filter((c) => c.status === 'fail');
  soFar.failures += failed.length;
  soFar.mustFailures += failed.filter((c) => c.level === 'MUST').length;
  onEndpoint?.({
    index,
    total,
    endpoint: { id: e.id, method: e.method, path: e.path, tag: e.tag },
    // Cross-cutting findings are known only at the end: the live status counts every failure at the --fail-on levels.
    status: endpointStatusOf({ id: e.id, checks }, { failOn }),
    checks: checks.length,
    failed: failed.length,
    durationMs,
    failuresSoFar: soFar.failures,
    mustFailuresSoFar: soFar.mustFailures,
  });
}

/**
 * The `mqsim conform` command line that checks the same endpoints the same way. Secrets are never
 * written: the command reads the password from $MQSIM_PASSWORD and the signing secret from $MQSIM_JWT_SECRET.
 */
function replayOf(targetName: string, options: ConformOptions, targetFlags: readonly string[]): string {
  const parts = ['mqsim conform --target', shellArg(targetName), '--seed', String(options.seed), ...targetFlags];
  if (options.username !== undefined) parts.push('--username', shellArg(options.username), '--password "$MQSIM_PASSWORD"');
  parts.push(...connectionFlags(options));
  return `${parts.join(' ')}${selectionFlags(options)}`;
}

/** The flags that reach the target as this run did (other than the login), repeated in every replay command. */
function connectionFlags(options: ConformOptions): string[] {
  const parts: string[] = [];
  if (options.jwtSecret !== undefined) parts.push('--jwt-secret "$MQSIM_JWT_SECRET"');
  if (options.peerAddress !== undefined) parts.push('--peer-address', shellArg(options.peerAddress));
  if (options.mqtt !== undefined) parts.push('--mqtt', shellArg(options.mqtt));
  if (options.rate !== undefined) parts.push('--rate', String(options.rate));
  // The list histories' length: a history replays only at the depth it was generated with.
  if (options.depth !== undefined) parts.push('--depth', String(options.depth));
  return parts;
}

/**
 * Capability detection with the MQTT listener probe and the clients it allows (the run's own in the
 * MQTT lists), in slot -2 of the run order: their requests sort first, where a run that waited for
 * them has them. The exemption probe is awaited; `settled` ends with the probe (up to its list
 * deadline) and the clients' connects, handing them to `onListed` as soon as they are open.
 */
async function startMqttSetUp(
  ctx: ConformContext,
  onListed: (listed: ListedClients) => void,
): Promise<{ settled: Promise<{ capabilityNotes: string[]; listedNotes: string[] }> }> {
  return ctx.order.inSlot(-2, async () => {
    const detection = await startDetection(ctx);
    const settled = (async () => {
      const capabilityNotes = await detection.finish();
      const listed = await connectListedClients(ctx);
      onListed(listed);
      return { capabilityNotes, listedNotes: listed.notes };
    })();
    settled.catch(() => {}); // awaited by the run; a failure ends it as a harness error there
    return { settled };
  });
}

/** One conform run as it goes: what it checks, on which target, and what the phases hand on to the report. */
interface ConformRun {
  options: ConformOptions;
  ctx: ConformContext;
  target: WatchedTarget;
  /** --only/--skip/--shard's selection; `checked` is its shard. */
  selection: SelectionResult<EndpointContract>;
  checked: readonly EndpointContract[];
  /** Time of each endpoint's own checks, by endpoint id. */
  durations: Map<string, number>;
  progress: (line: string) => void;
  /** The flags that open the same target again, for the replay commands. */
  replayFlags: readonly string[];
  /** Endpoints whose checks had started when the per-endpoint phase ended (0 when it never ended). */
  endpointsStarted: number;
  propertyRun?: PropertyRunRecord;
  /** The run's own MQTT clients, open until the per-endpoint checks are done. */
  listedClients?: ListedClients;
  /** The MQTT listener probe and clients are settled and their notes in place. */
  mqttReady?: Promise<void>;
  /** The property suites, once started (their checks join the report when they are done). */
  properties?: Promise<{ results: PropertyResult[]; record: PropertyRunRecord }>;
}

/**
 * Checks every endpoint of the contract on a target and builds the report: fixtures first, then
 * each family's endpoints (valid request, envelope and data schema, documented alternatives,
 * behaviour rules, list laws, missing and unknown parameters, length limits, wrong method, auth),
 * then cleanup and the envelope invariants over every answer seen. Never throws for a target's
 * misbehaviour: each problem becomes a failed check or a note. Throws a SetupError (preflight.ts)
 * before any check when nothing answers, the target is not this API, or the login is refused.
 */
export async function runConform(options: ConformOptions): Promise<Report> {
  const startedAt = new Date();
  const t0 = performance.now();
  const api = options.api ?? API;
  const contract = options.contract ?? api.endpoints;
  // --only/--skip/--shard narrow what is checked; fixtures and cross-endpoint lookups still see the
  // whole contract. Bad patterns throw here, before anything is opened.
  const selection = selectEndpoints(contract, options);
  const noMqtt = options.mqtt === 'none';
  const mqttAddress = options.mqtt !== undefined && !noMqtt ? parseMqttFlag(options.mqtt) : undefined;
  const opened = await openTarget(options);
  const { owned, replayFlags } = opened;
  // Every request goes through the watch: a target that stops answering mid-run ends the run with one finding.
  const target = new WatchedTarget(opened.target);
  // Down, not this API, or credentials refused: one SetupError instead of hundreds of failed checks.
  const ready = await preflight(target).catch(async (e: unknown) => {
    if (owned) await target.close().catch(() => {});
    throw e;
  });
  const ctx = new ConformContext(target, options.seed, contract, api.families);
  ctx.notes.push(...ready.notes);
  if (mqttAddress) ctx.mqttAddress = mqttAddress;
  if (noMqtt) ctx.mqttListenerNone = true;
  // Not login: the spec shows its answer in form A whatever form the other endpoints use.
  ctx.formBNoteAt = selection.selected.find(
    (e) => e.response.kind === 'envelope' && e.id !== 'auth.login' && !OWN_HAPPY_PATH.has(`${e.method} ${e.path}`),
  )?.id;
  const run: ConformRun = {
    options,
    ctx,
    target,
    selection,
    checked: selection.inShard,
    durations: new Map<string, number>(),
    progress: options.onProgress ?? (() => {}),
    replayFlags,
    endpointsStarted: 0,
  };
  try {
    await checkTarget(run);
  } catch (e) {
    // A bug of the harness: keep what was found and say so, rather than losing the run.
    ctx.notes.push(`the run stopped early on a harness error: ${(e as Error)?.stack ?? String(e)}`);
  } finally {
    // The listener probe may still be connecting its clients when the run stopped on a harness error.
    await run.mqttReady?.catch(() => {});
    await run.properties?.catch(() => {});
    await run.listedClients?.close().catch(() => {});
    if (owned) await target.close().catch(() => {});
  }
  return reportOf(run, { startedAt, t0, contract });
}

/**
 * The checks, phase by phase: fixtures beside the MQTT set-up, each family's endpoints, cleanup, the
 * property suites, then the envelope invariants over every answer seen.
 */
async function checkTarget(run: ConformRun): Promise<void> {
  const { ctx, target } = run;
  if (!target.capabilities.remotePeer.available) ctx.notes.push(`auth checks skipped: ${target.capabilities.remotePeer.reason}`);
  const tokens = await badTokens(target.credentials?.username ?? 'admin', target.token);

  const resources = new CreatedResources(ctx);
  ctx.resources = resources;
  const { mqttReady, concurrency } = await setUpFixturesBesideMqtt(run, resources);
  const done = await checkFamilies(run, resources, tokens, concurrency, mqttReady);

  // The property suites start when every endpoint check is done (each family before lists or
  // counts what they create, or, on the simulator, reads its clock, which their requests move);
  // with --concurrency > 1 beside closing the run's MQTT clients and cleanup, which touch nothing
  // of theirs (they work in tenants of their own); with 1 after cleanup, as they always did.
  if (concurrency > 1) startProperties(run, concurrency);
  run.endpointsStarted = done.endpoints;
  await run.listedClients?.close();
  run.listedClients = undefined;
  // Nothing is left to clean up on a target that stopped answering, and nothing more to check.
  if (!target.stopped) ctx.notes.push(...(await resources.cleanup()));
  startProperties(run, concurrency);
  if (run.properties) {
    const { results, record } = await run.properties;
    addPropertyChecks(ctx, run.selection.selected, results);
    run.propertyRun = record;
  }
  for (const e of run.checked) if (!target.stopped || run.durations.has(e.id)) await runEnvelopeInvariants(ctx, e);
}

/** Starts the property suites once (not on a target that stopped answering, nor when they are off). */
function startProperties(run: ConformRun, concurrency: number): void {
  const { target, options } = run;
  if (run.properties || target.stopped || (options.properties === false && !options.propertyPath)) return;
  const lanes = { progress: run.progress, targetFlags: run.replayFlags, lanes: propertyLanes(concurrency) };
  run.properties = runProperties(target, run.selection.selected, options, lanes);
  run.properties.catch(() => {}); // awaited by checkTarget; a failure ends the run as a harness error there
}

/**
 * The fixtures, and the MQTT listener probe with the clients it allows. `mqttReady` settles when the
 * probe and clients are done and the notes are in place (awaited here with --concurrency 1).
 */
async function setUpFixturesBesideMqtt(
  run: ConformRun,
  resources: CreatedResources,
): Promise<{ mqttReady: Promise<void>; concurrency: number }> {
  const { ctx, target, options } = run;
  const fixtureStart = performance.now();
  const concurrency = options.concurrency ?? (target.control ? 1 : DEFAULT_CONCURRENCY);
  // What the target offers decides which checks run; the notes say what is there and what is missing.
  // The MQTT listener probe and the clients it allows run beside the fixtures and the families that
  // never touch MQTT (with --concurrency 1, first, as they always did); slot -2 keeps their requests
  // first in the report, where a run that waited for them has them.
  const { settled } = await startMqttSetUp(ctx, (listed) => (run.listedClients = listed));
  if (concurrency <= 1) await settled;
  const problems = await setUpFixtures(ctx, resources, settled);
  problems.push(...(await populateLists(ctx, resources, run.checked)));
  run.progress(
    `${'fixtures'.padEnd(16)} ${resources.fixtures.size} created in tenant ${fixtureNames(options.seed).tenant}${problems.length ? `, ${problems.length} problems (see notes)` : ''}  ${((performance.now() - fixtureStart) / 1000).toFixed(1)} s`,
  );
  // The notes in the order of a run that waited for the probe first.
  const mqttReady = settled.then(({ capabilityNotes, listedNotes }) => {
    ctx.notes.push(...capabilityNotes, ...problems, ...listedNotes);
  });
  run.mqttReady = mqttReady;
  mqttReady.catch(() => {});
  if (concurrency <= 1) await mqttReady;
  return { mqttReady, concurrency };
}

/**
 * Each family's endpoints (a family is a tag), `concurrency` families at once on lanes of their own;
 * the families that touch MQTT wait for `mqttReady`. Returns how many endpoints were checked.
 */
async function checkFamilies(
  run: ConformRun,
  resources: CreatedResources,
  tokens: BadTokens | undefined,
  concurrency: number,
  mqttReady: Promise<void>,
): Promise<EndpointsDone> {
  const { ctx, target, options, checked, durations, progress } = run;
  // A property replay (--property-path) runs that one property case and nothing else.
  const tags = options.propertyPath ? [] : [...new Set(checked.map((e) => e.tag))];
  const done: EndpointsDone = { endpoints: 0, total: checked.length, failures: 0, mustFailures: 0 };
  if (options.shard && checked.length === 0)
    progress(`shard ${options.shard.index}/${options.shard.count} has no endpoint of the ${run.selection.selected.length} selected`);
  const checkTag = async (tag: string) => {
    if (!BESIDE_MQTT_PROBE.has(tag)) await mqttReady;
    if (target.stopped) return;
    const tagStart = performance.now();
    const endpoints = checked.filter((e) => e.tag === tag);
    await ctx.order.inSlot(tags.indexOf(tag), () =>
      checkEndpoints(ctx, endpoints, resources, tokens, { target, durations, done, options }),
    );
    progress(progressLine(tag, endpoints, ctx, performance.now() - tagStart));
  };
  for (const group of planGroups(tags, concurrency))
    await runLanes(
      group.map((tag) => () => checkTag(tag)),
      concurrency,
    );
  await mqttReady;
  ctx.endConcurrentPhase();
  return done;
}

/** The run's report: built, redacted, compared with the baseline, judged, and written when a directory is given. */
async function reportOf(run: ConformRun, started: { startedAt: Date; t0: number; contract: readonly EndpointContract[] }): Promise<Report> {
  const { ctx, target, options, checked, selection } = run;
  const stopped = target.stopped
    ? await recordRunStop(ctx, target, target.stopped, checked.length ? checked : selection.selected, {
        endpointsChecked: run.endpointsStarted || run.durations.size,
        endpointsSelected: checked.length,
      })
    : undefined;
  if (stopped) run.progress(`the target stopped answering at ${stopped.at} (${stopped.request}): the run ended there`);
  const built = assembleReport(run, started, endpointReports(run), stopped);
  // Every artifact is written from this copy: no secret the target showed (or the run was given) leaves.
  const report = redactReport(built, {
    known: [options.password, target.signingSecret, target.token],
    keep: [options.username, target.credentials?.username],
  });
  if (options.baseline) report.baseline = compareWithBaseline(report, options.baseline.report, options.baseline.file);
  applyVerdict(report);
  if (options.reportDir) writeReports(report, options.reportDir);
  return report;
}

/** Each reported endpoint with its checks and the time they took (statuses are decided with the findings). */
function endpointReports(run: ConformRun): EndpointReport[] {
  const { ctx, options, checked, selection, durations } = run;
  // A shard also reports the checks it ran on other shards' endpoints (its properties'), so merged shards have every check once.
  const reported = options.shard ? selection.selected.filter((e) => checked.includes(e) || ctx.results.has(e.id)) : checked;
  return reported.map((e) => {
    const checks = ctx.results.get(e.id) ?? [];
    // No time of this shard went to the endpoint's own checks.
    const ms = durations.get(e.id) ?? (checked.includes(e) ? undefined : 0);
    return {
      id: e.id,
      method: e.method,
      path: e.path,
      tag: e.tag,
      summary: e.summary,
      status: 'untested',
      checks,
      ...(ms !== undefined ? { durationMs: Math.round(ms) } : {}),
    };
  });
}

/** The report before redaction: the findings, statuses and summary drawn from the endpoints' checks, and what the run was. */
function assembleReport(
  run: ConformRun,
  started: { startedAt: Date; t0: number; contract: readonly EndpointContract[] },
  endpoints: EndpointReport[],
  stopped: Report['stopped'],
): Report {
  const { ctx, target, options, selection, replayFlags } = run;
  const requests = requestStats(ctx.log.exchanges);
  const vac = vacuousRun(requests);
  const citations: Record<string, Citation> = Object.fromEntries(ASSERTIONS.map((a) => [a.id, citationOf(a)]));
  const findings = buildFindings(endpoints, citations);
  const failOn = options.failOn ?? 'must';
  applyEndpointStatuses({ endpoints, findings, failOn });
  const summary = summarize(endpoints, vac.vacuous, findings);
  const finishedAt = new Date();
  const targetName = target.name;
  return {
    tool: { name: 'mqsim', version: PACKAGE_VERSION },
    runId: options.runId ?? runIdOf(started.startedAt, targetName, options.seed),
    target: targetName,
    seed: options.seed,
    startedAt: started.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: Math.round(performance.now() - started.t0),
    replay: options.replay ?? replayOf(targetName, options, replayFlags),
    vacuous: vac.vacuous,
    ...(vac.reason ? { vacuousReason: vac.reason } : {}),
    failOn,
    verdict: 'pass',
    verdictLine: '',
    requests,
    summary,
    findings,
    coverage: specCoverage(ASSERTIONS, endpoints),
    citations,
    endpoints,
    ...(options.shard ? { shard: options.shard } : {}),
    ...(selection.only.length || selection.skip.length || options.shard
      ? {
          selection: {
            only: selection.only,
            skip: selection.skip,
            contractEndpoints: started.contract.length,
            selectedEndpoints: selection.selected.length,
          },
        }
      : {}),
    ...(ctx.capabilities ? { capabilities: ctx.capabilities } : {}),
    ...(run.propertyRun ? { properties: run.propertyRun } : {}),
    notes: ctx.notes,
    ...(stopped ? { stopped } : {}),
  };
}
