import {
  crossCuttingChecks,
  failsEndpoint,
  type CheckRecord,
  type EndpointReport,
  type Report,
  type StatusRule,
} from '../../conform/report-model.ts';
import { htmlEscape } from './html-escape.ts';

/**
 * What the HTML report loads on demand: each failed check's exchange (request, response, curl) and
 * each endpoint's list of checks, in one JSON data block that the page script turns into text when
 * a failure or an endpoint is opened. Each distinct text is stored once: a server giving the same
 * answer to a hundred checks costs one copy, and the page holds no markup for what nobody opens. A
 * data block is not run (its type is not JavaScript) and the script sets its texts as textContent,
 * so nothing in it can become markup.
 */

/** One failure's exchange: indexes into the text table (-1: absent), and the answer's time in ms (-1: unknown). */
type FailureEntry = [request: number, responseHead: number, responseBody: number, ms: number, curl: number];
/** One check of an endpoint's list: status, level, id, assertion, message (text indexes), and its failure's element id. */
type CheckEntry = [status: number, level: number, id: number, assertion: number, message: number, failure?: string];

/** The data block's content. */
export interface PageData {
  texts: string[];
  /** By the failure's element id. */
  failures: Record<string, FailureEntry>;
  /** By the endpoint section's element id. */
  checks: Record<string, CheckEntry[]>;
}

/** A table of distinct texts, by first appearance. */
class TextTable {
  readonly texts: string[] = [];
  private readonly index = new Map<string, number>();

  add(text: string | undefined): number {
    if (text === undefined) return -1;
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.texts.length;
      this.texts.push(text);
      this.index.set(text, i);
    }
    return i;
  }
}

/** The request as a person reads it: method and path, the Authorization sent, the body. */
export function requestText(r: NonNullable<CheckRecord['request']>): string {
  const body = r.body === undefined ? '' : `\n\n${typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2)}`;
  const auth =
    r.authorization === undefined
      ? ''
      : `\nAuthorization: ${r.authorization === 'token' ? 'Bearer <the run’s token>' : r.authorization === 'none' ? '(none)' : r.authorization}`;
  return `${r.method} ${r.path}${r.asRemotePeer ? '\n(sent from a non-loopback address)' : ''}${auth}${body}`;
}

/** The status line and media type of an answer, or the transport error instead of one. */
export function responseHead(r: NonNullable<CheckRecord['response']>): string {
  return r.error ? `transport error: ${r.error}` : `HTTP ${r.status}${r.contentType ? `\nContent-Type: ${r.contentType}` : ''}`;
}

/** JSON for a `<script type="application/json">` block: no `<` at all, so no `</script>` can end it early. */
function dataBlockJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STATUS_CODES = ['pass', 'fail', 'inconclusive', 'skipped'] as const;
const LEVEL_CODES = ['MUST', 'SHOULD', 'INFO'] as const;

/** The page's on-demand parts: the data block, and the element id and collapsed line of every failed check. */
export class OnDemand {
  private readonly table = new TextTable();
  private readonly data: PageData = { texts: this.table.texts, failures: {}, checks: {} };
  /** Element id of each failed check's line. */
  readonly anchors = new Map<CheckRecord, string>();
  private readonly rule: StatusRule;

  constructor(
    private readonly report: Report,
    keys: ReadonlyMap<EndpointReport, number>,
  ) {
    this.rule = { failOn: report.failOn ?? 'must', crossCutting: crossCuttingChecks(report.findings ?? []) };
    for (const e of report.endpoints) {
      const k = keys.get(e);
      e.checks.forEach((c, j) => {
        if (c.status !== 'fail') return;
        const anchor = `f-${k}-${j}`;
        this.anchors.set(c, anchor);
        // The curl command repeats the request: the request is written out only without one.
        this.data.failures[anchor] = [
          this.table.add(c.request && !c.curl ? requestText(c.request) : undefined),
          this.table.add(c.response ? responseHead(c.response) : undefined),
          this.table.add(c.response && !c.response.error ? c.response.body : undefined),
          c.response?.durationMs ?? -1,
          this.table.add(c.curl),
        ];
      });
      this.data.checks[`d-${k}`] = e.checks.map((c) => {
        const entry: CheckEntry = [
          STATUS_CODES.indexOf(c.status),
          LEVEL_CODES.indexOf(c.level),
          this.table.add(c.id),
          this.table.add(c.assertion),
          this.table.add(c.message),
        ];
        const anchor = this.anchors.get(c);
        if (anchor) entry.push(anchor);
        return entry;
      });
    }
  }

  /**
   * The collapsed line of one failed check (inside its finding's card): level, endpoint, check,
   * message, and whether it fails its endpoint; its exchange is filled in when opened.
   */
  failureLine(e: EndpointReport, c: CheckRecord): string {
    const anchor = this.anchors.get(c)!;
    const consequence = c.consequenceOf
      ? ` <span class="lv">(a consequence of <code>${htmlEscape(c.consequenceOf.check)}</code>)</span>`
      : '';
    const mark = failsEndpoint(e.id, c, this.rule) ? '✗' : '·';
    return `<details class="failure" id="${anchor}" data-tag="${htmlEscape(e.tag)}" data-level="${htmlEscape(c.level)}"><summary>${newMark(this.report, e, c)}${mark} <span class="lv">${htmlEscape(c.level)}</span> <code>${htmlEscape(e.method)} ${htmlEscape(e.path)}</code> · <code>${htmlEscape(c.id)}</code> — ${htmlEscape(c.message)}${consequence}</summary><div class="x"></div></details>`;
  }

  /** The data block. */
  block(): string {
    return `<script type="application/json" id="page-data">${dataBlockJson(this.data)}</script>`;
  }
}

/** With a baseline: NEW when the check's finding is new on this endpoint, else known. */
function newMark(report: Report, e: EndpointReport, c: CheckRecord): string {
  if (!report.baseline) return '';
  const finding = report.findings.find((f) => f.checks.some((x) => x.endpoint === e.id && x.id === c.id));
  const isNew = !!finding && report.baseline.newFindings.some((f) => f.id === finding.id && f.endpoints.includes(`${e.method} ${e.path}`));
  return isNew ? '<span class="new">NEW</span> ' : '<span class="lv">known (in baseline)</span> ';
}
