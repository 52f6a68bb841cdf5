/**
 * HTTP soak of `mqsim serve` (issue 7): N concurrent keep-alive clients (one undici Client, i.e. one
 * connection, each) run a mix of listings and create+delete pairs against the real HTTP server in a
 * child process for a fixed time, then the server's retained memory is compared with what it held
 * after a warm-up.
 *
 * What "memory growth" means here: heap used after full garbage collections (the child runs with
 * --expose-gc), measured once the warm-up has filled every bounded structure (the trace ring, rate
 * limiter buckets, Raft logs up to their snapshot threshold, connection buffers) and again at the end.
 * The load leaves the model's data where it found it (every tenant created is deleted again; the
 * listings change nothing), so a retained-heap difference is memory the server keeps per request,
 * i.e. a leak, not data a client asked it to keep. The cluster runs without the demo workload for the
 * same reason: its clients publish messages the topics keep, which is data, not a leak. RSS is
 * reported too but not judged: the allocator
 * keeps freed pages, so RSS after a GC measures the peak more than what is retained.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';

export interface SoakOptions {
  clients: number;
  /** Nodes of the served cluster (default 3, as `mqsim serve`); the clients all talk to node 1. */
  nodes?: number;
  /** Measured phase, after the warm-up. */
  seconds: number;
  /** Same load before the baseline measurement. */
  warmUpSeconds: number;
  /** One iteration in `createEvery` also creates and deletes a tenant (default 4). */
  createEvery?: number;
  /** Called once a second with progress (for the CLI). */
  onProgress?: (line: string) => void;
}

interface MemoryFigures {
  heapUsed: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

export interface SoakResult {
  clients: number;
  nodes: number;
  seconds: number;
  warmUpSeconds: number;
  requests: { total: number; list: number; create: number; delete: number; perSecond: number };
  latencyMs: { p50: number; p99: number; max: number };
  errors: { total: number; samples: string[] };
  memory: { afterWarmUp: MemoryFigures; atEnd: MemoryFigures; heapGrowth: number; rssGrowth: number };
  /** Tenants named by the soak still present at the end (must be 0: every create was undone). */
  leftoverTenants: number;
}

const LISTS = ['/api/cluster/tenant/list?limit=20', '/api/cluster/user/list?limit=20', '/api/cluster/acl/list?limit=20', '/api/status'];

class Stats {
  total = 0;
  list = 0;
  create = 0;
  delete = 0;
  errors = 0;
  samples: string[] = [];
  latencies: number[] = [];
  measuring = false;

