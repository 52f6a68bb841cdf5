import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { Report } from '../../suites/conform/report-model.ts';
import { Command, CommanderError } from 'commander';
import { registerConformCommand, runConformCommand, type ConformCommandOptions, type ConformIo } from './conform-command.ts';
import { runOpenapiCommand } from './openapi-command.ts';
import { READY_BODY } from '../../suites/conform/testing/passes-preflight.ts';
import { staticFileHandler } from '../../suites/conform/testing/static-file-server.ts';
import { SIM_ADMIN, SimTarget } from '../../suites/targets/sim-target.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mqsim-conform-cli-'));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
  rmSync(root, { recursive: true, force: true });
});

function captureIo(reportsRoot: string, tty = false): ConformIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, reportsRoot, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), stderrIsTTY: tty, columns: 80 };
}

const base: ConformCommandOptions = { target: 'sim', seed: 1, timeout: 10_000, nodes: 1 };

/** A server answering 500 to everything but its readiness probe (so the preflight sees the API): every happy path fails. */
async function brokenServer(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const ready = req.url === '/health/ready';
      res.writeHead(ready ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(ready ? READY_BODY : 'Internal Server Error');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const readReport = (dir: string): Report => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));

describe('mqsim conform', () => {
  it('runs against the simulator, prints progress and a summary, writes reports/<run-id>/ and reports/latest/', async () => {
    const io = captureIo(join(root, 'reports'));
    const code = await runConformCommand({ target: 'sim', seed: 1, timeout: 10_000, nodes: 3 }, io);
    expect(code).toBe(0);
    const progress = io.err.join('');
    expect(progress).toMatch(/^tenants .* endpoints .* checks/m);
    // One line per endpoint (stderr is not a terminal here), counting up to the whole contract.
    expect(progress.match(/^endpoint +\d+ of \d+ /gm)).toHaveLength(CONTRACT.length);
    expect(progress).toMatch(
      new RegExp(`^endpoint +1 of ${CONTRACT.length} +pass +\\S+ \\S+ — \\d+ checks, 0 failed, [\\d.]+ s; failures so far 0$`, 'm'),
    );
    expect(progress).toMatch(new RegExp(`^endpoint ${CONTRACT.length} of ${CONTRACT.length} `, 'm'));
    const summary = io.out.join('');
    expect(summary).toMatch(/^PASS — 0 findings \(MUST 0, SHOULD 0, INFO 0\), none at MUST/m);
    expect(summary).toMatch(/^spec coverage: \d+ of \d+ testable assertions tested/m);
    const runs = readdirSync(join(root, 'reports')).filter((d) => d !== 'latest');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-sim-seed1$/);
    expect(summary).toContain(join(root, 'reports', runs[0], 'index.html'));
    for (const file of ['report.json', 'index.html', 'junit.xml']) {
      expect(existsSync(join(root, 'reports', runs[0], file)), file).toBe(true);
      expect(readFileSync(join(root, 'reports', 'latest', file), 'utf8')).toBe(readFileSync(join(root, 'reports', runs[0], file), 'utf8'));
    }
    // The full run's report.json is valid against its schema.
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/report/report.schema.json', import.meta.url)), 'utf8')),
    );
    expect(validate(readReport(join(root, 'reports', runs[0]))) ? [] : validate.errors).toEqual([]);
  });

  it('--quiet prints only the verdict line and no progress', async () => {
    const io = captureIo(join(root, 'quiet'));
    expect(await runConformCommand({ ...base, only: ['health'], quiet: true, reportDir: join(root, 'quiet', 'r') }, io)).toBe(0);
    expect(io.err).toEqual([]);
    expect(io.out.join('')).toMatch(/^PASS — 0 findings \(MUST 0, SHOULD 0, INFO 0\), none at MUST \([^\n]*\)\n$/);
  });

  it('on a terminal, progress is one line updated in place: "endpoint n of N, failures so far"', async () => {
    const io = captureIo(join(root, 'tty'), true);
    expect(await runConformCommand({ ...base, only: ['tenants'], reportDir: join(root, 'tty', 'r') }, io)).toBe(0);
    const err = io.err.join('');
    const n = CONTRACT.filter((e) => e.tag === 'tenants').length;
    for (let i = 1; i <= n; i++) expect(err).toContain(`\r\x1b[Kendpoint ${i} of ${n}, failures so far 0 · `);
    expect(err).not.toMatch(/^endpoint \d+ of/m);
    // The per-tag line still lands on its own line, after the updating line is cleared.
    expect(err).toMatch(/\r\x1b\[Ktenants +\d+ endpoints/);
    for (const chunk of io.err.filter((t) => t.startsWith('\r\x1b[Kendpoint'))) expect(chunk.length - 4).toBeLessThanOrEqual(80);
  });

  it('--only / --skip / --shard select the endpoints and end up in the report and its replay command', async () => {
    const io = captureIo(join(root, 'sel'));
    const dir = join(root, 'sel', 'r');
    expect(
      await runConformCommand(
        {
          ...base,
          only: ['/api/cluster/tenant/*,users'],
          skip: ['POST /api/cluster/user/delete'],
          shard: { index: 2, count: 2 },
          reportDir: dir,
          quiet: true,
        },
        io,
      ),
    ).toBe(0);
    const report = readReport(dir);
    const selected = CONTRACT.filter(
      (e) =>
        (e.path.startsWith('/api/cluster/tenant/') || e.tag === 'users') && !(e.method === 'POST' && e.path === '/api/cluster/user/delete'),
    );
    // The shard's own endpoints; the others it reports carry only results of the properties dealt to it.
    const own = report.endpoints.filter((e) => e.checks.some((c) => !c.id.startsWith('property.')));
    expect(own.map((e) => e.path)).toEqual(selected.filter((_, i) => i % 2 === 1).map((e) => e.path));
    for (const e of report.endpoints.filter((x) => !own.includes(x))) expect(e).toMatchObject({ durationMs: 0 });
    expect(report.selection).toEqual({
      only: ['/api/cluster/tenant/*', 'users'],
      skip: ['POST /api/cluster/user/delete'],
      contractEndpoints: CONTRACT.length,
      selectedEndpoints: selected.length,
    });
    expect(report.shard).toEqual({ index: 2, count: 2 });
    expect(report.replay).toBe(
      `mqsim conform --target sim --seed 1 --nodes 1 --only '/api/cluster/tenant/*,users' --skip 'POST /api/cluster/user/delete' --shard 2/2`,
    );
  });

  it('--baseline compares findings: an unchanged finding exits 0, a new one exits 1 and is listed, a fixed one is listed', async () => {
    const url = await brokenServer();
    const broken = { ...base, target: url, timeout: 2000, only: ['/api/status', '/api/info'] };
    const first = join(root, 'bl', 'first');
    const io1 = captureIo(join(root, 'bl'));
    expect(await runConformCommand({ ...broken, reportDir: first, quiet: true }, io1)).toBe(1);
    const findings = readReport(first).findings;
    expect(findings.filter((f) => f.level === 'MUST').length).toBeGreaterThan(0);

    // Unchanged: the same findings again.
    const io2 = captureIo(join(root, 'bl'));
    expect(await runConformCommand({ ...broken, reportDir: join(root, 'bl', 'same'), baseline: first }, io2)).toBe(0);
    const same = io2.out.join('');
    expect(same).toMatch(/^PASS — no new MUST finding against baseline /m);
    expect(same).toContain(`0 new findings (0 MUST), 0 fixed, ${findings.length} still present`);

    // New: a baseline (given as its directory) without those findings.
    const clean = readReport(first);
    for (const e of clean.endpoints) for (const c of e.checks) if (c.status === 'fail') c.status = 'pass';
    clean.findings = [];
    const passedDir = join(root, 'bl', 'passed');
    writeReportDir(passedDir, clean);
    const io3 = captureIo(join(root, 'bl'));
    expect(await runConformCommand({ ...broken, reportDir: join(root, 'bl', 'new'), baseline: passedDir }, io3)).toBe(1);
    const worse = io3.out.join('');
    expect(worse).toMatch(/^FAIL — \d+ new MUST findings? against baseline /m);
    expect(worse).toContain('new findings (');
    expect(worse).toMatch(/ {2}✗ \[MUST\] \S+ on GET \/api\/status/);
    expect(readReport(join(root, 'bl', 'new')).baseline?.newFindings.length).toBe(findings.length);

    // Fixed: the simulator passes what the broken server failed.
    const io4 = captureIo(join(root, 'bl'));
    expect(
      await runConformCommand(
        { ...base, only: ['/api/status', '/api/info'], reportDir: join(root, 'bl', 'fixed'), baseline: join(first, 'report.json') },
        io4,
      ),
    ).toBe(0);
    const better = io4.out.join('');
    expect(better).toContain('fixed (');
    expect(better).toMatch(/ {2}✓ \[MUST\] \S+ on GET \/api\/status/);
    expect(readReport(join(root, 'bl', 'fixed')).baseline?.fixed.length).toBeGreaterThan(0);
  }, 60_000);

  it('exits 2 on an unreadable baseline or a pattern that matches nothing, before running anything', async () => {
    for (const [options, message] of [
      [{ baseline: join(root, 'no-such-report.json') }, /error: --baseline: cannot read report .*no-such-report\.json: no such file/],
      [{ baseline: writeText('not-json.json', '{oops') }, /error: --baseline: report .*not-json\.json is not JSON/],
      [{ baseline: writeText('not-report.json', '{"a":1}') }, /is not a mqsim conform report: no "target"/],
      [{ only: ['tenant'] }, /error: --only "tenant" matches no endpoint/],
      [{ skip: ['/api/nothing/*'] }, /error: --skip "\/api\/nothing\/\*" matches no endpoint/],
    ] as const) {
      const io = captureIo(join(root, 'usage'));
      expect(await runConformCommand({ ...base, ...options }, io), JSON.stringify(options)).toBe(2);
      expect(io.err.join('')).toMatch(message);
      expect(existsSync(join(root, 'usage'))).toBe(false);
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
      [['--target', 'sim', '--depth', '0'], /--depth must be between 1 and 1000000, got 0/],
      [['--seed', '1'], /required option '--target <url\|sim\|docker:IMAGE>'/],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, 'conform', ...args], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('mqsim conform flags', () => {
  it('refuses a bad --shard as a usage error (main turns a CommanderError into exit status 2)', async () => {
    for (const [value, message] of [
      ['3/2', /--shard: the shard number must be between 1 and 2, got 3/],
      ['half', /--shard must look like i\/n/],
      ['1/0', /the shard count must be between 1 and 1000/],
    ] as const) {
      let err = '';
      const program = new Command().exitOverride().configureOutput({ writeErr: (t) => void (err += t), writeOut: () => {} });
      registerConformCommand(program, { exit: () => expect.unreachable('the run must not start') });
      await expect(program.parseAsync(['node', 'mqsim', 'conform', '--target', 'sim', '--shard', value])).rejects.toBeInstanceOf(
        CommanderError,
      );
      expect(err, value).toMatch(message);
    }
  });

  it('refuses a bad --mqtt or --peer-address as a usage error', async () => {
    for (const [flag, value, message] of [
      ['--mqtt', '1883', /--mqtt must be HOST:PORT with a port from 1 to 65535 \(e\.g\. 127\.0\.0\.1:1883 or \[::1\]:1883\), got "1883"\./],
      ['--mqtt', 'broker:99999', /--mqtt must be HOST:PORT/],
      [
        '--peer-address',
        'my-laptop',
        /--peer-address must be an IP address of this host \(e\.g\. 127\.0\.0\.2 or \S+\), got "my-laptop"\./,
      ],
    ] as const) {
      let err = '';
      const program = new Command().exitOverride().configureOutput({ writeErr: (t) => void (err += t), writeOut: () => {} });
      registerConformCommand(program, { exit: () => expect.unreachable('the run must not start') });
      await expect(program.parseAsync(['node', 'mqsim', 'conform', '--target', 'sim', flag, value])).rejects.toBeInstanceOf(CommanderError);
      expect(err, `${flag} ${value}`).toMatch(message);
    }
    // An IP literal this host does not have: exit 2 before anything starts.
    const io = captureIo(join(root, 'bad-peer'));
    expect(await runConformCommand({ ...base, peerAddress: '203.0.113.7' }, io)).toBe(2);
    expect(io.err.join('')).toMatch(
      /^error: --peer-address 203\.0\.113\.7 cannot be used: this host cannot send from it \(EADDRNOTAVAIL\); give one of its own addresses/,
    );
    expect(existsSync(join(root, 'bad-peer'))).toBe(false);
  });

  it('documents the CI flags in --help with examples', () => {
    let out = '';
    const program = new Command().exitOverride().configureOutput({ writeOut: (t) => void (out += t), writeErr: () => {} });
    registerConformCommand(program);
    expect(() => program.parse(['node', 'mqsim', 'conform', '--help'])).toThrow(CommanderError);
    for (const flag of [
      '--only <patterns>',
      '--skip <patterns>',
      '--shard <i/n>',
      '--baseline <report.json>',
      '--quiet',
      'mqsim report merge shard-1 shard-2',
      '--baseline baseline/report.json',
    ])
      expect(out).toContain(flag);
    for (const flag of [
      '--jwt-secret <secret>',
      '--peer-address <ip>',
      '--mqtt <host:port|none>',
      '--depth <n>',
      '--depth 1000',
      '--jwt-secret "$MQSIM_JWT_SECRET"',
      '--peer-address 192.168.1.10 --mqtt 127.0.0.1:1883',
      'or the login with',
    ])
      expect(out).toContain(flag);
  });
});

describe('mqsim conform: set-up errors end the run with exit status 2 and one sentence, and no report', () => {
  const docroot = mkdtempSync(join(tmpdir(), 'mqsim-docroot-'));
  writeFileSync(join(docroot, 'index.html'), '<!DOCTYPE html><html><body>files</body></html>');
  let sim: SimTarget | undefined;
  afterAll(async () => {
    await sim?.close();
    rmSync(docroot, { recursive: true, force: true });
  });

  async function expectSetupError(options: Partial<ConformCommandOptions>, sentence: RegExp): Promise<void> {
    const reports = join(root, 'setup', String(Math.random()).slice(2));
    const io = captureIo(reports);
    expect(await runConformCommand({ ...base, reportDir: join(reports, 'r'), ...options }, io)).toBe(2);
    const err = io.err.join('');
    expect(err).toMatch(sentence);
    expect(err.split('\n')).toHaveLength(2); // one line and its newline
    expect(io.out).toEqual([]);
    expect(existsSync(reports)).toBe(false);
  }

  it('a target that is down', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    await expectSetupError(
      { target: `http://127.0.0.1:${port}`, timeout: 2000 },
      new RegExp(
        `^error: nothing answers at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): start the server, or check --target \\(the base URL of the admin HTTP API, port 58080 by default\\)\\.\n$`,
      ),
    );
  });

  it('a target that is not this API (a plain static file server)', async () => {
    const server = createServer(staticFileHandler(docroot));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expectSetupError(
      { target: url, timeout: 2000 },
      new RegExp(
        `^error: ${url.replace(/\./g, '\\.')} is not the broker's admin HTTP API: none of GET /health/ready, .* answered with its JSON envelope .*; check --target .*\\.\n$`,
      ),
    );
  });

  it('a login refused with the given credentials (the simulator served with admin credentials, a wrong password)', async () => {
    sim = await SimTarget.start({ seed: 1, nodes: 1, transport: 'loopback', workload: 'none' });
    await expectSetupError(
      { target: sim.baseUrl, username: SIM_ADMIN.username, password: 'wrong-password' },
      new RegExp(
        `^error: login refused for user admin at ${sim.baseUrl.replace(/\./g, '\\.')}/api/v1/login: HTTP 401, code 401 "Invalid username or password"; check --username/--password\\.\n$`,
      ),
    );
  });
});

describe('mqsim conform --jwt-secret against the simulator served over HTTP', () => {
  let sim: SimTarget;
  beforeAll(async () => {
    sim = await SimTarget.start({ seed: 2, nodes: 1, transport: 'loopback', workload: 'none' });
  });
  afterAll(async () => {
    await sim?.close();
  });

  const expiredSigned = (report: Report) =>
    report.endpoints.find((e) => e.id === 'cluster.tenant.list')!.checks.find((c) => c.id === 'auth.expired-signed-token')!;

  it('runs the correctly-signed expired token check with the secret, skips it naming --jwt-secret without, and never writes the secret', async (test) => {
    const run = async (name: string, jwtSecret?: string) => {
      const dir = join(root, 'jwt', name);
      const code = await runConformCommand(
        {
          ...base,
          target: sim.baseUrl,
          username: SIM_ADMIN.username,
          password: SIM_ADMIN.password,
          ...(jwtSecret ? { jwtSecret } : {}),
          only: ['cluster.tenant.list'],
          properties: false,
          quiet: true,
          reportDir: dir,
        },
        captureIo(join(root, 'jwt')),
      );
      return { code, dir, report: readReport(dir) };
    };
    const withSecret = await run('with', SIM_ADMIN.jwtSecret);
    if (withSecret.report.notes.some((n) => n.startsWith('auth checks skipped')))
      test.skip(`no non-loopback peer here: ${withSecret.report.notes.join(' / ')}`);
    expect(withSecret.code).toBe(0);
    expect(expiredSigned(withSecret.report)).toMatchObject({
      status: 'pass',
      message: 'a correctly signed token that expired an hour ago refused with 401',
    });
    expect(withSecret.report.replay).toBe(
      `mqsim conform --target ${sim.baseUrl} --seed 1 --username admin --password "$MQSIM_PASSWORD" --jwt-secret "$MQSIM_JWT_SECRET" --only cluster.tenant.list`,
    );
    for (const file of ['report.json', 'index.html', 'junit.xml']) {
      const text = readFileSync(join(withSecret.dir, file), 'utf8');
      expect(text.includes(SIM_ADMIN.jwtSecret), `${file} holds the signing secret`).toBe(false);
      expect(text.includes(SIM_ADMIN.password), `${file} holds the password`).toBe(false);
    }

    const without = await run('without');
    expect(expiredSigned(without.report)).toMatchObject({ status: 'skipped' });
    expect(expiredSigned(without.report).message).toContain('give it with --jwt-secret');
  }, 60_000);
});

function writeText(name: string, text: string): string {
  const file = join(root, name);
  writeFileSync(file, text);
  return file;
}

/** A baseline directory holding report.json, as `--report-dir` writes it. */
function writeReportDir(dir: string, report: Report): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
}

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
