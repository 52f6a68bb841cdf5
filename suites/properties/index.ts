import { familyEndpoint } from '../../contract/family-rules.ts';
import { API } from '../../contract/index.ts';
import type { ApiContract, EndpointContract } from '../../contract/core/types.ts';
import type { ShardSpec } from '../conform/report-model.ts';
import { shardOf } from '../report/selection.ts';
import type { Target } from '../targets/target.ts';
import { familyProperty } from './model-based/family-property.ts';
import { PathPacer, PropertyClient, type ClientStats, type Outcome } from './core/property-client.ts';
import type { PropertyDef } from './core/property-def.ts';
import { parsePropertyPath } from './property-path.ts';
import type { PropertyResult } from './property-result.ts';
import { modelledFamilies } from './reference-model/families.ts';
import { requestProperties } from './request-properties.ts';
import { MUST_ONLY, resultsOf, runProperty, type RunSettings } from './run-property.ts';
import { PropertyAbort, PropertyViolation } from './core/violation.ts';
import { levelOf } from './core/citations.ts';
import { DEFAULT_HISTORY_DEPTH, DEFAULT_HISTORY_RUNS, historyProperty, parseHistoryId } from './list-histories/history-property.ts';

export type { PropertyResult } from './property-result.ts';
export { toCheckRecord } from './property-result.ts';
export { parsePropertyPath, formatPropertyPath, replayCommand } from './property-path.ts';
export { modelledFamilies } from './reference-model/families.ts';

export interface PropertySuiteOptions {
  seed: number;
  /** Runs per property (default: 30 for model-based properties, 30 for request properties). */
  numRuns?: number;
  /** `--property-path`: replay exactly one failing case (its property only; `families` is ignored). */
  path?: string;
  /**
   * Families to run (model-based properties and the request properties of their endpoints), by
   * contract tag (`tenants`: the model property of the tenant family is `model.tenants`); `requests`
   * = every request property. Default: all.
   */
  families?: readonly string[];
  /** Called with each failing result as soon as it is known. */
  onFailure?: (r: PropertyResult) => void;
  /** One line per finished property. */
  onProgress?: (line: string) => void;
  /** At the end: every request the properties sent, by outcome (for the report's request counts and the vacuous-run rule). */
  onStats?: (stats: ClientStats & { outcomes: Partial<Record<Outcome, number>> }) => void;
  /** The API: its endpoints and resource families (the reference model's families). Default: the built-in contract. */
  api?: ApiContract;
  /** Endpoints the run may use (e.g. after --only/--skip); default all of the API's. */
  contract?: readonly EndpointContract[];
  /**
   * `--shard i/n`: run only the properties dealt to this shard (round robin over the properties,
   * independently of how the endpoints are dealt), so the shards of a run together run each once.
   * The properties still call any endpoint of `contract`. Ignored when replaying a `path`.
   */
  shard?: ShardSpec;
  /** Commands per model run (default 15). */
  maxCommands?: number;
  /** Properties run at once, each in its own tenant (default 4). */
  concurrency?: number;
  /**
   * Client-side requests per second per path: default 40 (below the spec's default limit of 50), and
   * none for the embedded simulator (a target with a control interface waits out 429s on virtual time)
   * or a target that keeps a per-path budget itself (`capabilities.pacedPerPath`: a URL target).
   */
  ratePerPath?: number;
  /** The `--username` the run was given, repeated in replay commands (absent: the target logs in on its own). */
  username?: string;
  /** Further flags of the run that reach the target the same way (e.g. `--nodes 5`), repeated in replay commands. */
  replayFlags?: readonly string[];
  /** Per property: stop generating and shrinking after this many ms (default 60 000). */
  timeLimitMs?: number;
  /**
   * Four letters or digits put into every name of this invocation (default: random). Names are
   * symbolic in counterexamples, so a replay is the same case whatever the tag; the tag only keeps a
   * replay clear of instances an earlier invocation could not delete (e.g. on a server whose delete
   * is broken).
   */
  runTag?: string;
  /** Steps per list history (`--depth`; default DEFAULT_HISTORY_DEPTH). */
  historyDepth?: number;
  /** List histories run (fast-check numRuns of `history.lists`; default DEFAULT_HISTORY_RUNS). */
  historyRuns?: number;
}

/** A fresh tag of 4 characters [a-z0-9]. */
export function runTagOf(random: () => number = Math.random): string {
  let t = '';
  for (let i = 0; i < 4; i++) t += 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(random() * 36)];
  return t;
}

export const DEFAULT_MODEL_RUNS = 30;
export const DEFAULT_REQUEST_RUNS = 30;

function selected(filter: readonly string[] | undefined, key: string): boolean {
  return !filter || filter.includes(key);
}

