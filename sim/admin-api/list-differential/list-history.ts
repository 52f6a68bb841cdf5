/**
 * The differential, model-based test of list answers: long random histories of model writes and
 * list requests against the admin app (through its HTTP layer: routing, validation, handler, the
 * indexed list query, the response cache and remembered list requests when on), every list answer compared
 * byte for byte with the reference answer (reference-answer.ts) computed at the same moment.
 *
 * Commands (fast-check `fc.commands`): a write of one list's records (list-writes.ts), virtual time
 * passing, a new request of a list (list-queries.ts), and a recent request again: as it was (the
 * cached response and the remembered request are read back), with its keys in another order, with its
 * parameters in a GET's JSON body, in the other sort direction (the same filter both ways), or all
 * recent requests after a write. The model is the requests asked so far. A difference throws
 * `ListAnswerDifference`, which ends the run: fast-check then shrinks the history and reports it
 * with its seed, path and replay path. docs/lists.md says what it proves.
 */
import fc from 'fast-check';
import { CONTRACT, endpointById } from '../../../contract/index.ts';
import { OperationError } from '../../model/errors/operation-error.ts';
import type { EnvelopeForm } from '../envelope.ts';
import { InProcessSim } from '../in-process-client.ts';
import { bodyOf, describeQuery, flipped, inBody, listQueryArb, reordered, sendsBody, urlOf, type ListQuery } from './list-queries.ts';
import { ADVANCE, configureListFeeds, LIST_WRITES, type ListWrite } from './list-writes.ts';
import { referenceAnswer, type ListAnswer } from './reference-answer.ts';

/** Every list endpoint of the contract. */
export const LIST_ENDPOINT_IDS: readonly string[] = CONTRACT.filter((e) => e.list).map((e) => e.id);

export interface ListHistoryOptions {
  /** Cache list responses and answer remembered list requests from the cache (the app's default), or compute every response. */
  readonly responseCache: boolean;
  /** The list endpoints whose records are written and which are asked (default: every one). */
  readonly lists?: readonly string[];
  /**
   * Most lists one history writes and asks, drawn from `lists` per history (default 3): a few lists
   * per history get many writes and requests each, deep enough for a fault that needs a request, a
   * write of the same list and the request again. `lists.length`: every history mixes them all.
   */
  readonly focus?: number;
  /** Most commands in one history. */
  readonly maxSteps: number;
  /** The envelope form the app answers in (default A). */
  readonly envelope?: EnvelopeForm;
  /**
   * The app's verification mode (AdminAppOptions.verifyWriters): each cached response is also computed
   * afresh, a remembered request resolved again, and a list handler that records anything fails.
   */
  readonly verify?: boolean;
  /** The replay path fast-check printed with a shrunk history (with its seed and path), to run exactly it. */
  readonly replayPath?: string;
}

/** What the histories did, over all runs of a check. */
export interface HistoryStats {
  /** Commands run (writes, time passing, requests). */
  steps: number;
  /** List requests compared with the reference. */
  requests: number;
  /** Largest total_count seen per list (a test over empty lists would prove nothing). */
  readonly largest: Map<string, number>;
  /** Commands run when the first difference was found (undefined: none). */
  stepsToFirstDifference?: number;
}

export function newHistoryStats(): HistoryStats {
  return { steps: 0, requests: 0, largest: new Map() };
}

/** A list answer of the app that is not the reference's. */
export class ListAnswerDifference extends Error {
  constructor(
    readonly query: ListQuery,
    readonly expected: ListAnswer,
    readonly actual: ListAnswer,
  ) {
    super(
      `${describeQuery(query)} answered ${actual.status} ${clip(actual.body)}\n  the reference answers ${expected.status} ${clip(expected.body)}`,
    );
    this.name = 'ListAnswerDifference';
  }
}

const clip = (s: string): string => (s.length > 600 ? `${s.slice(0, 600)}… (${s.length} chars)` : s);

interface Model {
  readonly asked: ListQuery[];
}

interface Real {
  readonly sim: InProcessSim;
  readonly stats: HistoryStats;
}

type Step = fc.AsyncCommand<Model, Real>;

