import { citeRuleOrDecision } from '../../contract/assertions/index.ts';
import { isCrossCutting } from './cross-cutting.ts';
import {
  checkKey,
  endpointKey,
  type CheckRecord,
  type CheckRule,
  type Citation,
  type EndpointReport,
  type Finding,
  type FindingCheck,
  type Level,
} from './report-model.ts';

/**
 * Failed checks grouped into findings by cause, so a team reads one line per broken rule instead of
 * one per check:
 * - a failure whose answer was a server error, a transport failure or not JSON belongs to the finding
 *   `<cause>@<endpoint id>`: everything that went wrong on that endpoint because it cannot answer;
 * - a consequence (a check resting on an earlier check that failed: the read-back of a refused set)
 *   belongs to the finding of that earlier check, and does not raise its level;
 * - a failure naming its rule (`CheckRecord.rule`: a URL scheme rule stated in the rows of four
 *   connector types) belongs to the finding of that rule, titled by what is wrong and where it showed;
 * - every other failure belongs to the finding of the assertion it cites, across endpoints (one rule
 *   broken on five lists is one finding with five endpoints);
 * - cascades are folded: the same kind of check failing under a weaker assertion, and a finding made
 *   only of property-suite failures under a finding of the same family (tag) at the same or a higher
 *   level, since the property suites re-find what the scenario checks name more precisely; the folded
 *   checks stay listed under the host.
 * A finding of an API-wide rule shown on many endpoints is marked cross-cutting (cross-cutting.ts).
 * Pure: the runner and `mqsim report merge` build the same findings from the same checks.
 */

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, INFO: 2 };
const stronger = (a: Level, b: Level): Level => (LEVEL_RANK[a] <= LEVEL_RANK[b] ? a : b);

const CAUSE_TITLE: Record<NonNullable<CheckRecord['cause']>, string> = {
  'server-error': 'answers with a server error (HTTP 5xx)',
  transport: 'gives no answer (connection reset, refused or timed out)',
  'non-json': 'answers a body that is not JSON',
  'not-found': 'is not served (HTTP 404, or 405 for its own method)',
  stopped: 'got no answer: the target had stopped answering',
};

/** The one finding of a run whose target stopped answering (its failures are every request lost to the stop). */
const TARGET_STOPPED = 'target-stopped';
/** The check that states when and where the target stopped (its message is the finding's title). */
export const TARGET_STOPPED_CHECK = 'run.target-stopped';

/** A failed check and the endpoint it was recorded on. */
interface Failure {
  e: EndpointReport;
  c: CheckRecord;
}

/** The group key of a failure by its own evidence (its cause, rule or assertion), before consequences. */
function ownGroup(e: EndpointReport, c: CheckRecord): { key: string; assertion: string } {
  if (c.cause === 'not-found') {
    const exists = citeRuleOrDecision(c.causeEndpoint ?? e.id, 'exists').id;
    return { key: exists, assertion: exists };
  }
  if (c.cause === 'stopped') return { key: TARGET_STOPPED, assertion: 'endpoints.health.ready.status' };
  if (c.cause) return { key: `${c.cause}@${c.causeEndpoint ?? e.id}`, assertion: c.assertion };
  if (c.rule) return { key: c.rule.id, assertion: c.assertion };
  return { key: c.assertion, assertion: c.assertion };
}

/**
 * The group a failure belongs to. A missing route is one finding per row of the spec that lists it
 * (two routes of one row, moved together, are one finding); other causes one per endpoint; a
 * consequence goes with the failure it rests on (followed to the first cause); a failure naming its
 * rule with that rule; every other failure with its assertion.
 */
function groupOf(f: Failure, failures: ReadonlyMap<string, Failure>): { key: string; assertion: string; consequence?: string } {
  const own = ownGroup(f.e, f.c);
  if (f.c.cause) return own;
  const seen = new Set<Failure>([f]);
  let cause = f;
  while (cause.c.consequenceOf) {
    const next = failures.get(checkKey(cause.c.consequenceOf.endpoint, cause.c.consequenceOf.check));
    if (!next || seen.has(next)) break;
    seen.add(next);
    cause = next;
  }
  if (cause === f) return own;
  return { ...ownGroup(cause.e, cause.c), consequence: own.key };
}

interface Group {
  key: string;
  assertion: string;
  level: Level;
  cause?: CheckRecord['cause'];
  /** The rule its failures name (a rule group). */
  rule?: CheckRule;
  endpoints: Map<string, EndpointReport>;
  failures: Failure[];
}

