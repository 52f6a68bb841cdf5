import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort, PRISM_BIN, ROOT, stopper } from '../targets/spawned-target.ts';

/**
 * Stoplight Prism's validation proxy (`prism proxy`) in its own process: it forwards every request
 * to `upstream` and checks the request and the upstream's answer against an OpenAPI document,
 * reporting what does not match in the `sl-violations` header of the answer it passes back.
 */
export interface PrismProxy {
  /** Base URL of the proxy, e.g. `http://127.0.0.1:43117`. */
  readonly url: string;
  /** Everything Prism printed (warnings and errors only), for a failure message. */
  log(): string;
  stop(): Promise<void>;
}

export interface PrismProxyOptions {
  /** Path of the OpenAPI document (JSON or YAML). */
  document: string;
  /** Base URL the proxy forwards to. */
  upstream: string;
  /** Longest wait for Prism to accept connections, in ms (default 60 000: a large document takes a while to load). */
  startTimeoutMs?: number;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `prism proxy` and resolves once it accepts connections. The flags, and why:
 * - `--errors false` (Prism's default for proxy, stated so it never changes under us): a violation
 *   is only reported, never turned into an error answer, so requests the suites send invalid on
 *   purpose still reach the upstream and the upstream's real answer comes back;
 * - `--validate-request true`: request problems are reported too (as `request` violations), which
 *   tells the deliberate invalid requests apart from answers that break the document;
 * - `--no-multiprocess`: one process to start and stop (Prism forks a worker when NODE_ENV is production);
 * - `-v warn`: Prism's per-request info logging would slow every answer down.
 */
export async function startPrismProxy(options: PrismProxyOptions): Promise<PrismProxy> {
  if (!existsSync(PRISM_BIN)) throw new Error(`Prism is not installed (${PRISM_BIN} is missing): run npm ci`);
  const port = await freePort();
  const args = [
    'proxy',
    options.document,
    options.upstream,
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '--errors',
    'false',
    '--validate-request',
    'true',
    '--no-multiprocess',
    '-v',
    'warn',
  ];
  const child = spawn(PRISM_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
  let log = '';
  child.stdout!.on('data', (c) => (log = (log + c).slice(-20_000)));
  child.stderr!.on('data', (c) => (log = (log + c).slice(-20_000)));
  const stop = stopper(child);
  const deadline = performance.now() + (options.startTimeoutMs ?? 60_000);
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism proxy exited with ${child.exitCode} before listening: ${log.slice(-1000)}`);
    if (await accepts(port)) return { url: `http://127.0.0.1:${port}`, log: () => log, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`prism proxy did not listen within ${options.startTimeoutMs ?? 60_000} ms: ${log.slice(-1000)}`);
}
