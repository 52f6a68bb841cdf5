import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { CheckRecord, Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';
import { apiOnceThen, apiOnceThenTcp } from './testing/passes-preflight.ts';

/**
 * The runner against targets that are hostile rather than merely wrong: they hang, answer garbage,
 * reset connections, send 50 MB, answer 500, or redirect forever. Whatever they do, the run must end
 * within its time budget, never throw, always write its three reports, and say WHY each affected
 * endpoint failed. Each target answers the preflight's first probe as the API does and turns hostile
 * after that: hostile from the first request, it is a set-up error (preflight.test.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-hostile-'));
const httpServers: Server[] = [];
const tcpServers: TcpServer[] = [];
const sockets = new Set<Socket>();
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(
    httpServers.map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
  await Promise.all(tcpServers.map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

/** A small slice of the contract: a GET without parameters, a list and a create. */
const SUBSET = CONTRACT.filter((e) => ['cluster.status', 'cluster.tenant.list', 'cluster.tenant.create'].includes(e.id));
const TIMEOUT_MS = 300;

async function httpTarget(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const hostile = apiOnceThen(handler);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => hostile(req, res));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  httpServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function tcpTarget(onConnection: (socket: Socket) => void): Promise<string> {
  const hostile = apiOnceThenTcp(onConnection);
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    hostile(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tcpServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs the subset against `url` and checks the run's universal promises; returns the report. */
async function runHostile(url: string, name: string, budgetMs: number): Promise<Report> {
  const reportDir = join(dir, name);
  const started = performance.now();
  const report = await runConform({ target: url, seed: 1, timeoutMs: TIMEOUT_MS, reportDir, contract: SUBSET, properties: false });
  const elapsed = performance.now() - started;
  expect(elapsed, `${name} run took ${Math.round(elapsed)} ms`).toBeLessThan(budgetMs);
  for (const file of ['report.json', 'index.html', 'junit.xml']) expect(existsSync(join(reportDir, file)), file).toBe(true);
  expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).endpoints).toHaveLength(SUBSET.length);
  expect(report.verdict).toBe('fail');
  expect(report.notes.filter((n) => n.includes('stopped early'))).toEqual([]);
  return report;
}

/** Every endpoint has a failed MUST check whose message matches `reason`. */
function expectReasonPerEndpoint(report: Report, reason: RegExp): void {
  for (const e of report.endpoints) {
    const failed: CheckRecord[] = e.checks.filter((c) => c.status === 'fail' && c.level === 'MUST');
    expect(failed.length, `${e.method} ${e.path} has failed checks`).toBeGreaterThan(0);
    expect(
      failed.some((c) => reason.test(c.message ?? '')),
      `${e.method} ${e.path}: ${failed
        .map((c) => c.message)
        .join(' / ')
        .slice(0, 400)}`,
    ).toBe(true);
  }
}

/**
 * A target that stops answering after the preflight (it hangs): the run notices (requests in a row
 * without an answer, then /health/ready and / without one either) and ends with ONE finding saying
 * when and at which request, instead of one "no answer" finding per endpoint (target-watch.ts).
 */
function expectStopped(report: Report, reason: RegExp): void {
  expect(report.stopped, 'the run noticed the target stopped answering').toBeDefined();
  expect(report.findings.map((f) => f.id)).toEqual(['target-stopped']);
  expect(report.findings[0].title).toMatch(reason);
  expect(report.verdictLine).toMatch(/^INCOMPLETE — the target stopped answering at /);
  // No endpoint is failed by requests that never got an answer.
  expect(report.endpoints.filter((e) => e.status === 'fail')).toEqual([]);
}

describe('runConform against hostile targets', () => {
  it('(a) a target that accepts connections and never answers: the requests time out, the run ends as stopped', async () => {
    const url = await tcpTarget(() => {}); // reads nothing, writes nothing, keeps the socket open
    const report = await runHostile(url, 'hang', 30_000);
    expectStopped(report, new RegExp(`no answer within ${TIMEOUT_MS} ms`));
    expect(report.requests.transportErrors).toBe(report.requests.total);
  }, 90_000);

  it('(a1) the WHOLE contract against a hanging target still finishes within its budget', async () => {
    const url = await tcpTarget(() => {});
    const reportDir = join(dir, 'hang-full');
    const started = performance.now();
    const report = await runConform({ target: url, seed: 1, timeoutMs: TIMEOUT_MS, reportDir, properties: false });
    expect(performance.now() - started).toBeLessThan(45_000);
    for (const file of ['report.json', 'index.html', 'junit.xml']) expect(existsSync(join(reportDir, file)), file).toBe(true);
    expect(report.endpoints).toHaveLength(CONTRACT.length);
    expectStopped(report, new RegExp(`no answer within ${TIMEOUT_MS} ms`));
    expect(report.stopped!.endpointsChecked).toBeLessThan(5);
    expect(report.requests.transportErrors).toBe(report.requests.total);
  }, 90_000);

  it('(a2) a target that sends headers then drips the body forever: bounded by the timeout', async () => {
    const url = await httpTarget((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":0,');
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 50);
      res.on('close', () => clearInterval(drip));
    });
    const report = await runHostile(url, 'drip', 30_000);
    expectStopped(report, new RegExp(`no answer within ${TIMEOUT_MS} ms`));
  }, 90_000);

  it('(b) a target answering garbage (random bytes, truncated JSON, HTML) fails the envelope checks', async () => {
    let n = 0;
    const url = await httpTarget((_req, res) => {
      const kind = n++ % 3;
      if (kind === 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(randomBytes(256));
      } else if (kind === 1) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"code":0,"message":"success","data":{"a":[1,');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1>It works!</h1></body></html>');
      }
    });
    const report = await runHostile(url, 'garbage', 30_000);
    expectReasonPerEndpoint(report, /not JSON|HTTP 200, body|envelope/i);
  }, 60_000);

  it('(b2) a target writing raw non-HTTP bytes on the socket: a transport error with the parser reason', async () => {
    const url = await tcpTarget((socket) => {
      socket.once('data', () => socket.end(randomBytes(512)));
    });
    const report = await runHostile(url, 'raw-bytes', 30_000);
    expectReasonPerEndpoint(report, /no answer.*(does not match the HTTP|HPE_|parse error)/i);
  }, 60_000);

  it('(c) a target resetting connections mid-response: reported as a reset, not a crash', async () => {
    const url = await httpTarget((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"code":0,"mess');
      setImmediate(() => res.socket?.resetAndDestroy?.() ?? res.destroy());
    });
    const report = await runHostile(url, 'reset', 30_000);
    expectReasonPerEndpoint(report, /no answer.*(ECONNRESET|other side closed|UND_ERR_SOCKET)/i);
  }, 60_000);

  it('(d) a target sending a 50 MB body: reading stops at the cap with that reason', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const url = await httpTarget((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const more = (): void => {
        while (sent < 50) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => {});
      more();
    });
    const report = await runHostile(url, 'fifty-mb', 60_000);
    expectReasonPerEndpoint(report, /response body exceeds \d+ bytes/);
  }, 90_000);

  it('(e) a target answering 500 to everything fails each endpoint naming the status', async () => {
    const url = await httpTarget((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
    });
    const report = await runHostile(url, 'all-500', 30_000);
    expectReasonPerEndpoint(report, /HTTP 500/);
  }, 60_000);

  it('(f) a target redirecting to itself forever: the redirect is not followed and is named', async () => {
    const url = await httpTarget((req, res) => {
      res.writeHead(302, { location: req.url ?? '/', 'content-type': 'text/plain' });
      res.end('Found');
    });
    const report = await runHostile(url, 'redirect-loop', 30_000);
    expectReasonPerEndpoint(report, /HTTP 302.*redirect/i);
    // Not followed: one request to the target per exchange the run recorded.
    expect(report.requests.byStatus['302']).toBe(report.requests.total);
  }, 60_000);
});
