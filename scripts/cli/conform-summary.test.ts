import { describe, expect, it } from 'vitest';
import { check, endpoint, reportOf } from '../../suites/report/sample-report.ts';
import { summaryText } from './conform-command.ts';

/** The end-of-run lines: cross-cutting findings once, first, then the others; endpoints by the one status rule. */
describe('summaryText', () => {
  it('shows a cross-cutting finding once before the findings of particular endpoints, and endpoints by their own checks', () => {
    const wire = (i: number) =>
      endpoint(
        'GET',
        `/api/x${i}`,
        'x',
        [check('happy-path', 'pass'), check('content-type', 'fail', 'MUST', { assertion: 'conventions.wire-format' })],
        `x.${i}`,
      );
    const report = reportOf([
      ...Array.from({ length: 6 }, (_, i) => wire(i)),
      endpoint(
        'POST',
        '/api/cluster/tenant/create',
        'tenants',
        [check('limit.tenant_name.length-129', 'fail', 'MUST', { assertion: 'limits.tenant' })],
        'cluster.tenant.create',
      ),
    ]);
    const text = summaryText(report, '/tmp/r');
    const lines = text.split('\n');
    const cross = lines.findIndex((l) => l.startsWith("cross-cutting findings (1; not counted in each endpoint's status):"));
    const own = lines.findIndex((l) => l.startsWith('findings of particular endpoints (1):'));
    expect(cross).toBeGreaterThan(0);
    expect(own).toBeGreaterThan(cross);
    expect(lines[cross + 2]).toMatch(
      /^ {6}conventions\.wire-format · GET \/api\/x0, GET \/api\/x1, GET \/api\/x2, GET \/api\/x3 and 2 more$/,
    );
    expect(text.match(/wire-format/g)).toHaveLength(1);
    expect(text).toContain('endpoints by their own checks at --fail-on must: 1 fail, 6 pass, 0 inconclusive, 0 skipped, 0 untested');
  });
});
