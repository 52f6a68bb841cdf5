import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformCommand, type ConformIo } from './conform-command.ts';
import { runOpenapiCommand } from './openapi-command.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mqsim-conform-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function captureIo(reportsRoot: string): ConformIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, reportsRoot, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) };
}

describe('mqsim conform', () => {
  it('runs against the simulator, prints progress and a summary, writes reports/<run-id>/ and reports/latest/', async () => {
    const io = captureIo(join(root, 'reports'));
    const code = await runConformCommand({ target: 'sim', seed: 1, timeout: 10_000, nodes: 3 }, io);
    expect(code).toBe(0);
    expect(io.err.join('')).toMatch(/^tenants .* endpoints .* checks/m);
    const summary = io.out.join('');
    expect(summary).toMatch(/^PASS — no MUST check failed/m);
    const runs = readdirSync(join(root, 'reports')).filter((d) => d !== 'latest');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-sim-seed1$/);
    expect(summary).toContain(join(root, 'reports', runs[0], 'index.html'));
    for (const file of ['report.json', 'index.html', 'junit.xml']) {
      expect(existsSync(join(root, 'reports', runs[0], file)), file).toBe(true);
      expect(readFileSync(join(root, 'reports', 'latest', file), 'utf8')).toBe(readFileSync(join(root, 'reports', runs[0], file), 'utf8'));
    }
  });

  it('refuses --username without --password with status 2', async () => {
    const io = captureIo(join(root, 'unused'));
    expect(await runConformCommand({ target: 'sim', seed: 1, timeout: 1000, nodes: 1, username: 'admin' }, io)).toBe(2);
    expect(io.err.join('')).toMatch(/--username and --password go together/);
  });

  it('exits 2 with a clear message on bad flag values', () => {
    for (const [args, message] of [
      [['--target', 'ftp://broker'], /--target URL must use http or https/],
      [['--target', 'sim', '--seed', 'abc'], /--seed must be an integer/],
      [['--target', 'sim', '--rate', '0'], /--rate must be a number above 0/],
      [['--seed', '1'], /required option '--target <url\|sim>'/],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, 'conform', ...args], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('mqsim openapi', () => {
  it('writes the OpenAPI document to a file', () => {
    const out = join(root, 'openapi', 'doc.json');
    runOpenapiCommand({ out, server: 'http://broker:58080' });
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://broker:58080' }]);
    let printed = '';
    runOpenapiCommand({}, (t) => (printed += t));
    expect(JSON.parse(printed).paths).toEqual(doc.paths);
  });
});
