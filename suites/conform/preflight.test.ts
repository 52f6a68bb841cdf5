import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SIM_ADMIN, SimTarget } from '../targets/sim-target.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { preflight, SetupError } from './preflight.ts';
import { staticFileHandler } from './testing/static-file-server.ts';

/**
 * The preflight against real servers: a closed port, a hung one, one that does not speak HTTP, a
 * plain static file server, servers that implement the API imperfectly (which must pass), and the
 * simulator with right and wrong credentials.
 */

const servers: Server[] = [];
const tcpServers: TcpServer[] = [];
const sockets = new Set<Socket>();
const targets: { close(): Promise<void> }[] = [];
const docroot = mkdtempSync(join(tmpdir(), 'mqsim-preflight-'));
writeFileSync(join(docroot, 'index.html'), '<!DOCTYPE html><html><body><h1>Directory listing for /</h1></body></html>');

afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
  for (const s of sockets) s.destroy();
  await Promise.all(
    servers.map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
  await Promise.all(tcpServers.map((s) => new Promise((r) => s.close(r))));
  rmSync(docroot, { recursive: true, force: true });
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serveTcp(onConnection: (socket: Socket) => void): Promise<string> {
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tcpServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function urlTarget(options: Parameters<typeof UrlTarget.create>[0]): Promise<UrlTarget> {
  const t = await UrlTarget.create(options);
  targets.push(t);
  return t;
}

async function setupError(target: UrlTarget): Promise<SetupError> {
  const err = await preflight(target).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SetupError);
  // One sentence: one line, ending with what to do.
  expect((err as SetupError).message).not.toContain('\n');
  expect((err as SetupError).message).toMatch(/\.$/);
  return err as SetupError;
}

const text = (res: ServerResponse, status: number, body: unknown, type = 'text/plain; charset=utf-8') => {
  res.writeHead(status, { 'content-type': type });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

describe('preflight: the run cannot start', () => {
  it('nothing listens at the URL: "down", naming the refused connection', async () => {
    const port = await closedPort();
    const err = await setupError(await urlTarget({ url: `http://127.0.0.1:${port}`, timeoutMs: 2000 }));
    expect(err.problem).toBe('down');
    expect(err.message).toMatch(
      new RegExp(
        `^nothing answers at http://127\\.0\\.0\\.1:${port} \\(GET /health/ready: ECONNREFUSED.*\\): start the server, or check --target \\(the base URL of the admin HTTP API, port 58080 by default\\)\\.$`,
      ),
    );
  });

  it('a server that accepts connections and never answers: "down" after one timeout, not one per probe', async () => {
    const url = await serveTcp(() => {});
    const started = performance.now();
    const err = await setupError(await urlTarget({ url, timeoutMs: 400 }));
    expect(performance.now() - started).toBeLessThan(1500);
    expect(err.problem).toBe('down');
    expect(err.message).toMatch(/^nothing answers at .*no answer within 400 ms \(--timeout\)\): start the server/);
  });

  it('a server that does not speak HTTP: named with the parser error', async () => {
    const url = await serveTcp((socket) => socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001garbage')));
    const err = await setupError(await urlTarget({ url, timeoutMs: 2000 }));
    expect(err.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+ does not answer HTTP requests \(.*\): check --target/);
  });

  it('a plain static file server is not this API', async () => {
    const url = await serve(staticFileHandler(docroot));
    const err = await setupError(await urlTarget({ url, timeoutMs: 2000 }));
    expect(err.problem).toBe('not-the-api');
    expect(err.message).toBe(
      `${url} is not the broker's admin HTTP API: none of GET /health/ready, GET /api/info, GET /api/status, GET /api/cluster/tenant/list and POST /api/v1/login answered with its JSON envelope (an object with a numeric "code" and "data"; GET /health/ready got HTTP 404 text/html "<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error c…"); check --target (the base URL of the admin HTTP API, port 58080 by default).`,
    );
    // With credentials the login is the last probe, and a file server's 501 is no refusal of them.
    const withLogin = await setupError(await urlTarget({ url, timeoutMs: 2000, username: 'admin', password: 'pw' }));
    expect(withLogin.problem).toBe('not-the-api');
  });

  it('JSON that is not the envelope (another JSON API) is not this API either', async () => {
    const url = await serve((_req, res) => text(res, 200, { status: 'ok', items: [] }, 'application/json'));
    expect((await setupError(await urlTarget({ url, timeoutMs: 2000 }))).problem).toBe('not-the-api');
  });

  it('the simulator refusing a wrong password: "login refused", naming the user and the answer', async () => {
    const sim = await SimTarget.start({ seed: 1, nodes: 1, transport: 'loopback', workload: 'none' });
    targets.push(sim);
    const err = await setupError(await urlTarget({ url: sim.baseUrl, username: SIM_ADMIN.username, password: 'not-the-password' }));
    expect(err.problem).toBe('login-refused');
    expect(err.message).toBe(
      `login refused for user admin at ${sim.baseUrl}/api/v1/login: HTTP 401, code 401 "Invalid username or password"; check --username/--password.`,
    );
  });
});

describe('preflight: a server that is this API, however imperfect, is not refused', () => {
  it('the simulator with the right credentials: logged in, no notes', async () => {
    const sim = await SimTarget.start({ seed: 1, nodes: 1, workload: 'none' });
    targets.push(sim);
    const result = await preflight(sim);
    expect(result).toEqual({ notes: [], shownBy: 'GET /health/ready' });
    expect(sim.token).toMatch(/^ey/);
  });

  const imperfect: [string, (req: IncomingMessage, res: ServerResponse) => void][] = [
    [
      // The real server without ./dist: no /health route answered here, envelopes B as text/plain, failures code 100.
      'envelope B as text/plain, code 100, /health missing',
      (req, res) =>
        req.url?.startsWith('/api/') ? text(res, 200, { code: 100, data: '', error: 'Tenant list failed' }) : text(res, 404, ''),
    ],
    [
      // A remote server seen without credentials: every /api route a 401 body, the rest the dashboard.
      'only 401 bodies under /api, HTML elsewhere',
      (req, res) =>
        req.url?.startsWith('/api/')
          ? text(res, 401, { code: 401, data: null, message: 'Missing Authorization header' }, 'application/json')
          : text(res, 200, '<html>dashboard</html>', 'text/html'),
    ],
    [
      // The SPA fallback answers every GET with index.html; only the login shows the API.
      'index.html for every GET, an envelope only from the login',
      (req, res) =>
        req.method === 'POST' && req.url === '/api/v1/login'
          ? text(res, 401, { code: 401, data: null, message: 'Invalid username or password' }, 'application/json')
          : text(res, 200, '<html>dashboard</html>', 'text/html'),
    ],
    [
      // One route left, an older envelope with code 1 and data null, everything else 404.
      'one route, code 1, other routes 404',
      (req, res) =>
        req.url?.startsWith('/api/cluster/tenant/list')
          ? text(res, 200, { code: 1, message: 'failed', data: null }, 'application/json')
          : text(res, 404, 'Not Found'),
    ],
  ];
  for (const [name, handler] of imperfect) {
    it(name, async () => {
      const result = await preflight(await urlTarget({ url: await serve(handler), timeoutMs: 2000 }));
      expect(result.notes).toEqual([]);
    });
  }

  it('a login that fails on the server side (HTTP 500) is a note, not a refusal: the login checks report it', async () => {
    const url = await serve((req, res) =>
      req.url === '/api/v1/login'
        ? text(res, 500, { code: 500, data: null, message: 'Failed to generate token: boom' }, 'application/json')
        : text(res, 200, { code: 0, data: { status: 'ok' }, error: null }),
    );
    const t = await urlTarget({ url, username: 'admin', password: 'pw' });
    const result = await preflight(t);
    expect(result.notes).toEqual([
      'login with the given credentials failed: HTTP 500, code 500 "Failed to generate token: boom"; requests carry no token',
    ]);
    expect(t.token).toBeUndefined();
  });
});