  error(text: string): void {
    this.errors++;
    if (this.samples.length < 10) this.samples.push(text);
  }
}

async function call(
  client: Client,
  stats: Stats,
  kind: 'list' | 'create' | 'delete',
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<void> {
  const t0 = performance.now();
  try {
    const res = await client.request({
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    let code: unknown;
    try {
      code = (JSON.parse(text) as { code?: unknown }).code;
    } catch {
      code = 'not JSON';
    }
    if (res.statusCode !== 200 || code !== 0) stats.error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    stats.total++;
    stats[kind]++;
    if (stats.measuring) stats.latencies.push(ms);
  } catch (e) {
    stats.total++;
    stats.error(`${method} ${path}: ${(e as Error).message}`);
  }
}

async function clientLoop(url: string, index: number, until: () => boolean, stats: Stats, createEvery: number): Promise<void> {
  // One Client is one keep-alive connection: 200 clients are 200 sockets held open for the whole run.
  const client = new Client(url, { keepAliveTimeout: 60_000, pipelining: 1 });
  try {
    for (let k = 0; !until(); k++) {
      await call(client, stats, 'list', 'GET', LISTS[(index + k) % LISTS.length]);
      if (k % createEvery === index % createEvery) {
        const tenant = `soak-${index}-${k}`;
        await call(client, stats, 'create', 'POST', '/api/cluster/tenant/create', { tenant_name: tenant, desc: 'soak' });
        await call(client, stats, 'delete', 'POST', '/api/cluster/tenant/delete', { tenant_name: tenant });
      }
    }
  } finally {
    await client.close();
  }
}

function ask(child: ChildProcess): Promise<MemoryFigures> {
  return new Promise((resolve) => {
    const onMessage = (m: { type?: string } & MemoryFigures): void => {
      if (m?.type !== 'memory') return;
      child.off('message', onMessage);
      resolve({ heapUsed: m.heapUsed, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers });
    };
    child.on('message', onMessage);
    child.send({ type: 'memory' });
  });
}

function startServer(nodes: number): Promise<{ child: ChildProcess; url: string }> {
  const script = fileURLToPath(new URL('./soak-server.ts', import.meta.url));
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SOAK_NODES: String(nodes) },
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type?: string; url?: string }) =>
      m?.type === 'ready' && m.url ? resolve({ child, url: m.url }) : reject(new Error(`unexpected message ${JSON.stringify(m)}`)),
    );
    child.once('exit', (code) => reject(new Error(`soak server exited early with code ${code}`)));
  });
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (x: number, d = 2): number => Number(x.toFixed(d));

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const createEvery = options.createEvery ?? 4;
  const nodes = options.nodes ?? 3;
  const { child, url } = await startServer(nodes);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    // The admin API's per-path rate limit (max_admin_http_uri_rate, 50/s by default) would answer most
    // of this load with 429; raise it through the API, as an operator load-testing a cluster would.
    const admin = new Client(url);
    const set = await admin.request({
      method: 'POST',
      path: '/api/cluster/config/set',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config_type: 'ClusterLimit', config: JSON.stringify({ max_admin_http_uri_rate: 1_000_000_000 }) }),
    });
    const setText = await set.body.text();
    await admin.close();
    if (set.statusCode !== 200 || JSON.parse(setText).code !== 0) throw new Error(`could not raise the admin rate limit: ${setText}`);

    const stats = new Stats();
    const warmUpEnd = performance.now() + options.warmUpSeconds * 1000;
    let phaseEnd = warmUpEnd;
    let stop = false;
    const progress = setInterval(() => options.onProgress?.(`${stats.total} requests, ${stats.errors} errors`), 5000);
    const loops = Array.from({ length: options.clients }, (_, i) => clientLoop(url, i, () => stop, stats, createEvery));

    // Warm-up, then the baseline (the load keeps running during the measurement: a GC pause, not a
    // quiet server, so the baseline includes what 200 busy connections hold, as the end figure does).
    await new Promise((r) => setTimeout(r, Math.max(0, warmUpEnd - performance.now())));
    const afterWarmUp = await ask(child);
    const totalBefore = stats.total;
    stats.measuring = true;
    const measuredStart = performance.now();
    phaseEnd = measuredStart + options.seconds * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, phaseEnd - performance.now())));
    const atEnd = await ask(child);
    const measuredMs = performance.now() - measuredStart;
    const measuredRequests = stats.total - totalBefore;
    stop = true;
    await Promise.all(loops);
    clearInterval(progress);

    // A fresh connection: the first one has been idle past the server's keep-alive timeout.
    const checker = new Client(url);
    const list = await checker.request({ method: 'GET', path: '/api/cluster/tenant/list?tenant_name=soak-&limit=1' });
    const listed = JSON.parse(await list.body.text()) as { data?: { total_count?: number } };
    await checker.close();

    const sorted = stats.latencies.sort((a, b) => a - b);
    return {
      clients: options.clients,
      nodes,
      seconds: options.seconds,
      warmUpSeconds: options.warmUpSeconds,
      requests: {
        total: stats.total,
        list: stats.list,
        create: stats.create,
        delete: stats.delete,
        perSecond: Math.round(measuredRequests / (measuredMs / 1000)),
      },
      latencyMs: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? 0) },
      errors: { total: stats.errors, samples: stats.samples },
      memory: {
        afterWarmUp,
        atEnd,
        heapGrowth: round((atEnd.heapUsed - afterWarmUp.heapUsed) / afterWarmUp.heapUsed, 4),
        rssGrowth: round((atEnd.rss - afterWarmUp.rss) / afterWarmUp.rss, 4),
      },
      leftoverTenants: Number(listed.data?.total_count ?? -1),
    };
  } finally {
    child.send({ type: 'stop' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
