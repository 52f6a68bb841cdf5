/**
 * Test support: `mqsim serve` run through the real CLI in a child process, as a user starts it. The
 * tests of the CLI, the state file, the MQTT listener and chaos against a URL all need one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MQSIM_BIN = fileURLToPath(new URL('../../../bin/mqsim.js', import.meta.url));

export interface ServedProcess {
  readonly child: ChildProcess;
  /** Base URL of node 1, the first line serve prints on stdout once every listener is ready. */
  readonly url: string;
  /** MQTT port of node 1, when serve was given --mqtt-port (read from its stderr banner). */
  readonly mqttPort: number | undefined;
  /** What serve wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exit: Promise<number | null>;
}

/** Every serve process started here, so a failed test can still stop them (see `stopAll`). */
const started = new Set<ChildProcess>();

/**
 * Starts `mqsim serve --port 0 ARGS` (ephemeral ports unless ARGS gives --port) and resolves when it
 * prints its URL; rejects with its stderr when it exits first. `env` is added to this process's
 * environment (secrets given the way an operator keeps them out of `ps`).
 */
export function startServe(args: readonly string[], env: Record<string, string> = {}): Promise<ServedProcess> {
  const portGiven = args.includes('--port');
  const child = spawn(process.execPath, [MQSIM_BIN, 'serve', ...(portGiven ? [] : ['--port', '0']), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  started.add(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (!out.includes('\n')) return;
      // The banner (with the MQTT listener lines) is written on stderr before the URL line on stdout.
      const port = /node 1 MQTT: mqtt:\/\/[^\s]+:(\d+)/.exec(err)?.[1];
      resolve({ child, url: out.split('\n')[0].trim(), mqttPort: port ? Number(port) : undefined, stderr: () => err, exit });
    });
    void exit.then((code) => reject(new Error(`mqsim serve exited with ${code} before it was ready: ${err}`)));
  });
}

/** Kills every serve process started here that is still running (for afterAll). */
export function stopAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  started.clear();
}
