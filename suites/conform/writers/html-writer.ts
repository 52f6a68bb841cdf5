import type { CheckRecord, EndpointReport, Report } from '../report-model.ts';

export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.meta{color:#5b6475;margin-bottom:16px} code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{background:#f0f2f5;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-all;margin:4px 0}
.warn{background:#fff4d6;border:1px solid #e0b400;padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600}
.verdict{padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600}
.verdict.pass{background:#e3f6e8;border:1px solid #3aa55d}.verdict.fail{background:#fde7e7;border:1px solid #d64545}
.cards{display:flex;gap:10px;flex-wrap:wrap}.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 14px;min-width:90px}
.card b{display:block;font-size:20px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7}
td,th{padding:5px 8px;border-bottom:1px solid #eceff3;text-align:left;vertical-align:top}
.st{font-weight:700;text-transform:uppercase;font-size:11px;padding:2px 6px;border-radius:3px;white-space:nowrap}
.st.pass{background:#d9f2e1;color:#1e6b37}.st.fail{background:#fbd9d9;color:#9b1c1c}
.st.skipped{background:#e8eaee;color:#4a5263}.st.untested{background:#efe3fb;color:#5b2a86}
.lv{font-size:11px;color:#5b6475} details summary{cursor:pointer} ul.checks{list-style:none;padding-left:0;margin:6px 0}
ul.checks li{padding:3px 0;border-bottom:1px dotted #e3e6ea} .vac{color:#9a6a00;font-size:11px}
`;

function statusBadge(status: string): string {
  return `<span class="st ${htmlEscape(status)}">${htmlEscape(status)}</span>`;
}

function failureDetail(c: CheckRecord): string {
  const parts: string[] = [];
  if (c.request) {
    const body = c.request.body === undefined ? '' : `\n${JSON.stringify(c.request.body, null, 2)}`;
    parts.push(`<div>request${c.request.asRemotePeer ? ' (from a non-loopback address)' : ''}:</div><pre>${htmlEscape(`${c.request.method} ${c.request.path}${body}`)}</pre>`);
  }
  if (c.response) {
    parts.push(`<div>response:</div><pre>${htmlEscape(c.response.error ? `transport error: ${c.response.error}` : `HTTP ${c.response.status}${c.response.contentType ? ` (${c.response.contentType})` : ''}\n${c.response.body}`)}</pre>`);
  }
  if (c.curl) parts.push(`<div>curl:</div><pre>${htmlEscape(c.curl)}</pre>`);
  return parts.join('');
}

function checkItem(c: CheckRecord): string {
  const head = `${statusBadge(c.status)} <code>${htmlEscape(c.id)}</code> <span class="lv">${c.level}</span>${c.vacuous ? ' <span class="vac">vacuous</span>' : ''} — ${htmlEscape(c.message)}`;
  if (c.status !== 'fail') return `<li>${head}</li>`;
  return `<li>${head}${failureDetail(c)}</li>`;
}

function endpointRow(e: EndpointReport): string {
  const failed = e.checks.filter((c) => c.status === 'fail').length;
  const counts = `${e.checks.length} checks${failed ? `, ${failed} failed` : ''}`;
  const checks = e.checks.length === 0 ? '<em>no check ran</em>' : `<details${failed ? ' open' : ''}><summary>${counts}</summary><ul class="checks">${e.checks.map(checkItem).join('')}</ul></details>`;
  return `<tr id="${htmlEscape(e.id)}"><td>${statusBadge(e.status)}</td><td><code>${htmlEscape(e.method)}</code></td><td><code>${htmlEscape(e.path)}</code><div class="lv">${htmlEscape(e.id)}${e.summary ? ` — ${htmlEscape(e.summary)}` : ''}</div></td><td>${checks}</td></tr>`;
}

/** The report as one self-contained page: no script, no external asset, warnings first. */
export function renderHtml(report: Report): string {
  const s = report.summary;
  const tags = [...new Set(report.endpoints.map((e) => e.tag))];
  const warnings: string[] = [];
  if (report.vacuous) warnings.push(`<div class="warn">⚠ Vacuous run — not a pass. ${htmlEscape(report.vacuousReason ?? '')}</div>`);
  if (s.vacuousChecks > 0) warnings.push(`<div class="warn">${s.vacuousChecks} passing checks were vacuous (they found nothing to exercise); they are marked “vacuous” below.</div>`);
  if (s.untested > 0) warnings.push(`<div class="warn">${s.untested} endpoints had no check.</div>`);
  const notes = report.notes.length ? `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${htmlEscape(n)}</li>`).join('')}</ul>` : '';
  const sections = tags
    .map((tag) => {
      const rows = report.endpoints.filter((e) => e.tag === tag);
      const failed = rows.filter((e) => e.status === 'fail').length;
      return `<h2>${htmlEscape(tag)} <span class="lv">${rows.length} endpoints${failed ? `, ${failed} failing` : ''}</span></h2><table><thead><tr><th>status</th><th>method</th><th>path</th><th>checks</th></tr></thead><tbody>${rows.map(endpointRow).join('')}</tbody></table>`;
    })
    .join('\n');
  const card = (label: string, value: number | string) => `<div class="card"><b>${htmlEscape(String(value))}</b>${htmlEscape(label)}</div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>mqsim conform — ${htmlEscape(report.target)} — ${report.verdict}</title><style>${STYLE}</style></head>
<body>
<h1>mqsim conformance report</h1>
<div class="meta">target <code>${htmlEscape(report.target)}</code> · seed ${report.seed} · run ${htmlEscape(report.runId)} · ${htmlEscape(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · mqsim ${htmlEscape(report.tool.version)}</div>
${warnings.join('\n')}
<div class="verdict ${report.verdict}">${htmlEscape(report.verdictLine)}</div>
<div class="cards">${card('checks', s.checks)}${card('passed', s.passed)}${card('failed', s.failed)}${card('MUST failed', s.failedByLevel.MUST)}${card('SHOULD failed', s.failedByLevel.SHOULD)}${card('INFO failed', s.failedByLevel.INFO)}${card('skipped', s.skipped)}${card('endpoints', report.endpoints.length)}${card('untested', s.untested)}${card('requests', report.requests.total)}</div>
<p class="meta">Replay: <code>${htmlEscape(report.replay)}</code></p>
${notes}
${sections}
</body></html>
`;
}
