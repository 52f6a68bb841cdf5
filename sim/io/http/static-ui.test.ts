import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';
import { isServerPath, StaticUi, UiDirError, withApiPort } from './static-ui.ts';

const INDEX = '<!doctype html><html><body><div id="root"></div><script src="/assets/app.js"></script></body></html>';
let dir: string;
let outside: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mqsim-ui-'));
  outside = mkdtempSync(join(tmpdir(), 'mqsim-ui-outside-'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("dashboard")');
  writeFileSync(join(dir, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, 'config.js'), 'window.__APP_CONFIG__ = { "port": 4000, "api": { "port": null, "baseUrl": null } };\n');
  writeFileSync(join(outside, 'secret.txt'), 'not for the browser');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('StaticUi', () => {
  it('refuses a directory that is missing, a file, or has no index.html, naming the problem', () => {
    expect(() => new StaticUi(join(dir, 'nope'))).toThrow(UiDirError);
    expect(() => new StaticUi(join(dir, 'index.html'))).toThrow(/not a directory/);
    expect(() => new StaticUi(join(dir, 'assets'))).toThrow(/no index\.html/);
  });

  it('leaves the paths the server routes to the server', () => {
    for (const p of [
      '/api/cluster/tenant/list',
      '/api/v1/login',
      '/health/ready',
      '/metrics',
      '/mcp',
      '/.well-known/oauth-protected-resource',
      '/register',
      '/debug/pprof/flamegraph',
      '/_sim/clock',
    ])
      expect(isServerPath(p), p).toBe(true);
    for (const p of ['/', '/index.html', '/assets/app.js', '/mqtt/overview', '/apis', '/healthz']) expect(isServerPath(p), p).toBe(false);
  });

  it("points the dashboard's config.js at the node that serves it", () => {
    const out = withApiPort(
      Buffer.from('window.__APP_CONFIG__ = { "port": 4000, "api": { "port": null, "baseUrl": "http://elsewhere" } };\n'),
      58081,
    ).toString();
    expect(out).toBe('window.__APP_CONFIG__ = {"port":4000,"api":{"port":58081,"baseUrl":null}};\n');
    expect(withApiPort(Buffer.from('export default 1'), 1).toString()).toBe('export default 1');
  });
});

describe('mqsim serve --ui DIR', () => {
  let running: RunningCluster;
  let robust: RunningCluster;
  beforeAll(async () => {
    running = await startClusterServer({ seed: 5, nodes: 2, port: 0, workload: 'none', ui: dir });
    robust = await startClusterServer({ seed: 5, nodes: 1, port: 0, workload: 'none', ui: dir, dialect: 'robustmq' });
  });
  afterAll(async () => {
    await running.close();
    await robust.close();
  });

  const get = async (base: string, path: string, init: { method?: 'GET' | 'HEAD' | 'POST'; headers?: Record<string, string> } = {}) => {
    const res = await request(`${base}${path}`, { method: init.method ?? 'GET', headers: init.headers ?? {} });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };

  it('serves index.html at /, the assets with their types, and the API next to them', async () => {
    for (const base of running.nodeUrls) {
      const root = await get(base, '/');
      expect([root.status, root.headers['content-type'], root.text]).toEqual([200, 'text/html; charset=utf-8', INDEX]);
      expect(root.headers['access-control-allow-origin']).toBe('*');
      const js = await get(base, '/assets/app.js');
      expect([js.status, js.headers['content-type'], js.text]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log("dashboard")']);
      expect((await get(base, '/assets/logo.svg')).headers['content-type']).toBe('image/svg+xml');
      const api = await get(base, '/api/cluster/tenant/list');
      expect(JSON.parse(api.text).code).toBe(0);
      expect((await get(base, '/health/ready')).status).toBe(200);
    }
  });

  it('answers a path that is no file with index.html and 404 (the real not_found_service), so deep links load', async () => {
    const deep = await get(running.baseUrl, '/mqtt/overview?tab=1');
    expect([deep.status, deep.headers['content-type'], deep.text]).toEqual([404, 'text/html; charset=utf-8', INDEX]);
    const dirNoSlash = await get(running.baseUrl, '/assets');
    expect([dirNoSlash.status, dirNoSlash.headers.location]).toEqual([307, '/assets/']);
    const post = await get(running.baseUrl, '/mqtt/overview', { method: 'POST' });
    expect([post.status, post.headers.allow, post.text]).toEqual([405, 'GET,HEAD', '']);
    const head = await get(running.baseUrl, '/assets/app.js', { method: 'HEAD' });
    expect([head.status, head.headers['content-length'], head.text]).toEqual([200, String('console.log("dashboard")'.length), '']);
    const cached = await get(running.baseUrl, '/assets/app.js', {
      headers: { 'if-modified-since': String(head.headers['last-modified']) },
    });
    expect([cached.status, cached.text]).toEqual([304, '']);
  });

  it('never reads outside DIR: dot-dot segments, encoded or not, and symbolic links out of it', async () => {
    for (const path of ['/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fetc%2fpasswd', '/..%5c..%5cetc%5cpasswd', '/leak.txt']) {
      const res = await get(running.baseUrl, path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).toBe(INDEX);
    }
  });

  it('serves config.js with api.port set to the port of the node that answered', async () => {
    for (const base of running.nodeUrls) {
      const res = await get(base, '/config.js');
      const port = Number(new URL(base).port);
      expect(res.text).toBe(`window.__APP_CONFIG__ = ${JSON.stringify({ port: 4000, api: { port, baseUrl: null } })};\n`);
    }
  });

  it('with --dialect robustmq, / is the dashboard (the real server with ./dist), the API keeps its dialect', async () => {
    const root = await get(robust.baseUrl, '/');
    expect([root.status, root.text]).toEqual([200, INDEX]);
    const list = JSON.parse((await get(robust.baseUrl, '/api/cluster/tenant/list')).text);
    expect(list).toMatchObject({ code: 0, error: null });
  });
});
