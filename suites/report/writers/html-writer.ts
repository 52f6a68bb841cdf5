import { shellArg, selectionFlags } from '../selection.ts';
import {
  checkKey,
  crossCuttingChecks,
  failingLevels,
  type CheckRecord,
  type CheckStatus,
  type EndpointReport,
  type EndpointStatus,
  type FailureRef,
  type Finding,
  type Level,
  type Report,
} from '../../conform/report-model.ts';
import { renderChart, STATUS_COLORS } from './html-chart.ts';
import { htmlEscape } from './html-escape.ts';
import { OnDemand, requestText, responseHead } from './html-failures.ts';
import { FILTER_SCRIPT, FILTER_SCRIPT_HASH } from './html-script.ts';

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];
const STATUSES: readonly EndpointStatus[] = ['pass', 'fail', 'inconclusive', 'skipped', 'untested'];

/**
 * Nothing may load from anywhere (the page works offline and a hostile response body cannot pull
 * anything in); the only script allowed is the filter script, by its hash.
 */
const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${FILTER_SCRIPT_HASH}; base-uri 'none'; form-action 'none'`;

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px} h3{font-size:14px;margin:0 0 6px}
.meta{color:#5b6475;margin-bottom:12px} code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{background:#f0f2f5;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-all;margin:4px 0;max-height:320px;overflow:auto}
.warn{background:#fff4d6;border:1px solid #e0b400;padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600}
.warn.vacuous{background:#fde7e7;border-color:#d64545;font-size:16px}
.verdict{padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600}
.verdict.pass{background:#e3f6e8;border:1px solid #3aa55d}.verdict.fail{background:#fde7e7;border:1px solid #d64545}
.summary{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
.cards{display:grid;grid-template-columns:repeat(4,minmax(96px,1fr));gap:8px;max-width:520px}.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:5px 10px;font-size:12px;color:#5b6475}
.card b{display:block;font-size:18px;color:#1d2330}
.chart{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px}.chart .lbl{font-size:12px;fill:#1d2330}.chart .head{font-weight:600}.chart .num{font-size:11px;fill:#5b6475}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7}
td,th{padding:4px 8px;border-bottom:1px solid #eceff3;text-align:left;vertical-align:top}
tr.group th{background:#eef1f5;font-size:13px} tr.ep:hover{background:#f6f8fb}
td.lvl{font:12px ui-monospace,Menlo,Consolas,monospace;white-space:nowrap;text-align:center}
td.lvl.fail{background:#fbd9d9}td.lvl.pass{background:#e3f6e8}td.lvl.skipped{background:#eef0f3}td.lvl.none{color:#aab}td.lvl.below{background:#fff0c2}
#matrix.hide-MUST .c-MUST,#matrix.hide-SHOULD .c-SHOULD,#matrix.hide-INFO .c-INFO{display:none}
.st{font-weight:700;text-transform:uppercase;font-size:11px;padding:2px 6px;border-radius:3px;white-space:nowrap}
.st.pass{background:#d9f2e1;color:#1e6b37}.st.fail{background:#fbd9d9;color:#9b1c1c}
.st.skipped{background:#e8eaee;color:#4a5263}.st.untested{background:#efe3fb;color:#5b2a86}.st.inconclusive{background:#fff0c2;color:#7a5a00}
.findings{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 14px;margin:12px 0} .findings ol{margin:4px 0;padding-left:22px}
.finding{background:#fff;border:1px solid #dde1e7;border-left:4px solid #d64545;border-radius:6px;padding:10px 14px;margin:10px 0}
.finding.SHOULD{border-left-color:#e0a100}.finding.INFO{border-left-color:#5b8def}
blockquote.cite{margin:6px 0;padding:4px 10px;border-left:3px solid #c9ced8;color:#3b4252;background:#f6f7f9}
.lvl-MUST{color:#9b1c1c;font-weight:700}.lvl-SHOULD{color:#8a5a00;font-weight:700}.lvl-INFO{color:#2d5bb8;font-weight:700}
.new{background:#d64545;color:#fff;font-weight:700;font-size:11px;padding:1px 5px;border-radius:3px}
.lv{font-size:11px;color:#5b6475} .vac{color:#9a6a00;font-size:11px}
.filters{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 12px;margin:12px 0;position:sticky;top:0;z-index:1}
.filters div{margin:3px 0} .filters .k{display:inline-block;width:70px;color:#5b6475}
.filters button{font:12px system-ui,sans-serif;border:1px solid #c9ced8;background:#f6f7f9;border-radius:12px;padding:2px 10px;margin:2px;cursor:pointer}
.filters button[aria-pressed="true"]{background:#1d2330;color:#fff;border-color:#1d2330}
.failure{background:#fff;border:1px solid #e7b4b4;border-left:4px solid #d64545;border-radius:6px;padding:6px 12px;margin:6px 0}
.crosscut{background:#fff;border:1px solid #dde1e7;border-left:4px solid #5b6475;border-radius:6px;padding:8px 14px;margin:12px 0}
details.detail{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:6px 12px;margin:6px 0} details summary{cursor:pointer}
ul.checks{list-style:none;padding-left:0;margin:6px 0} ul.checks li{padding:3px 0;border-bottom:1px dotted #e3e6ea}
`;