/**
 * A property failure that re-finds what a scenario check names more precisely (folded under its
 * family's finding). The list histories are not: they cite the list statement their cause breaks, as
 * the list laws do, so theirs are findings of their own (or join that assertion's).
 */
const isProperty = (c: CheckRecord) => c.id.startsWith('property.') && !c.id.startsWith('property.history.');

/**
 * The kind of a check: its id without the part that names a field or value (`list.sort.name` and
 * `list.sort.tenant` are one sort law; `limit.name.length-129` and `limit.desc.length-501` one
 * limit rule). The same kind failing on one endpoint under two assertions is one bug of the server
 * seen through two fields (say a sort the spec lists and one the project added).
 */
export function kindOf(checkId: string, rule?: CheckRule): string {
  if (rule) return `rule ${rule.id}`;
  const kind = PARAMETRISED.find((p) => checkId === p || checkId.startsWith(`${p}.`));
  return kind ?? checkId;
}

/** Checks generated once per field, parameter or value: one law each, however many ids. */
const PARAMETRISED = [
  'list.sort',
  'list.filter_values',
  'list.filter',
  'limit',
  'range',
  'enum',
  'required',
  'failure-strategy',
  // Not `connector.config`: its generated cases name their rules, and its other checks are a decision each.
  'connector.type',
  'auth',
  'monitor.missing-dimension',
  'dead-letter',
];

