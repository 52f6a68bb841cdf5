import { describe, expect, it } from 'vitest';
import { compactProgressLine, endpointProgressLine, ProgressPrinter, type EndpointProgress } from './progress.ts';

const p = (index: number, failures = 0): EndpointProgress => ({
  index,
  total: 68,
  endpoint: { id: 'cluster.tenant.list', method: 'GET', path: '/api/cluster/tenant/list', tag: 'tenants' },
  status: failures ? 'fail' : 'pass',
  checks: 19,
  failed: failures,
  durationMs: 81,
  failuresSoFar: failures,
  mustFailuresSoFar: failures ? 1 : 0,
});

describe('progress lines', () => {
  it('says where the run is and how many failures it found so far', () => {
    expect(endpointProgressLine(p(7))).toBe(
      'endpoint  7 of 68  pass     GET /api/cluster/tenant/list — 19 checks, 0 failed, 0.1 s; failures so far 0',
    );
    expect(endpointProgressLine(p(12, 2))).toContain('failures so far 2 (MUST 1)');
    expect(compactProgressLine(p(12, 2), 200)).toBe('endpoint 12 of 68, failures so far 2 (MUST 1) · GET /api/cluster/tenant/list');
    const narrow = compactProgressLine(p(12, 2), 40);
    expect(narrow.length).toBeLessThanOrEqual(39);
    expect(narrow.startsWith('endpoint 12 of 68, failures so far 2')).toBe(true);
  });

  it('writes one line per endpoint into a log, and one updating line on a terminal', () => {
    const log: string[] = [];
    const lines = new ProgressPrinter((t) => void log.push(t), false);
    lines.endpoint(p(1));
    lines.line('tenants 4 endpoints');
    expect(log).toEqual([`${endpointProgressLine(p(1))}\n`, 'tenants 4 endpoints\n']);

    const tty: string[] = [];
    const term = new ProgressPrinter((t) => void tty.push(t), true, 120);
    term.endpoint(p(1));
    term.endpoint(p(2));
    term.line('tenants 4 endpoints');
    term.clear();
    expect(tty).toEqual([
      `\r\x1b[K${compactProgressLine(p(1), 120)}`,
      `\r\x1b[K${compactProgressLine(p(2), 120)}`,
      '\r\x1b[K',
      'tenants 4 endpoints\n',
    ]);
  });
});