/** The tenant family's create, delete and list: the properties work in tenants of their own. */
function tenantEndpoints(api: ApiContract): {
  create: EndpointContract;
  delete: EndpointContract;
  list: EndpointContract;
  nameParam: string;
} {
  const family = api.families.find((f) => f.key === 'tenant');
  const create = family && familyEndpoint(api.endpoints, family, 'create');
  const del = family && familyEndpoint(api.endpoints, family, 'delete');
  const list = family && familyEndpoint(api.endpoints, family, 'list');
  if (!family || !create || !del || !list) throw new Error('the contract has no tenant family with create, delete and list endpoints');
  return { create, delete: del, list, nameParam: family.nameParam };
}

async function pool<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
}

/** The properties of a run: the one a --property-path names, or those of the chosen families in this shard. */
function chosenProperties(
  replay: RunSettings['replay'],
  {
    model,
    requests,
    history,
    historyOf,
  }: {
    model: PropertyDef[];
    requests: PropertyDef[];
    history: PropertyDef | undefined;
    historyOf: (exclude: readonly string[]) => PropertyDef | undefined;
  },
  options: PropertySuiteOptions,
): PropertyDef[] {
  if (replay) {
    const baseId = replay.propertyId.endsWith(MUST_ONLY) ? replay.propertyId.slice(0, -MUST_ONLY.length) : replay.propertyId;
    const excluded = parseHistoryId(baseId);
    const def = excluded ? historyOf(excluded) : [...model, ...requests].find((d) => d.id === baseId);
    if (!def)
      throw new Error(
        `--property-path names property ${JSON.stringify(baseId)}, which this run does not have (known: ${[...(history ? [history] : []), ...model, ...requests].map((d) => d.id).join(', ')})`,
      );
    return [def];
  }
  // A request property belongs to a family by its endpoint's tag (the family keys are the contract's tags).
  return shardOf(
    [
      // First: the longest property starts at once, beside the others.
      ...(history && selected(options.families, 'history') ? [history] : []),
      ...model.filter((d) => selected(options.families, d.id.slice('model.'.length))),
      ...requests.filter((d) => selected(options.families, 'requests') || selected(options.families, d.endpoints[0].tag)),
    ],
    options.shard,
  );
}

function runSettings(target: Target, options: PropertySuiteOptions, replay: RunSettings['replay']): RunSettings {
  const seed = options.seed;
  const settings: RunSettings = {
    seed,
    ...(options.numRuns !== undefined ? { numRuns: options.numRuns } : {}),
    ...(replay ? { replay } : {}),
    targetName: target.name,
    baseUrl: target.baseUrl,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.replayFlags?.length ? { replayFlags: options.replayFlags } : {}),
    timeLimitMs: options.timeLimitMs ?? 60_000,
  };
  return settings;
}

