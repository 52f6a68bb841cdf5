import type { EndpointStatus, Report } from '../../conform/report-model.ts';
import { htmlEscape } from './html-escape.ts';

export const STATUS_COLORS: Record<EndpointStatus, string> = {
  pass: '#3aa55d',
  fail: '#d64545',
  inconclusive: '#e0b400',
  skipped: '#9aa3b2',
  untested: '#8e5cc4',
};
const STATUSES: readonly EndpointStatus[] = ['pass', 'fail', 'inconclusive', 'skipped', 'untested'];

/**
 * The summary chart as inline SVG (no script, no external asset): one stacked bar of the checks by
 * status, then one bar per resource (tag) with its endpoints by status, on a common scale.
 */
export function renderChart(report: Report): string {
  const tags = [...new Set(report.endpoints.map((e) => e.tag))];
  const label = 150;
  const barWidth = 420;
  const row = 20;
  const top = 46;
  const height = top + tags.length * row + 26;
  const width = label + barWidth + 90;
  const parts: string[] = [];
  const s = report.summary;

  // Checks, as one 100% bar.
  const checkSegments: [EndpointStatus, number][] = [
    ['pass', s.passed],
    ['fail', s.failed],
    ['inconclusive', s.inconclusive],
    ['skipped', s.skipped],
  ];
  let x = label;
  parts.push(`<text x="0" y="16" class="lbl">checks (${s.checks})</text>`);
  for (const [status, n] of checkSegments) {
    if (n === 0 || s.checks === 0) continue;
    const w = (n / s.checks) * barWidth;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="4" width="${Math.max(w, 1).toFixed(1)}" height="16" fill="${STATUS_COLORS[status]}"><title>${htmlEscape(`${n} checks ${status}`)}</title></rect>`,
    );
    x += w;
  }
  parts.push(`<text x="${label + barWidth + 6}" y="16" class="num">${s.passed}/${s.failed}/${s.skipped}</text>`);
  parts.push(`<text x="0" y="${top - 8}" class="lbl head">endpoints per resource</text>`);

  const widest = Math.max(1, ...tags.map((t) => report.endpoints.filter((e) => e.tag === t).length));
  tags.forEach((tag, i) => {
    const y = top + i * row;
    const rows = report.endpoints.filter((e) => e.tag === tag);
    parts.push(`<text x="0" y="${y + 13}" class="lbl">${htmlEscape(tag)}</text>`);
    let bx = label;
    for (const status of STATUSES) {
      const n = rows.filter((e) => e.status === status).length;
      if (n === 0) continue;
      const w = (n / widest) * barWidth;
      parts.push(
        `<rect x="${bx.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="14" fill="${STATUS_COLORS[status]}"><title>${htmlEscape(`${tag}: ${n} endpoints ${status}`)}</title></rect>`,
      );
      bx += w;
    }
    parts.push(`<text x="${(bx + 6).toFixed(1)}" y="${y + 13}" class="num">${rows.length}</text>`);
  });
  const legendY = top + tags.length * row + 16;
  STATUSES.forEach((status, i) => {
    const lx = label + i * 100;
    parts.push(
      `<rect x="${lx}" y="${legendY - 10}" width="10" height="10" fill="${STATUS_COLORS[status]}"/><text x="${lx + 14}" y="${legendY}" class="num">${status}</text>`,
    );
  });
  return `<svg class="chart" role="img" aria-label="checks and endpoints by status" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
