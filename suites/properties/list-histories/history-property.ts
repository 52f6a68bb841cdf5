import fc from 'fast-check';
import { A } from '../../conform/cite.ts';
import type { Level } from '../../conform/report-model.ts';
import type { ApiContract, EndpointContract } from '../../../contract/core/types.ts';
import type { PropertyClient } from '../core/property-client.ts';
import type { PropertyDef } from '../core/property-def.ts';
import { PropertyAbort, PropertyViolation } from '../core/violation.ts';
import { History, HistoryArbitrary, parseReplayPath } from './history-arbitrary.ts';
import { HistoryRun, OtherCause, type CauseLock } from './history-run.ts';
import { describeStep, stepSources, type Step } from './history-steps.ts';
import { historyFamilies, type HistoryFamily } from './list-families.ts';
import { sweepLeftovers } from './leftovers.ts';

/**
 * The list histories as a property of the property suites (`history.lists`, check
 * `property.history.lists`): fast-check generates histories of `depth` steps over every covered
 * family, each run in tenants of its own, judged step by step; a failure shrinks (held to its first
 * cause) to the shortest history showing it. After a failure on one family's list, the same
 * property without that family looks for other causes (`history.lists.except-<tags>`).
 */

const HISTORY_PROPERTY = 'history.lists';
/** Steps per history by default: with the default runs, a few seconds against a served simulator. */
export const DEFAULT_HISTORY_DEPTH = 400;
export const DEFAULT_HISTORY_RUNS = 2;

export interface HistoryPropertyOptions {
  client: PropertyClient;
  seed: number;
  /** Four letters or digits of this invocation (see runTagOf). */
  runTag: string;
  depth: number;
  runs: number;
  api: ApiContract;
  /** Endpoint ids the run may use; a family needs its create, delete and list among them. */
  endpointIds: ReadonlySet<string>;
  /** Family tags left out (the re-run after a failure on one of them). */
  exclude?: readonly string[];
  /** A line now and then on long runs. */
  onProgress?: (line: string) => void;
}

/** `history.lists.except-acl.users` → the tags left out; undefined when `id` is not a history property. */
export function parseHistoryId(id: string): string[] | undefined {
  if (id === HISTORY_PROPERTY) return [];
  const prefix = `${HISTORY_PROPERTY}.except-`;
  return id.startsWith(prefix) ? id.slice(prefix.length).split('.') : undefined;
}

function historyId(exclude: readonly string[]): string {
  return exclude.length === 0 ? HISTORY_PROPERTY : `${HISTORY_PROPERTY}.except-${[...exclude].sort().join('.')}`;
}

/** The run's base name: the seed, the invocation's tag and the run's number, letters and digits only. */
function baseName(seed: number, runTag: string, run: number): string {
  return `${seedStem(seed)}${runTag}${run.toString(36).padStart(4, '0')}`;
}

/** What every base name of a seed starts with (`h<seed>x`), so an interrupted invocation's leftovers can be found. */
function seedStem(seed: number): string {
  return `h${Math.abs(Math.trunc(seed))}x`;
}

function endpointsOf(h: HistoryFamily): EndpointContract[] {
  const e = h.endpoints;
  return [
    e.create,
    e.delete,
    e.list,
    ...(e.update ? [e.update] : []),
    ...(h.binding ? [h.binding.create, h.binding.delete, h.binding.list] : []),
  ];
}

/**
 * The families whose lists the target serves, each with the sort fields it accepts. A family whose
 * list does not answer is left out (`out`, with the reason); a sort field the spec's own paragraph does
 * not list (a decision, the reference notes) may be refused (`unsorted`).
 */
async function servedLists(
  client: PropertyClient,
  families: readonly HistoryFamily[],
  stem: string,
): Promise<{ served: HistoryFamily[]; out: string[]; unsorted: string[] }> {
  const out: string[] = [];
  const served: HistoryFamily[] = [];
  const unsorted: string[] = [];
  for (const h of families) {
    const scope = h.family.scopeParam ? h.filters[0] : h.filters.find((x) => x.source.kind === 'name')!;
    const probe = await client.call(h.endpoints.list, { [scope.param]: stem, limit: 1, page: 1 });
    if (probe.outcome !== 'ok') {
      out.push(`${h.tag} (${probe.outcome})`);
      continue;
    }
    const sortFields = [];
    for (const sf of h.sortFields) {
      const own = sf.assertion.startsWith('endpoints.');
      const tried = own
        ? undefined
        : await client.call(h.endpoints.list, { [scope.param]: stem, sort_field: sf.field, sort_by: 'asc', limit: 1, page: 1 });
      if (!tried || tried.outcome === 'ok') sortFields.push(sf);
      else unsorted.push(`${h.tag} ${sf.field}`);
    }
    served.push({ ...h, sortFields });
  }
  return { served, out, unsorted };
}