function cut(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** "connector configs: a URL … is accepted (webhook, clickhouse, influxdb)": what is wrong, then where it showed. */
function ruleTitle(g: Group, rule: CheckRule): string {
  const subjects = [...new Set(g.failures.map((f) => f.c.rule?.subject).filter((x): x is string => x !== undefined))];
  const where = subjects.length > 0 ? subjects : [...g.endpoints.values()].map(endpointKey);
  const shown = where.length > 8 ? `${where.slice(0, 8).join(', ')} and ${where.length - 8} more` : where.join(', ');
  return `${rule.wrong} (${shown})`;
}

function titleOf(g: Group, citation: Citation | undefined): string {
  if (g.rule) return ruleTitle(g, g.rule);
  if (g.cause === 'stopped') {
    const stop = g.failures.find((f) => f.c.id === TARGET_STOPPED_CHECK);
    return stop ? stop.c.message : `${g.failures.length} requests ${CAUSE_TITLE.stopped}`;
  }
  const where = [...g.endpoints.values()];
  if (g.cause === 'not-found') return `${[...g.endpoints.values()].map(endpointKey).join(', ')} ${CAUSE_TITLE['not-found']}`;
  if (g.cause) {
    const id = g.key.slice(g.key.indexOf('@') + 1);
    const at = g.endpoints.get(id);
    return `${at ? endpointKey(at) : id} ${CAUSE_TITLE[g.cause]}`;
  }
  const first = g.failures.find((f) => !isProperty(f.c)) ?? g.failures[0];
  const more =
    g.failures.length > 1 ? ` (${g.failures.length} failed checks on ${where.length} endpoint${where.length === 1 ? '' : 's'})` : '';
  const rule = citation ? ` — ${cut(citation.quote, 90)}` : '';
  return `${cut(first.c.message, 160)}${more}${rule}`;
}

function toFinding(g: Group, citations: Readonly<Record<string, Citation>>): Finding {
  const citation = citations[g.assertion];
  const checks: FindingCheck[] = g.failures.map(({ e, c }) => ({
    endpoint: e.id,
    key: endpointKey(e),
    id: c.id,
    level: c.level,
    message: c.message,
  }));
  const shown = g.failures.find((f) => f.c.response || f.c.request) ?? g.failures[0];
  const assertions = [...new Set(g.failures.filter((f) => !f.c.consequenceOf).map((f) => f.c.assertion))];
  return {
    id: g.key,
    title: titleOf(g, citation),
    level: g.level,
    assertion: g.assertion,
    ...(g.rule && assertions.length > 1 ? { assertions } : {}),
    ...(citation ? { citation } : {}),
    endpoints: [...g.endpoints.values()].map(endpointKey),
    checks,
    example: {
      check: shown.c.id,
      ...(shown.c.request ? { request: shown.c.request } : {}),
      ...(shown.c.response ? { response: shown.c.response } : {}),
      ...(shown.c.curl ? { curl: shown.c.curl } : {}),
    },
  };
}

/** The findings of a set of endpoint reports, MUST first, then by the number of endpoints. */
export function buildFindings(endpoints: readonly EndpointReport[], citations: Readonly<Record<string, Citation>>): Finding[] {
  const failures = new Map<string, Failure>();
  for (const e of endpoints) for (const c of e.checks) if (c.status === 'fail') failures.set(checkKey(e.id, c.id), { e, c });
  const groups = new Map<string, Group>();
  const folded = new Map<Group, string[]>();
  // Causes before their consequences, so a consequence finds the group of its cause made.
  const ordered = [...failures.values()].sort((a, b) => Number(!!a.c.consequenceOf) - Number(!!b.c.consequenceOf));
  for (const f of ordered) {
    const { e, c } = f;
    const { key, assertion, consequence } = groupOf(f, failures);
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        assertion,
        // A missing route and a stopped target break MUST rules (the Index row, the readiness probe's).
        level: c.cause === 'not-found' || c.cause === 'stopped' ? 'MUST' : c.level,
        ...(c.cause ? { cause: c.cause } : {}),
        ...(c.rule && !consequence ? { rule: c.rule } : {}),
        endpoints: new Map(),
        failures: [],
      };
      groups.set(key, g);
    }
    if (consequence) {
      // A consequence is listed under its cause, named among the folded ids, and never raises the level.
      if (consequence !== key && !(folded.get(g) ?? []).includes(consequence)) folded.set(g, [...(folded.get(g) ?? []), consequence]);
    } else {
      // A server-error group takes the assertion of its strongest check (the valid request refused, say).
      const fixedCause = g.cause === 'not-found' || g.cause === 'stopped';
      if (g.cause && !fixedCause && LEVEL_RANK[c.level] < LEVEL_RANK[g.level]) g.assertion = c.assertion;
      // A rule group cites the assertion of its strongest check.
      if (g.rule && LEVEL_RANK[c.level] < LEVEL_RANK[g.level]) g.assertion = c.assertion;
      if (!fixedCause) g.level = stronger(g.level, c.level);
    }
    g.endpoints.set(e.id, e);
    g.failures.push(f);
  }

  // Fold a group into a stronger (or equal) one that fails the same kinds of check on the same endpoints.
  const sameKind = [...groups.values()].sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || b.failures.length - a.failures.length);
  for (const g of [...sameKind].reverse()) {
    if (g.cause || !groups.has(g.key)) continue;
    const host = sameKind.find((h) => {
      if (h === g || h.cause || !groups.has(h.key) || LEVEL_RANK[h.level] > LEVEL_RANK[g.level]) return false;
      // Same level: the same kinds on the same endpoints. A stronger host: the same kinds on any endpoint
      // (one server bug seen on lists the spec describes and on lists whose shapes come from the notes).
      const strictlyStronger = LEVEL_RANK[h.level] < LEVEL_RANK[g.level];
      const kind = (f: Failure) => (strictlyStronger ? kindOf(f.c.id, f.c.rule) : `${f.e.id} ${kindOf(f.c.id, f.c.rule)}`);
      const hostKinds = new Set(h.failures.map(kind));
      return g.failures.every((f) => !isProperty(f.c) && hostKinds.has(kind(f)));
    });
    if (!host) continue;
    host.failures.push(...g.failures);
    folded.set(host, [...(folded.get(host) ?? []), g.key, ...(folded.get(g) ?? [])]);
    groups.delete(g.key);
  }

  // Fold property-only groups under a group of the same family.
  const all = [...groups.values()];
  const hosts = all.filter((g) => !g.failures.every((f) => isProperty(f.c)));
  const kept: Group[] = [...hosts];
  for (const g of all.filter((x) => x.failures.every((f) => isProperty(f.c)))) {
    const tags = new Set([...g.endpoints.values()].map((e) => e.tag));
    const host = hosts
      .filter((h) => LEVEL_RANK[h.level] <= LEVEL_RANK[g.level] && [...h.endpoints.values()].some((e) => tags.has(e.tag)))
      .sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level])[0];
    if (!host) {
      kept.push(g);
      continue;
    }
    for (const [id, e] of g.endpoints) host.endpoints.set(id, e);
    host.failures.push(...g.failures);
    folded.set(host, [...(folded.get(host) ?? []), g.key, ...(folded.get(g) ?? [])]);
  }

  return kept
    .map((g) => {
      const finding: Finding = { ...toFinding(g, citations), ...(folded.has(g) ? { folded: folded.get(g)! } : {}) };
      return isCrossCutting(finding, endpoints.length) ? { ...finding, crossCutting: true } : finding;
    })
    .sort(
      (a, b) =>
        Number(b.id === TARGET_STOPPED) - Number(a.id === TARGET_STOPPED) ||
        LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
        b.endpoints.length - a.endpoints.length ||
        a.id.localeCompare(b.id),
    );
}
