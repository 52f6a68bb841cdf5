import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/conform/report-model.ts';
import { check, endpoint, reportOf } from '../../suites/report/sample-report.ts';
import type { ConformIo } from './conform-command.ts';
import { registerReportCommand, runReportMerge } from './report-command.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mqsim-report-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function captureIo(): ConformIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, reportsRoot: join(root, 'reports'), stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) };
}

function writeShard(name: string, report: Report): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
  return dir;
}

const shard = (index: number, count: number, endpoints: Report['endpoints']) =>
  reportOf(endpoints, {
    shard: { index, count },
    runId: `run-${index}`,
    replay: `mqsim conform --target http://127.0.0.1:1 --seed 7 --shard ${index}/${count}`,
  });

const s1 = writeShard('s1', shard(1, 2, [endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])]));
const s2 = writeShard(
  's2',
  shard(2, 2, [
    endpoint('GET', '/api/cluster/tenant/list', 'tenants', [
      check('happy-path', 'fail', 'SHOULD', { response: { status: 200, body: '<script>x</script>' } }),
    ]),
  ]),
);

describe('mqsim report merge', () => {
  it('writes the merged report in all three formats and exits like conform', () => {
    const io = captureIo();
    const out = join(root, 'merged');
    expect(runReportMerge([s2, join(s1, 'report.json')], { out }, io)).toBe(0);
    for (const f of ['report.json', 'index.html', 'junit.xml']) expect(existsSync(join(out, f)), f).toBe(true);
    const merged: Report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(merged.endpoints.map((e) => e.path)).toEqual(['/api/status', '/api/cluster/tenant/list']);
    expect(merged.summary).toMatchObject({ checks: 2, passed: 1, failed: 1 });
    expect(readFileSync(join(out, 'junit.xml'), 'utf8').match(/<testsuite /g)).toHaveLength(2);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(io.out.join('')).toMatch(/^PASS — 1 finding \(MUST 0, SHOULD 1, INFO 0\), none at MUST /);
    expect(io.err.join('')).toBe('merged 2 reports: 2 endpoints\n');
  });

  it('with --baseline, exits 1 on a new MUST failure; --quiet prints only the verdict', () => {
    const base = writeShard('base', reportOf([endpoint('GET', '/api/status', 'cluster-status', [check('happy-path', 'pass')])]));
    const failing = writeShard('f2', shard(2, 2, [endpoint('GET', '/api/info', 'cluster-status', [check('happy-path', 'fail')])]));
    const io = captureIo();
    expect(runReportMerge([s1, failing], { out: join(root, 'm2'), baseline: base, quiet: true }, io)).toBe(1);
    expect(io.out.join('')).toMatch(/^FAIL — 1 new MUST finding against baseline .*: 1 new finding \(1 MUST\), 0 fixed.*\n$/);
    expect(io.err).toEqual([]);
  });

  it('exits 2 on a missing shard, a duplicate endpoint or an unreadable input', () => {
    for (const [inputs, message] of [
      [[s1], /missing shard 2\/2/],
      [[s1, s1], /shard 1\/2 is given twice/],
      [[s1, join(root, 'nope')], /cannot read report .*nope: no such file/],
    ] as const) {
      const io = captureIo();
      expect(runReportMerge(inputs, { out: join(root, 'never') }, io)).toBe(2);
      expect(io.err.join('')).toMatch(message);
    }
    expect(existsSync(join(root, 'never'))).toBe(false);
  });

  it('documents itself in --help with examples', () => {
    let out = '';
    const program = new Command().exitOverride().configureOutput({ writeOut: (t) => void (out += t), writeErr: () => {} });
    registerReportCommand(program);
    expect(() => program.parse(['node', 'mqsim', 'report', 'merge', '--help'])).toThrow(CommanderError);
    expect(out).toMatch(/Usage: mqsim report merge \[options\] <dirs\.\.\.>/);
    expect(out).toContain('Examples:');
  });

  it('is registered on the CLI: `mqsim report merge` runs with its exit status', () => {
    const r = spawnSync(process.execPath, [BIN, 'report', 'merge', s1, s2, '--out', join(root, 'cli'), '--quiet'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^PASS/);
    expect(existsSync(join(root, 'cli', 'index.html'))).toBe(true);
  });
});
