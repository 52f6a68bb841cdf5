import { citeRuleOrDecision } from '../../fixtures/contract/assertions/index.ts';
import {
  endpointKey,
  LEVELS,
  type CheckRecord,
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
 * - every other failure belongs to the finding of the assertion it cites, across endpoints (one rule
 *   broken on five lists is one finding with five endpoints);
 * - cascades are folded: a finding made only of property-suite failures is folded under a finding of
 *   the same family (tag) at the same or a higher level, since the property suites re-find what the
 *   scenario checks name more precisely; its checks stay listed under the host.
 * Pure: the runner and `mqsim report merge` build the same findings from the same checks.
 */

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, INFO: 2 };
const stronger = (a: Level, b: Level): Level => (LEVEL_RANK[a] <= LEVEL_RANK[b] ? a : b);

const CAUSE_TITLE: Record<NonNullable<CheckRecord['cause']>, string> = {
  'server-error': 'answers with a server error (HTTP 5xx)',
  transport: 'gives no answer (connection reset, refused or timed out)',
  'non-json': 'answers a body that is not JSON',
  'not-found': 'is not served (HTTP 404, or 405 for its own method)',
};

/**
 * The group a failure belongs to. A missing route is one finding per row of the spec that lists it
 * (two routes of one row, moved together, are one finding); other causes one per endpoint; every
 * other failure goes with its assertion.
 */
function groupKey(e: EndpointReport, c: CheckRecord): { key: string; assertion: string } {
  if (c.cause === 'not-found') {
    const exists = citeRuleOrDecision(c.causeEndpoint ?? e.id, 'exists').id;
    return { key: exists, assertion: exists };
  }
  if (c.cause) return { key: `${c.cause}@${c.causeEndpoint ?? e.id}`, assertion: c.assertion };
  return { key: c.assertion, assertion: c.assertion };
}

interface Group {
  key: string;
  assertion: string;
  level: Level;
  cause?: CheckRecord['cause'];
  endpoints: Map<string, EndpointReport>;
  failures: { e: EndpointReport; c: CheckRecord }[];
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
export function kindOf(checkId: string): string {
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
  'connector.config',
  'connector.type',
  'auth',
  'monitor.missing-dimension',
  'dead-letter',
];

function cut(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

function titleOf(g: Group, citation: Citation | undefined): string {
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
  return {
    id: g.key,
    title: titleOf(g, citation),
    level: g.level,
    assertion: g.assertion,
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
  const groups = new Map<string, Group>();
  for (const e of endpoints) {
    for (const c of e.checks) {
      if (c.status !== 'fail') continue;
      const { key, assertion } = groupKey(e, c);
      let g = groups.get(key);
      if (!g) {
        g = {
          key,
          assertion,
          level: c.cause === 'not-found' ? 'MUST' : c.level,
          ...(c.cause ? { cause: c.cause } : {}),
          endpoints: new Map(),
          failures: [],
        };
        groups.set(key, g);
      }
      // A server-error group takes the assertion of its strongest check (the valid request refused, say).
      if (g.cause && g.cause !== 'not-found' && LEVEL_RANK[c.level] < LEVEL_RANK[g.level]) g.assertion = c.assertion;
      if (g.cause !== 'not-found') g.level = stronger(g.level, c.level);
      g.endpoints.set(e.id, e);
      g.failures.push({ e, c });
    }
  }

  const folded = new Map<Group, string[]>();
  // Fold a group into a stronger (or equal) one that fails the same kinds of check on the same endpoints.
  const sameKind = [...groups.values()].sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || b.failures.length - a.failures.length);
  for (const g of [...sameKind].reverse()) {
    if (g.cause || !groups.has(g.key)) continue;
    const host = sameKind.find((h) => {
      if (h === g || h.cause || !groups.has(h.key) || LEVEL_RANK[h.level] > LEVEL_RANK[g.level]) return false;
      // Same level: the same kinds on the same endpoints. A stronger host: the same kinds on any endpoint
      // (one server bug seen on lists the spec describes and on lists whose shapes come from the notes).
      const strictlyStronger = LEVEL_RANK[h.level] < LEVEL_RANK[g.level];
      const hostKinds = new Set(h.failures.map((f) => (strictlyStronger ? kindOf(f.c.id) : `${f.e.id} ${kindOf(f.c.id)}`)));
      return g.failures.every((f) => !isProperty(f.c) && hostKinds.has(strictlyStronger ? kindOf(f.c.id) : `${f.e.id} ${kindOf(f.c.id)}`));
    });
    if (!host) continue;
    host.failures.push(...g.failures);
    folded.set(host, [...(folded.get(host) ?? []), g.key]);
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
    folded.set(host, [...(folded.get(host) ?? []), g.key]);
  }

  return kept
    .map((g) => ({ ...toFinding(g, citations), ...(folded.has(g) ? { folded: folded.get(g)! } : {}) }))
    .sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || b.endpoints.length - a.endpoints.length || a.id.localeCompare(b.id));
}

/** "3 findings: MUST 1, SHOULD 1, INFO 1". */
export function findingsLine(findings: readonly Finding[]): string {
  const n = (l: Level) => findings.filter((f) => f.level === l).length;
  return `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${LEVELS.map((l) => `${l} ${n(l)}`).join(', ')}`;
}
