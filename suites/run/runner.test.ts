import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import { exitCodeOf, type CheckRecord, type Report } from '../conform/report-model.ts';
import { runConform, SetupError } from './runner.ts';
import { apiOnceThen } from '../conform/testing/passes-preflight.ts';

/**
 * The runner against servers that misbehave on purpose: it must finish, fail the right checks, never
 * throw, and always write its reports. The servers answer the preflight's first probe as the API
 * does (testing/passes-preflight.ts); a server that never does is a set-up error (last test).
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-conform-fake-'));
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
  rmSync(dir, { recursive: true, force: true });
});

async function fakeServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const misbehave = apiOnceThen(handler);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => misbehave(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function answer(status: number, body: string, type = 'application/json') {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
}

async function run(url: string, name: string): Promise<Report> {
  const reportDir = join(dir, name);
  const report = await runConform({ target: url, seed: 3, reportDir, timeoutMs: 2000 });
  for (const file of ['report.json', 'index.html', 'junit.xml']) expect(existsSync(join(reportDir, file)), file).toBe(true);
  expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).endpoints).toHaveLength(CONTRACT.length);
  return report;
}

function checksOf(report: Report, method: string, path: string): CheckRecord[] {
  return report.endpoints.find((e) => e.method === method && e.path === path)?.checks ?? [];
}

function statusOf(report: Report, method: string, path: string, id: string): string | undefined {
  return checksOf(report, method, path).find((c) => c.id === id)?.status;
}

describe('runConform against misbehaving servers', () => {
  it('a server answering 500 to everything fails the happy paths and the envelope rules', async () => {
    const report = await run(await fakeServer(answer(500, 'Internal Server Error', 'text/plain')), 'http-500');
    expect(report.vacuous).toBe(false);
    expect(exitCodeOf(report)).toBe(1);
    const happy = checksOf(report, 'GET', '/api/cluster/tenant/list').find((c) => c.id === 'happy-path')!;
    expect(happy).toMatchObject({ status: 'fail', level: 'MUST' });
    expect(happy.message).toMatch(/HTTP 500/);
    expect(happy.curl).toMatch(/^curl -sS -X GET 'http:\/\/127\.0\.0\.1:\d+\/api\/cluster\/tenant\/list/);
    expect(happy.response?.status).toBe(500);
    expect(statusOf(report, 'GET', '/api/cluster/tenant/list', 'envelope.answers-are-envelopes')).toBe('fail');
    expect(report.notes.some((n) => n.startsWith('fixture tenant not created'))).toBe(true);
    for (const e of report.endpoints) expect(e.checks.length, `${e.method} ${e.path}`).toBeGreaterThan(0);
  });

  it('a server answering garbage JSON fails the envelope checks without crashing', async () => {
    const report = await run(await fakeServer(answer(200, '{"code": 0, "data": [1, 2')), 'garbage');
    expect(exitCodeOf(report)).toBe(1);
    const env = checksOf(report, 'GET', '/api/status').find((c) => c.id === 'success-envelope')!;
    expect(env.status).toBe('fail');
    expect(env.message).toMatch(/not JSON/);
    expect(report.notes.filter((n) => n.includes('harness error'))).toEqual([]);
  });

  it('a server answering 401 to everything makes a vacuous run that never passes', async () => {
    const report = await run(
      await fakeServer(answer(401, JSON.stringify({ code: 401, message: 'Missing Authorization header', data: null }))),
      'all-401',
    );
    expect(report.vacuous).toBe(true);
    expect(report.summary.vacuous).toBe(true);
    expect(report.verdict).toBe('fail');
    expect(report.verdictLine).toMatch(/^VACUOUS/);
    expect(report.vacuousReason).toMatch(/were 401/);
    expect(exitCodeOf(report)).toBe(1);
    expect(readFileSync(join(dir, 'all-401', 'index.html'), 'utf8')).toContain('Vacuous run');
  });

  // A whole run (every check gets an answer, as from a real server): longer than the 30 s default on a busy machine.
  it('a server that accepts everything fails auth, limits, required parameters and schemas', async () => {
    const report = await run(await fakeServer(answer(200, JSON.stringify({ code: 0, message: 'success', data: 'success' }))), 'accept-all');
    expect(exitCodeOf(report)).toBe(1);
    // From loopback, a server that accepts everything looks like one exempting all of 127/8: the auth
    // checks are skipped with that reason and the wider exemption is reported as an INFO deviation.
    const remote = report.notes.some((n) => n.startsWith('auth checks skipped'));
    if (!remote) {
      expect(statusOf(report, 'GET', '/api/cluster/tenant/list', 'auth.no-token')).toBe('skipped');
      expect(statusOf(report, 'GET', '/api/status', 'auth.loopback-exemption')).toBe('fail');
    }
    expect(statusOf(report, 'POST', '/api/cluster/tenant/create', 'limit.tenant_name.length-129')).toBe('fail');
    expect(statusOf(report, 'POST', '/api/cluster/tenant/create', 'required.tenant_name')).toBe('fail');
    expect(statusOf(report, 'GET', '/api/cluster/tenant/list', 'data-schema')).toBe('fail');
    expect(statusOf(report, 'POST', '/api/cluster/node/leave', 'node-leave.node-id-minimum')).toBe('fail');
    expect(statusOf(report, 'POST', '/api/v1/login', 'login.wrong-credentials')).toBe('fail');
  }, 120_000);

  it('an unreachable target ends the run before any check with a SetupError, and no report', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const reportDir = join(dir, 'unreachable');
    const err = await runConform({ target: `http://127.0.0.1:${port}`, seed: 3, reportDir, timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect((err as SetupError).problem).toBe('down');
    expect((err as Error).message).toMatch(
      new RegExp(`^nothing answers at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): start the server, or check --target`),
    );
    expect(existsSync(reportDir)).toBe(false);
  });
});
