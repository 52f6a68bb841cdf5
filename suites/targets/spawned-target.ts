import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** A server under test in its own process (so its CPU is not the load generator's). */
export interface SpawnedTarget {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The project's root (where bin/ and node_modules/ are). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MQSIM_BIN = `${ROOT}bin/mqsim.js`;
/** The Prism CLI installed from package.json (devDependency @stoplight/prism-cli). */
export const PRISM_BIN = `${ROOT}node_modules/.bin/prism`;

/** Stops `child`: SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
export function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

/** Starts a process that prints its base URL as the first line of stdout. */
export function spawnPrintingUrl(command: string, args: string[], what: string): Promise<SpawnedTarget> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ url: out.split('\n')[0].trim(), child, stop: stopper(child) });
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before printing its URL: ${err.slice(-500)}`)));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Stoplight Prism's mock server on `document`, logging at warn only (its default per-request info
 * logging would slow it down; this is its fastest configuration). Resolves once it answers HTTP;
 * rejects with the reason (not installed, crashed, never ready) so the benchmark can say why.
 */
export async function spawnPrism(document: string): Promise<SpawnedTarget> {
  if (!existsSync(PRISM_BIN)) throw new Error(`Prism is not installed (${PRISM_BIN} is missing; run npm ci)`);
  const port = await freePort();
  const child = spawn(PRISM_BIN, ['mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'warn', document], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: ROOT,
  });
  let log = '';
  child.stdout!.on('data', (c) => (log += c));
  child.stderr!.on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism mock exited with ${child.exitCode}: ${log.slice(-500)}`);
    try {
      await fetch(`${url}/api/status`);
      return { url, child, stop: stopper(child) };
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`prism mock did not answer within 60 s: ${log.slice(-500)}`);
}