function badge(status: string): string {
  return `<span class="st ${htmlEscape(status)}">${htmlEscape(status)}</span>`;
}

/** fail > pass > skipped over the checks of one level; `none` when the endpoint has no check of it. */
function levelStatus(checks: readonly CheckRecord[]): CheckStatus | 'none' {
  if (checks.length === 0) return 'none';
  if (checks.some((c) => c.status === 'fail')) return 'fail';
  if (checks.some((c) => c.status === 'pass')) return 'pass';
  if (checks.some((c) => c.status === 'inconclusive')) return 'inconclusive';
  return 'skipped';
}

/** Which failures of a report are counted elsewhere: in a cross-cutting finding, or as a consequence of another check. */
interface Elsewhere {
  has(e: EndpointReport, c: CheckRecord): boolean;
}

function elsewhereOf(report: Report): Elsewhere {
  const cross = crossCuttingChecks(report.findings);
  return { has: (e, c) => c.status === 'fail' && (!!c.consequenceOf || cross.has(checkKey(e.id, c.id))) };
}

/** The endpoint's own checks of one level: a failure counted elsewhere is left out (shown as ↗ in its cell). */
const ownChecks = (e: EndpointReport, level: Level, elsewhere: Elsewhere) =>
  e.checks.filter((c) => c.level === level && !elsewhere.has(e, c));

