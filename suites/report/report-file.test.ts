import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReportFile, ReportFileError } from './report-file.ts';
import { check, endpoint, reportOf } from './sample-report.ts';

const dir = mkdtempSync(join(tmpdir(), 'mqsim-report-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('reading report.json', () => {
  it('reads a file, or the report.json of a directory', () => {
    const report = reportOf([endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])]);
    const file = write('r.json', report);
    expect(readReportFile(file)).toEqual({ file, report });
    mkdirSync(join(dir, 'run'));
    write('run/report.json', report);
    expect(readReportFile(join(dir, 'run')).file).toBe(join(dir, 'run', 'report.json'));
  });

  it('names the problem of a file that is missing, not JSON, or not a report', () => {
    const ok = reportOf([endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])]);
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.json'), /cannot read report .*missing\.json: no such file/],
      [write('bad.json', '{'), /is not JSON/],
      [write('arr.json', []), /not a mqsim conform report: not a JSON object/],
      [write('noeps.json', { target: 'sim', seed: 1 }), /no "endpoints" array/],
      [
        write('level.json', {
          ...ok,
          endpoints: [{ ...ok.endpoints[0], checks: [{ ...ok.endpoints[0].checks[0], level: '"><script>' }] }],
        }),
        /checks\[0\] has level "\\"><script>"/,
      ],
      [write('status.json', { ...ok, endpoints: [{ ...ok.endpoints[0], status: 'great' }] }), /endpoints\[0\]\.status is "great"/],
    ];
    for (const [file, message] of cases) {
      expect(() => readReportFile(file), file).toThrow(ReportFileError);
      expect(() => readReportFile(file), file).toThrow(message);
    }
  });
});