/** Sends `query` to the app and compares its answer with the reference's. */
async function ask(real: Real, query: ListQuery): Promise<void> {
  const { sim, stats } = real;
  const endpoint = endpointById(query.id);
  const res = await sim.call(endpoint.method, urlOf(query), sendsBody(query) ? bodyOf(query) : undefined, { nodeId: query.nodeId });
  const expected = await referenceAnswer(sim.cluster, query, sim.app.envelope);
  stats.requests++;
  if (res.status !== expected.status || res.text !== expected.body) {
    stats.stepsToFirstDifference ??= stats.steps;
    throw new ListAnswerDifference(query, expected, { status: res.status, body: res.text });
  }
  const total = (JSON.parse(expected.body) as { data?: { total_count?: number } }).data?.total_count;
  if (typeof total === 'number' && total > (stats.largest.get(query.id) ?? 0)) stats.largest.set(query.id, total);
}

class WriteStep implements Step {
  constructor(readonly write: ListWrite) {}
  check(): boolean {
    return true;
  }
  async run(_m: Model, r: Real): Promise<void> {
    r.stats.steps++;
    try {
      this.write.run(r.sim.cluster, r.sim);
    } catch (e) {
      // A refusal (a duplicate, a missing record) is part of the history; anything else is a bug.
      if (!(e instanceof OperationError)) throw e;
    }
  }
  toString(): string {
    return this.write.label;
  }
}

class RequestStep implements Step {
  constructor(readonly query: ListQuery) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.stats.steps++;
    m.asked.push(this.query);
    await ask(r, this.query);
  }
  toString(): string {
    return describeQuery(this.query);
  }
}

/** How far back an earlier request is picked: the recent ones, so few writes fall between. */
const RECENT = 6;

/** An earlier recent request again, as it was or with its keys reversed, or in the other sort direction. */
class AgainStep implements Step {
  /** The request sent the last time it ran (for the report). */
  private sent: ListQuery | undefined;
  constructor(
    readonly pick: number,
    readonly how: 'same' | 'reordered' | 'flipped' | 'in-body',
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.asked.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.stats.steps++;
    const earlier = m.asked[m.asked.length - 1 - (this.pick % Math.min(RECENT, m.asked.length))];
    const variant = { same: (q: ListQuery) => q, reordered, flipped, 'in-body': inBody }[this.how];
    this.sent = variant(earlier);
    if (this.how === 'flipped') m.asked.push(this.sent);
    await ask(r, this.sent);
  }
  toString(): string {
    return `${this.how === 'same' ? 'again' : this.how} #${this.pick}${this.sent ? `: ${describeQuery(this.sent)}` : ''}`;
  }
}

/** Every recent request again, oldest first: after a write, each must see it (nothing kept may outlive it). */
class RecentAgainStep implements Step {
  check(m: Readonly<Model>): boolean {
    return m.asked.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.stats.steps++;
    for (const q of m.asked.slice(-RECENT)) await ask(r, q);
  }
  toString(): string {
    return 'recent requests again';
  }
}

/** The commands of a history over `lists`: writes (each list alike), time, requests, requests again. */
function historyCommands(lists: readonly string[], options: ListHistoryOptions): fc.Arbitrary<Iterable<Step>> {
  // Each list's writes alike; time passing (costly: every node's timers run) a fifth as often as one list's.
  const writes = fc.oneof(...lists.map((id) => ({ weight: 5, arbitrary: fc.oneof(...LIST_WRITES[id]) })), {
    weight: 1,
    arbitrary: ADVANCE,
  });
  const requests = fc.oneof(...lists.map((id) => listQueryArb(id)));
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 10, arbitrary: writes.map((w) => new WriteStep(w)) },
    { weight: 6, arbitrary: requests.map((q) => new RequestStep(q)) },
    { weight: 2, arbitrary: fc.nat().map((n) => new AgainStep(n, 'same')) },
    { weight: 1, arbitrary: fc.nat().map((n) => new AgainStep(n, 'reordered')) },
    { weight: 1, arbitrary: fc.nat().map((n) => new AgainStep(n, 'in-body')) },
    { weight: 2, arbitrary: fc.nat().map((n) => new AgainStep(n, 'flipped')) },
    { weight: 2, arbitrary: fc.constant(null).map(() => new RecentAgainStep()) },
  );
  return fc.commands([step], { maxCommands: options.maxSteps, size: 'max', replayPath: options.replayPath });
}