/** Creates the tenant the creates of the request properties work in; the problem when it cannot be made. */
async function createRequestTenant(
  client: PropertyClient,
  tenants: ReturnType<typeof tenantEndpoints>,
  requestTenant: string,
): Promise<string | undefined> {
  try {
    const made = await client.call(tenants.create, {
      [tenants.nameParam]: requestTenant,
      desc: 'mqsim property suites; safe to delete',
    });
    if (made.outcome !== 'ok' && made.outcome !== 'failure') return `the tenant ${requestTenant} could not be created (${made.outcome})`;
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * One property's results: its run, and after a failure of a weaker rule a run looking at MUST rules
 * only; skipped results when it cannot run on this target or the harness fails.
 */
async function propertyResults(
  def: PropertyDef,
  settings: RunSettings,
  requestTenantProblem: string | undefined,
): Promise<PropertyResult[]> {
  const replay = settings.replay;
  const results: PropertyResult[] = [];
  try {
    if (requestTenantProblem && def.id.startsWith('requests.') && def.endpoints[0].method === 'POST')
      throw new PropertyAbort(requestTenantProblem);
    await def.setup?.();
    const minLevel = replay?.propertyId.endsWith(MUST_ONLY) ? 'MUST' : 'INFO';
    const first = await runProperty(def, minLevel, settings);
    results.push(...resultsOf(def, first, settings));
    const err = first.details?.errorInstance;
    // A weaker rule stopped the run: run again looking at MUST rules only, so none hides behind it.
    if (!replay && first.details?.failed && err instanceof PropertyViolation && err.level !== 'MUST') {
      const second = await runProperty(def, 'MUST', settings);
      results.push(...resultsOf(def, second, settings));
    }
  } catch (e) {
    // A replay that fast-check cannot follow is a usage error of --property-path, not a result.
    if (replay && !(e instanceof PropertyAbort)) throw e;
    const abort = e instanceof PropertyAbort;
    // A harness error is a bug of mqsim, not a finding about the target: the property is undecided.
    const message = abort
      ? `not observable on this target: ${e.message}`
      : `not decided: harness error in property ${def.id} (a bug of mqsim, not a finding about the target): ${(e as Error)?.message ?? String(e)}`;
    results.push(...skippedResults(def, message, settings.seed));
  } finally {
    await def.teardown?.().catch(() => undefined);
  }
  return results;
}

/** A skipped result of each of a property's endpoints. */
function skippedResults(def: PropertyDef, message: string, seed: number): PropertyResult[] {
  return def.endpoints.map((ep) => ({
    endpointId: ep.id,
    method: ep.method,
    path: ep.path,
    id: def.checkId,
    assertion: def.assertion,
    level: levelOf(def.assertion),
    status: 'skipped',
    message,
    property: def.id,
    seed,
    numRuns: 0,
    durationMs: 0,
  }));
}

/**
 * Runs the property-based suites against a target: model-based command sequences over the eight
 * families checked against the reference model, and contract-generated valid and invalid requests
 * per endpoint, with the envelope rules on every answer. Each property runs with fast-check under
 * `seed`; a failure is shrunk and carries its --property-path and replay command. Never throws for a
 * target's misbehaviour; throws only for an unusable `path`.
 */
export async function runPropertySuites(target: Target, options: PropertySuiteOptions): Promise<PropertyResult[]> {
  const api = options.api ?? API;
  const contract = options.contract ?? api.endpoints;
  const ids = new Set(contract.map((e) => e.id));
  const tenants = tenantEndpoints(api);
  const families = modelledFamilies(api);
  const client = new PropertyClient(
    target,
    new PathPacer(options.ratePerPath ?? (target.control || target.capabilities.pacedPerPath ? 0 : 40)),
  );
  const seed = options.seed;
  const replay = options.path !== undefined ? parsePropertyPath(options.path) : undefined;
  const requestTenant = `pt${seed}-requests`;
  const maxCommands = options.maxCommands ?? 15;
  const runTag = options.runTag ?? runTagOf();

  const model: PropertyDef[] = families
    .filter((m) => [m.endpoints.create, m.endpoints.delete, m.endpoints.list].every((e) => ids.has(e.id)))
    .map((m) => familyProperty(m, { client, seed, numRuns: options.numRuns ?? DEFAULT_MODEL_RUNS, maxCommands, runTag, tenants }));
  const historyOf = (exclude: readonly string[]) =>
    historyProperty({
      client,
      seed,
      runTag,
      depth: options.historyDepth ?? DEFAULT_HISTORY_DEPTH,
      runs: options.historyRuns ?? DEFAULT_HISTORY_RUNS,
      api,
      endpointIds: ids,
      exclude,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  const history = historyOf([]);
  const requests = requestProperties(contract, families, {
    client,
    seed,
    numRuns: options.numRuns ?? DEFAULT_REQUEST_RUNS,
    tenant: requestTenant,
    runTag,
  });

  const defs = chosenProperties(replay, { model, requests, history, historyOf }, options);
  const settings = runSettings(target, options, replay);

  // The creates of the request properties work in one tenant of the run.
  const needsRequestTenant = defs.some((d) => d.id.startsWith('requests.') && d.endpoints[0].method === 'POST');
  const requestTenantProblem = needsRequestTenant ? await createRequestTenant(client, tenants, requestTenant) : undefined;

  const byDef = new Map<PropertyDef, PropertyResult[]>();
  /** A property and, after a failure, the same property without the failing part (list histories), as long as it fails. */
  const runWithFollowUps = async (first: PropertyDef): Promise<void> => {
    let def: PropertyDef | undefined = first;
    while (def) {
      await runOne(def);
      const failed: PropertyResult | undefined = byDef.get(def)?.find((r) => r.status === 'fail');
      def = !replay && failed ? def.without?.(failed.endpointId) : undefined;
      if (def) defs.push(def);
    }
  };
  const runOne = async (def: PropertyDef): Promise<void> => {
    const started = performance.now();
    const results = await propertyResults(def, settings, requestTenantProblem);
    for (const r of results) if (r.status === 'fail') options.onFailure?.(r);
    const failed = results.filter((r) => r.status === 'fail');
    options.onProgress?.(
      `${def.id.padEnd(44)} ${failed.length ? `FAIL (${failed.map((r) => `${r.level} ${r.endpointId}`).join(', ')})` : results.every((r) => r.status === 'skipped') ? 'skipped' : 'pass'}  ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    byDef.set(def, results);
  };
  await pool([...defs], options.concurrency ?? 4, runWithFollowUps);

  if (needsRequestTenant && !requestTenantProblem)
    await client.call(tenants.delete, { [tenants.nameParam]: requestTenant }).catch(() => undefined);
  options.onStats?.({ ...client.stats, outcomes: { ...client.outcomes } });
  return defs.flatMap((d) => byDef.get(d) ?? []);
}
