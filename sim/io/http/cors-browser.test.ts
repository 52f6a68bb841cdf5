import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceMissing } from '../../../fixtures/testing/required-service.ts';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';

/**
 * A dashboard on another origin, in a real browser (Debian's Chromium driven by playwright-core): the
 * page is served from one port, `mqsim serve` listens on another, so every call is cross-origin and
 * the JSON bodies and the Bearer token make Chromium send a preflight first. A plain server without
 * CORS headers, called the same way, shows the browser does refuse what CORS does not allow.
 * Without /usr/bin/chromium the test is skipped, saying how to install it (.ci/run installs it).
 */

const CHROMIUM = '/usr/bin/chromium';
const noChromium = serviceMissing(
  'Chromium',
  existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium)`,
);
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What the page does, as a dashboard would: log in, then list, create, list, delete, list with the token. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>dashboard</title></head><body><script>
const api = new URLSearchParams(location.search).get('api');
const steps = [];
async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = 'Bearer ' + token;
  const res = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  steps.push({ method, path, status: res.status, code: json.code });
  return json;
}
(async () => {
  try {
    const login = await call('POST', '/api/v1/login', { username: 'admin', password: 'browser-pw' });
    const token = login.data && login.data.token;
    const names = async () => ((await call('GET', '/api/cluster/tenant/list?tenant_name=browser-made', undefined, token)).data.data || []).map((t) => t.tenant_name);
    const before = await names();
    await call('POST', '/api/cluster/tenant/create', { tenant_name: 'browser-made', desc: 'from another origin' }, token);
    const created = await names();
    await call('POST', '/api/cluster/tenant/delete', { tenant_name: 'browser-made' }, token);
    const after = await names();
    window.__result = { ok: true, token: typeof token === 'string' && token.length > 0, before, created, after, steps };
  } catch (e) {
    window.__result = { ok: false, error: String(e), steps };
  }
})();
</script></body></html>`;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe.skipIf(noChromium)('a dashboard page on another origin, in headless Chromium', () => {
  let running: RunningCluster;
  let pageServer: Server;
  let pageOrigin: string;
  // Answers like the API but without any CORS header: the browser must refuse to let the page read it.
  let noCors: Server;
  let noCorsUrl: string;
  beforeAll(async () => {
    running = await startClusterServer({ seed: 11, nodes: 2, port: 0, workload: 'none', admin: { password: 'browser-pw' } });
    pageServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
    pageOrigin = await listen(pageServer);
    noCors = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":0,"message":"success","data":{"token":"t"}}'),
    );
    noCorsUrl = await listen(noCors);
  });
  afterAll(async () => {
    await running?.close();
    await new Promise((r) => pageServer?.close(r));
    await new Promise((r) => noCors?.close(r));
  });

  async function runPage(api: string): Promise<Record<string, unknown>> {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(`${pageOrigin}/?api=${encodeURIComponent(api)}`);
      // Evaluated in the page (strings, so Node's types need no DOM).
      await page.waitForFunction('window.__result !== undefined', undefined, { timeout: 15_000 });
      return (await page.evaluate('window.__result')) as Record<string, unknown>;
    } finally {
      await browser.close();
    }
  }

  it('logs in, lists tenants with its Bearer token, creates one and deletes it', async () => {
    expect(new URL(pageOrigin).origin).not.toBe(new URL(running.baseUrl).origin);
    const result = await runPage(running.baseUrl);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, token: true, before: [], created: ['browser-made'], after: [] });
    const steps = result.steps as { method: string; path: string; status: number; code: number }[];
    expect(steps.map((s) => `${s.method} ${s.path.split('?')[0]} ${s.status} ${s.code}`)).toEqual([
      'POST /api/v1/login 200 0',
      'GET /api/cluster/tenant/list 200 0',
      'POST /api/cluster/tenant/create 200 0',
      'GET /api/cluster/tenant/list 200 0',
      'POST /api/cluster/tenant/delete 200 0',
      'GET /api/cluster/tenant/list 200 0',
    ]);
    // The page's create and delete went through the model: the tenant is gone there too.
    expect(running.cluster.tenants.has('browser-made')).toBe(false);
    expect(running.cluster.tenants.has('default')).toBe(true);
  }, 60_000);

  it('is refused by the browser against a server without CORS headers (the check can fail)', async () => {
    const result = await runPage(noCorsUrl);
    expect(result.ok).toBe(false);
    expect(String(result.error)).toMatch(/Failed to fetch/);
  }, 60_000);
});