/** A history: the lists it is about (at most `focus` of `lists`), then its commands. */
function historyArb(options: ListHistoryOptions): fc.Arbitrary<{ lists: readonly string[]; steps: Iterable<Step> }> {
  const lists = options.lists ?? LIST_ENDPOINT_IDS;
  for (const id of lists) {
    if (!LIST_WRITES[id])
      throw new Error(`no writes for list endpoint ${id}: add its generators to sim/admin-api/list-differential/list-writes.ts`);
  }
  const focus = Math.min(options.focus ?? 3, lists.length);
  const chosen = focus === lists.length ? fc.constant(lists) : fc.subarray([...lists], { minLength: 1, maxLength: focus });
  return chosen.chain((of) => historyCommands(of, options).map((steps) => ({ lists: of, steps })));
}

/** A fresh cluster (two nodes, no workload) and its app, with the list feeds on and the admin rate limit lifted. */
export function historySim(responseCache: boolean, envelope: EnvelopeForm = 'A', verify = false): InProcessSim {
  const sim = new InProcessSim(
    { seed: 'list-differential', workload: 'none', nodes: 2 },
    { responseCache, envelope, verifyWriters: verify },
  );
  sim.advance(5_000);
  configureListFeeds(sim.cluster);
  sim.cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: 1_000_000_000 });
  return sim;
}

/** The property: every history of these commands gets the reference's answer to every list request. */
function listHistoryProperty(
  options: ListHistoryOptions,
  stats: HistoryStats,
): fc.IAsyncPropertyWithHooks<[{ lists: readonly string[]; steps: Iterable<Step> }]> {
  return fc.asyncProperty(historyArb(options), async ({ steps }) => {
    await fc.asyncModelRun(
      () => ({ model: { asked: [] }, real: { sim: historySim(options.responseCache, options.envelope, options.verify), stats } }),
      steps,
    );
  });
}

/** Commands that ran in a (shrunk) history. */
export function stepsThatRan(history: { steps: Iterable<unknown> }): number {
  let n = 0;
  for (const c of history.steps) if ((c as { hasRan?: boolean }).hasRan) n++;
  return n;
}

/** How a check of histories is run: fast-check's seed (and path, to replay one history), and how many. */
export interface HistoryRun {
  readonly seed: number;
  readonly numRuns: number;
  /** A counterexample's path (with `replayPath` in the options): that shrunk history alone. */
  readonly path?: string;
}

export type HistoryDetails = fc.RunDetails<[{ lists: readonly string[]; steps: Iterable<Step> }]>;

/** Runs `run.numRuns` histories (fewer when one differs: it is then shrunk); the stats count every step. */
export async function checkListHistories(options: ListHistoryOptions, run: HistoryRun, stats = newHistoryStats()): Promise<HistoryDetails> {
  return fc.check(listHistoryProperty(options, stats), { seed: run.seed, numRuns: run.numRuns, ...(run.path ? { path: run.path } : {}) });
}

/** What a failed check found: the difference, the shrunk history, and how to run it again. */
export function describeFailure(details: HistoryDetails): string {
  if (!details.failed) return 'no difference';
  const history = details.counterexample?.[0];
  const replayPath = replayPathOf(details);
  const lines = [
    String(details.errorInstance instanceof Error ? details.errorInstance.message : details.errorInstance),
    `after ${details.numRuns} histories, shrunk ${details.numShrinks} times to ${history ? stepsThatRan(history) : '?'} steps over ${history?.lists.join(', ')}:`,
    ...(history ? [...history.steps].filter((c) => (c as { hasRan?: boolean }).hasRan).map((c) => `  ${String(c)}`) : []),
    `seed ${details.seed}, path ${JSON.stringify(details.counterexamplePath)}${replayPath ? `, replay path ${JSON.stringify(replayPath)}` : ''}`,
  ];
  return lines.join('\n');
}

/** The replay path of a failed check's shrunk history (for `replayPath`), if it has one. */
export function replayPathOf(details: HistoryDetails): string | undefined {
  const history = details.counterexample?.[0];
  const quoted = history ? /replayPath=("(?:[^"\\]|\\.)*")/.exec(String(history.steps))?.[1] : undefined;
  return quoted === undefined ? undefined : (JSON.parse(quoted) as string);
}