function levelCell(report: Report, e: EndpointReport, level: Level, elsewhere: Elsewhere): string {
  const checks = ownChecks(e, level, elsewhere);
  const away = e.checks.filter((c) => c.level === level && elsewhere.has(e, c)).length;
  const status = levelStatus(checks);
  if (status === 'none' && away === 0) return `<td class="lvl none c-${level}" title="no ${level} check">—</td>`;
  const n = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  const text = [
    n('fail') ? `✗${n('fail')}` : '',
    n('pass') ? `✓${n('pass')}` : '',
    n('inconclusive') ? `?${n('inconclusive')}` : '',
    n('skipped') ? `–${n('skipped')}` : '',
    away ? `↗${away}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  // A level below --fail-on with failures is not red: its findings do not fail the run.
  const shown = status === 'fail' && !failingLevels(report.failOn ?? 'must').includes(level) ? 'fail below' : status;
  const awayText = away ? `, ${away} failed in cross-cutting findings or as consequences (counted there)` : '';
  return `<td class="lvl ${shown} c-${level}" title="${htmlEscape(`${level}: ${n('pass')} passed, ${n('fail')} failed, ${n('inconclusive')} inconclusive, ${n('skipped')} skipped${awayText}`)}">${text}</td>`;
}

function matrixRow(report: Report, e: EndpointReport, key: number, elsewhere: Elsewhere): string {
  const per = Object.fromEntries(LEVELS.map((l) => [l, levelStatus(ownChecks(e, l, elsewhere))]));
  const data = `data-key="${key}" data-tag="${htmlEscape(e.tag)}" data-status="${htmlEscape(e.status)}" data-s-must="${per.MUST}" data-s-should="${per.SHOULD}" data-s-info="${per.INFO}"`;
  const time = e.durationMs !== undefined ? `${(e.durationMs / 1000).toFixed(2)} s` : '';
  return `<tr class="ep" ${data}><td>${badge(e.status)}</td><td><code>${htmlEscape(e.method)}</code> <a href="#d-${key}"><code>${htmlEscape(e.path)}</code></a></td>${LEVELS.map((l) => levelCell(report, e, l, elsewhere)).join('')}<td>${e.checks.length}</td><td class="lv">${time}</td></tr>`;
}

function matrix(report: Report, keys: Map<EndpointReport, number>): string {
  const elsewhere = elsewhereOf(report);
  const tags = [...new Set(report.endpoints.map((e) => e.tag))];
  const body = tags
    .map((tag) => {
      const rows = report.endpoints.filter((e) => e.tag === tag);
      const failing = rows.filter((e) => e.status === 'fail').length;
      const head = `<tr class="group" data-tag="${htmlEscape(tag)}"><th colspan="7">${htmlEscape(tag)} <span class="lv">${rows.length} endpoints${failing ? `, ${failing} failing` : ''}</span></th></tr>`;
      return head + rows.map((e) => matrixRow(report, e, keys.get(e)!, elsewhere)).join('');
    })
    .join('\n');
  return `<table id="matrix"><thead><tr><th>status</th><th>endpoint</th>${LEVELS.map((l) => `<th class="c-${l}">${l}</th>`).join('')}<th>checks</th><th>time</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function filterButtons(report: Report): string {
  const count = (status: EndpointStatus) => report.endpoints.filter((e) => e.status === status).length;
  const button = (filter: string, value: string, label: string) =>
    `<button type="button" data-filter="${filter}" data-value="${htmlEscape(value)}" aria-pressed="false">${label}</button>`;
  const tags = [...new Set(report.endpoints.map((e) => e.tag))];
  return `<div class="filters" id="filters">
<div><span class="k">status</span>${STATUSES.map((s) => button('status', s, `${s} <span class="lv">${count(s)}</span>`)).join('')}</div>
<div><span class="k">level</span>${LEVELS.map((l) => button('level', l, l)).join('')}</div>
<div><span class="k">resource</span>${tags.map((t) => button('tag', t, htmlEscape(t))).join('')}</div>
<div><button type="button" id="reset">show all</button> <span class="lv" id="shown">${report.endpoints.length} of ${report.endpoints.length} endpoints shown</span></div>
</div>`;
}

/** `mqsim conform … --only <endpoint id>`: the run's command narrowed to one endpoint, when it can be derived. */
export function endpointReplay(report: Report, e: EndpointReport): string | undefined {
  const flags =
    report.selection || report.shard
      ? selectionFlags({
          only: report.selection?.only ?? [],
          skip: report.selection?.skip ?? [],
          ...(report.shard ? { shard: report.shard } : {}),
        })
      : '';
  const base = flags && report.replay.endsWith(flags) ? report.replay.slice(0, -flags.length) : report.replay;
  if (/ --(only|skip|shard) | ; /.test(base) || !base.startsWith('mqsim conform ')) return undefined;
  return `${base} --only ${shellArg(e.id)}`;
}

/** A JSON body pretty-printed (a cut body is not JSON any more and stays as it came). */
function readableBody(body: string): string {
  if (!/^\s*[[{]/.test(body)) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The spec text a check or finding cites, with its section and level. */
function citationBlock(report: Report, assertion: string): string {
  const c = report.citations?.[assertion];
  if (!c) return `<div class="lv">assertion <code>${htmlEscape(assertion)}</code></div>`;
  const from =
    c.source === 'spec'
      ? `spec, ${c.section}`
      : c.source === 'notes'
        ? `reference notes, ${c.section}`
        : 'project decision (the spec is silent)';
  return `<div class="lv">assertion <code>${htmlEscape(assertion)}</code> · <span class="lvl-${htmlEscape(c.level)}">${htmlEscape(c.level)}</span> · ${htmlEscape(from)}</div><blockquote class="cite">${htmlEscape(c.quote)}</blockquote>`;
}

/** "N findings", MUST first, each a jump link to its card; the cross-cutting ones apart, first. */
function findingsSection(report: Report): string {
  const list = report.findings ?? [];
  if (list.length === 0) return `<section class="findings" id="findings"><h2>0 findings</h2><p>No check failed.</p></section>`;
  const item = (f: Finding) =>
    `<li><a href="#finding-${list.indexOf(f)}"><span class="lvl-${htmlEscape(f.level)}">${htmlEscape(f.level)}</span> ${htmlEscape(f.title)}</a> <span class="lv">${f.endpoints.length} endpoint${f.endpoints.length === 1 ? '' : 's'}, ${f.checks.length} check${f.checks.length === 1 ? '' : 's'}</span></li>`;
  const cross = list.filter((f) => f.crossCutting);
  const own = list.filter((f) => !f.crossCutting);
  const n = (l: Level) => list.filter((f) => f.level === l).length;
  const crossPart = cross.length
    ? `<div class="crosscut" id="cross-cutting"><h3>${cross.length} cross-cutting finding${cross.length === 1 ? '' : 's'} <span class="lv">an API-wide rule (wire format, envelope, authentication, common list parameters, refusal texts) broken on many endpoints: shown once here, not counted in each endpoint's status</span></h3><ol>${cross.map(item).join('')}</ol></div>`
    : '';
  const ownPart = own.length ? `${cross.length ? '<h3>Findings of particular endpoints</h3>' : ''}<ol>${own.map(item).join('')}</ol>` : '';
  return `<section class="findings" id="findings"><h2>${list.length} finding${list.length === 1 ? '' : 's'} <span class="lv">MUST ${n('MUST')} · SHOULD ${n('SHOULD')} · INFO ${n('INFO')}</span></h2>${crossPart}${ownPart}</section>`;
}

function findingCard(report: Report, f: Finding, i: number, onDemand: OnDemand): string {
  const isNewFinding = report.baseline?.newFindings.some((x) => x.id === f.id);
  const others = (f.assertions ?? []).filter((a) => a !== f.assertion);
  const parts = [
    `<h3>${report.baseline ? (isNewFinding ? '<span class="new">NEW</span> ' : '<span class="lv">known (in baseline)</span> ') : ''}<span class="lvl-${htmlEscape(f.level)}">${htmlEscape(f.level)}</span> ${htmlEscape(f.title)}</h3>`,
    `<div class="lv">finding <code>${htmlEscape(f.id)}</code>${f.crossCutting ? ' · cross-cutting: not counted in each endpoint’s status' : ''} · endpoints: ${f.endpoints.map((k) => `<code>${htmlEscape(k)}</code>`).join(', ')}${f.folded?.length ? ` · folded cascades and consequences: ${f.folded.map((x) => `<code>${htmlEscape(x)}</code>`).join(', ')}` : ''}</div>`,
    citationBlock(report, f.assertion),
    ...(others.length
      ? [`<div class="lv">the same rule, stated also in: ${others.map((a) => `<code>${htmlEscape(a)}</code>`).join(', ')}</div>`]
      : []),
    `<details class="fchecks"><summary>${f.checks.length} failed check${f.checks.length === 1 ? '' : 's'} <span class="lv">(✗ fails its endpoint, · counted only here; open one for its request, response and curl command)</span></summary>${failureLines(report, f, onDemand)}</details>`,
  ];
  const ex = f.example;
  if (ex?.request)
    parts.push(`<div class="lv">example request (${htmlEscape(ex.check)})</div><pre>${htmlEscape(requestText(ex.request))}</pre>`);
  if (ex?.response) {
    const r = ex.response;
    parts.push(
      `<div class="lv">response</div><pre>${htmlEscape(r.error ? responseHead(r) : `${responseHead(r)}\n\n${readableBody(r.body)}`)}</pre>`,
    );
  }
  if (ex?.curl) parts.push(`<div class="lv">reproduce with curl</div><pre>${htmlEscape(ex.curl)}</pre>`);
  return `<article class="finding ${htmlEscape(f.level)}" id="finding-${i}" data-level="${htmlEscape(f.level)}">${parts.join('\n')}</article>`;
}

/** A finding's failed checks as collapsed lines (filled in when opened). */
function failureLines(report: Report, f: Finding, onDemand: OnDemand): string {
  const byId = new Map(report.endpoints.map((e) => [e.id, e]));
  return f.checks
    .map((x) => {
      const e = byId.get(x.endpoint);
      const c = e?.checks.find((k) => k.id === x.id && k.status === 'fail');
      return e && c
        ? onDemand.failureLine(e, c)
        : `<div><code>${htmlEscape(x.key)}</code> <code>${htmlEscape(x.id)}</code> — ${htmlEscape(x.message)}</div>`;
    })
    .join('');
}

/** Failed checks no finding holds (a report whose findings were edited): listed on their own, so none is lost. */
function unheldFailures(report: Report, onDemand: OnDemand): string {
  const held = new Set((report.findings ?? []).flatMap((f) => f.checks.map((c) => `${c.endpoint} ${c.id}`)));
  const lines = report.endpoints.flatMap((e) =>
    e.checks.filter((c) => c.status === 'fail' && !held.has(`${e.id} ${c.id}`)).map((c) => onDemand.failureLine(e, c)),
  );
  return lines.length ? `<h2>Failed checks in no finding (${lines.length})</h2>${lines.join('\n')}` : '';
}

function coverageSection(report: Report): string {
  const c = report.coverage;
  if (!c) return '';
  const pct = c.testable ? Math.round((c.tested / c.testable) * 100) : 0;
  const untested = c.untested
    .map((u) => `<li><code>${htmlEscape(u.id)}</code> <span class="lv">${htmlEscape(u.level)}</span> — ${htmlEscape(u.reason)}</li>`)
    .join('');
  const untestable = c.untestable.map((u) => `<li><code>${htmlEscape(u.id)}</code> — ${htmlEscape(u.reason)}</li>`).join('');
  return `<h2 id="coverage">Spec coverage</h2><p class="meta"><b>${c.tested} of ${c.testable}</b> testable assertions tested (${pct}%) · ${c.assertions} assertions in the contract, ${c.untestable.length} not testable over HTTP.</p>
<details><summary>${c.untested.length} untested assertions, with the reason</summary><ul class="checks">${untested}</ul></details>
<details><summary>${c.untestable.length} assertions no HTTP check can test</summary><ul class="checks">${untestable}</ul></details>`;
}

/** An endpoint's section: its checks are listed from the data block when it is opened (failing endpoints open at once). */
function detailSection(report: Report, e: EndpointReport, key: number): string {
  const failed = e.checks.filter((c) => c.status === 'fail').length;
  const list = e.checks.length ? '<ul class="checks"></ul>' : '<p><em>no check ran for this endpoint</em></p>';
  const one = failed ? endpointReplay(report, e) : undefined;
  const replay = one ? `<div class="lv">replay this endpoint only</div><pre>${htmlEscape(one)}</pre>` : '';
  const meta = `${htmlEscape(e.id)}${e.summary ? ` — ${htmlEscape(e.summary)}` : ''} · ${e.checks.length} checks${failed ? `, ${failed} failed` : ''}${e.durationMs !== undefined ? ` · ${(e.durationMs / 1000).toFixed(2)} s` : ''}`;
  return `<details class="detail" id="d-${key}"${e.status === 'fail' ? ' open' : ''}><summary>${badge(e.status)} <code>${htmlEscape(e.method)} ${htmlEscape(e.path)}</code> <span class="lv">${meta}</span></summary>${replay}${list}</details>`;
}

/** Every assertion the checks cite, once, with its quote: the check lists link here instead of repeating it. */
function citedSection(report: Report): string {
  const cited = [...new Set(report.endpoints.flatMap((e) => e.checks.map((c) => c.assertion)))].sort();
  const items = cited.map((id) => {
    const c = report.citations?.[id];
    const text = c ? ` <span class="lv">${htmlEscape(c.level)} · ${htmlEscape(c.section)}</span> — ${htmlEscape(c.quote)}` : '';
    return `<li id="a-${htmlEscape(id)}"><code>${htmlEscape(id)}</code>${text}</li>`;
  });
  return `<details id="cited"><summary>${cited.length} assertions cited by the checks</summary><ul class="checks">${items.join('')}</ul></details>`;
}

function baselineSection(report: Report): string {
  const b = report.baseline;
  if (!b) return '';
  const item = (f: FailureRef) =>
    `<li><span class="lv">${htmlEscape(f.level)}</span> <code>${htmlEscape(f.id)}</code> on ${f.endpoints.map((k) => `<code>${htmlEscape(k)}</code>`).join(', ')} — ${htmlEscape(f.title)}</li>`;
  const list = (title: string, items: readonly FailureRef[]) =>
    items.length ? `<h3>${title} (${items.length})</h3><ul>${items.map(item).join('')}</ul>` : `<h3>${title}: none</h3>`;
  return `<h2>Against the baseline</h2><p class="meta">baseline <code>${htmlEscape(b.baselineFile)}</code>${b.baselineRunId ? ` (run ${htmlEscape(b.baselineRunId)})` : ''}: ${b.newFindings.length} new findings, ${b.fixed.length} fixed, ${b.stillFailing} still present; only new findings at the --fail-on level (${htmlEscape(report.failOn ?? 'must')}) decide the exit status.</p>${list('New findings', b.newFindings)}${list('Fixed', b.fixed)}`;
}

function runMeta(report: Report): string {
  const bits = [
    `target <code>${htmlEscape(report.target)}</code>`,
    `seed ${report.seed}`,
    `run ${htmlEscape(report.runId)}`,
    htmlEscape(report.startedAt),
    `${(report.durationMs / 1000).toFixed(1)} s`,
    `mqsim ${htmlEscape(report.tool.version)}`,
  ];
  if (report.shard) bits.push(`shard ${report.shard.index}/${report.shard.count}`);
  if (report.selection) {
    const s = report.selection;
    bits.push(
      `${s.selectedEndpoints} of ${s.contractEndpoints} endpoints selected${s.only.length ? ` (only ${htmlEscape(s.only.join(','))})` : ''}${s.skip.length ? ` (skip ${htmlEscape(s.skip.join(','))})` : ''}`,
    );
  }
  if (report.merged) bits.push(`merged from ${report.merged.inputs.length} reports`);
  return bits.join(' · ');
}

/**
 * The report as one self-contained offline page: the vacuous warning first, the verdict, summary
 * cards and an inline SVG chart, filters (status, level, resource), the endpoint-by-level matrix,
 * every failure (its request, response and curl command shown when opened, from one data block in
 * which each distinct text is stored once), then each endpoint's checks and the assertions they cite.
 * Every text from the report is escaped; the CSP allows only the page's own script.
 */
export function renderHtml(report: Report): string {
  const s = report.summary;
  const keys = new Map(report.endpoints.map((e, i) => [e, i]));
  const warnings: string[] = [];
  if (report.vacuous)
    warnings.push(`<div class="warn vacuous" id="vacuous">⚠ Vacuous run — not a pass. ${htmlEscape(report.vacuousReason ?? '')}</div>`);
  const others: string[] = [];
  if (s.inconclusive > 0)
    others.push(
      `<div class="warn">${s.inconclusive} checks were inconclusive: the target's answers could not have failed a wrong server (too few records, a value every record shares…). They count neither as passed nor as failed.</div>`,
    );
  if (s.untested > 0) others.push(`<div class="warn">${s.untested} endpoints had no check.</div>`);

  const onDemand = new OnDemand(report, keys);
  const failedCount = report.endpoints.reduce((n, e) => n + e.checks.filter((c) => c.status === 'fail').length, 0);
  const notes = report.notes.length ? `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${htmlEscape(n)}</li>`).join('')}</ul>` : '';
  const card = (label: string, value: number | string, color?: string) =>
    `<div class="card"${color ? ` style="border-top:3px solid ${color}"` : ''}><b>${htmlEscape(String(value))}</b>${htmlEscape(label)}</div>`;
  const cardsHtml = [
    card('endpoints', report.endpoints.length),
    ...STATUSES.map((st) =>
      card(`endpoints ${st}`, s.endpoints?.[st] ?? report.endpoints.filter((e) => e.status === st).length, STATUS_COLORS[st]),
    ),
    card('checks', s.checks),
    card('passed', s.passed, STATUS_COLORS.pass),
    card('failed', s.failed, STATUS_COLORS.fail),
    card('inconclusive', s.inconclusive, STATUS_COLORS.inconclusive),
    card('MUST findings', s.findingsByLevel.MUST),
    card('SHOULD findings', s.findingsByLevel.SHOULD),
    card('INFO findings', s.findingsByLevel.INFO),
    card('skipped', s.skipped, STATUS_COLORS.skipped),
    card('requests', report.requests.total),
  ].join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>mqsim conform — ${htmlEscape(report.target)} — ${report.vacuous ? 'VACUOUS' : report.verdict}</title><style>${STYLE}</style></head>
<body>
${warnings.join('\n')}
<h1>mqsim conformance report</h1>
<div class="meta">${runMeta(report)}</div>
<div class="verdict ${htmlEscape(report.verdict)}" id="verdict">${htmlEscape(report.verdictLine)}</div>
${findingsSection(report)}
${others.join('\n')}
<div class="summary"><div class="cards">${cardsHtml}</div>${renderChart(report)}</div>
<p class="meta">Replay the run:</p><pre id="replay">${htmlEscape(report.replay)}</pre>
${baselineSection(report)}
${(report.findings ?? []).length ? `<h2>Findings <span class="lv"><span id="failure-count">${failedCount}</span> failed checks</span></h2>${report.findings.map((f, i) => findingCard(report, f, i, onDemand)).join('\n')}` : ''}
${unheldFailures(report, onDemand)}
${coverageSection(report)}
<h2>Endpoints by level</h2>
<p class="meta">One row per endpoint, grouped by resource. An endpoint's status is decided by its own checks: it fails on a failed check at the --fail-on level (${htmlEscape(failingLevels(report.failOn ?? 'must').join(', '))}); failures of cross-cutting findings and consequences of a failure elsewhere count in their findings. Each level cell counts the checks of that level: ✗ failed (amber below the --fail-on level), ✓ passed, ? inconclusive, – skipped, ↗ failed but counted in a cross-cutting finding or as a consequence. Choose filters to narrow the matrix, the failures and the check lists; with levels chosen, a row's status counts only its own checks of those levels.</p>
${filterButtons(report)}
${matrix(report, keys)}
${notes}
<h2>Checks per endpoint</h2>
<p class="meta">Open an endpoint for its checks (the failing ones are open). <button type="button" id="open-all">open every endpoint</button></p>
${report.endpoints.map((e) => detailSection(report, e, keys.get(e)!)).join('\n')}
${citedSection(report)}
${onDemand.block()}
<script>${FILTER_SCRIPT}</script>
</body></html>
`;
}