/** Runs a history's steps, recording each step's line as it goes, then the final reads of every list. */
async function playHistory(run: HistoryRun, history: History<Step>, progress: (done: number) => void): Promise<void> {
  for (const [i, step] of history.steps.entries()) {
    history.ran = i + 1;
    history.lines.push(describeStep(step));
    history.lines[i] = await run.run(step, i);
    progress(i + 1);
  }
  history.ran = history.steps.length;
  history.failedAfterSteps = true;
  await run.finalReads();
  history.failedAfterSteps = false;
}

/** The property, or undefined when the run's endpoints leave no family with a list to judge. */
export function historyProperty(o: HistoryPropertyOptions): PropertyDef | undefined {
  const exclude = o.exclude ?? [];
  const all = historyFamilies(o.api);
  // The run's tenants hold every other family's instances: the tenant family's endpoints are used
  // (as the model properties use them) whether or not its list is judged.
  const tenants = all.find((h) => !h.family.scopeParam);
  const families = all.filter(
    (h) => !exclude.includes(h.tag) && [h.endpoints.create, h.endpoints.delete, h.endpoints.list].every((e) => o.endpointIds.has(e.id)),
  );
  if (!tenants || families.length === 0) return undefined;
  const client = o.client.child();
  let served = families;
  let runs = 0;
  const say = o.onProgress ?? (() => {});

  const def: PropertyDef = {
    id: historyId(exclude),
    checkId: `property.${historyId(exclude)}`,
    endpoints: families.flatMap(endpointsOf),
    assertion: A.pagedData,
    commands: true,
    numRuns: o.runs,
    ownRuns: true,
    client,

    async setup() {
      const swept = await sweepLeftovers(client, tenants, all, seedStem(o.seed));
      if (swept > 0) say(`${def.id}: deleted ${swept} leftovers of an interrupted run with seed ${o.seed}`);
      const probed = await servedLists(client, families, seedStem(o.seed));
      served = probed.served;
      const { out, unsorted } = probed;
      if (served.length === 0) throw new PropertyAbort(`no list answers (${out.join(', ')})`);
      if (out.length > 0) say(`${def.id}: left out, their lists do not answer: ${out.join(', ')}`);
      if (unsorted.length > 0) say(`${def.id}: not sorted by, refused (fields the spec's paragraph does not list): ${unsorted.join(', ')}`);
    },

    build(minLevel: Level, replayPath?: string) {
      const arb = new HistoryArbitrary(stepSources(served), o.depth, parseReplayPath(replayPath));
      // Each check (and the MUST-only one after a weaker failure) shrinks toward its own first cause.
      const lock: CauseLock = {};
      return fc.asyncProperty(arb, async (history: History<Step>) => {
        if (def.aborted) throw def.aborted;
        const n = ++runs;
        const base = baseName(o.seed, o.runTag, n);
        const run = new HistoryRun({ client, families: served, tenants, base, baseUrl: client.target.baseUrl, minLevel, lock });
        let lastSay = performance.now();
        // A line every few seconds on long runs, like the other suites' progress.
        const progress = (done: number) => {
          if (performance.now() - lastSay < 5000) return;
          lastSay = performance.now();
          say(`${def.id}: run ${n}, step ${done} of ${history.steps.length}, ${run.judged} lists judged`);
        };
        try {
          history.lines = [];
          history.failedAfterSteps = false;
          delete history.focus;
          if (!(await run.setUp())) throw new PropertyAbort(`the run's tenants ${base}s and ${base}ss could not be created`);
          await playHistory(run, history, progress);
        } catch (e) {
          if (e instanceof PropertyViolation) {
            const failing = served.findIndex((h) => endpointsOf(h).some((x) => x.id === e.endpointId));
            if (failing >= 0) history.focus = failing;
          }
          if (e instanceof PropertyAbort) def.aborted = e;
          // A failure of another cause than the one being shrunk: not a counterexample of it.
          if (e instanceof OtherCause) return;
          throw e;
        } finally {
          await run.cleanUp();
        }
      });
    },

    describe(value: unknown): string[] {
      const h = value as History<Step>;
      if (!(h instanceof History)) return [String(value)];
      const lines = h.lines.length > 0 ? h.lines.slice(0, h.ran) : h.steps.slice(0, h.ran).map(describeStep);
      return [...lines, ...(h.failedAfterSteps ? ['then the whole list of each family it wrote to, sorted and in pages'] : [])];
    },

    without(endpointId: string): PropertyDef | undefined {
      const h = families.find((x) => endpointsOf(x).some((e) => e.id === endpointId));
      if (!h) return undefined;
      return historyProperty({ ...o, exclude: [...exclude, h.tag] });
    },
  };
  return def;
}
