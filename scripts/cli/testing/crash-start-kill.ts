/**
 * Test support for the crash torture (crash-torture.ts): a start of `mqsim serve` killed with SIGKILL
 * `delayMs` after it was spawned, wherever it is then (reading the file, replaying it, cutting a torn
 * record off, journaling the MQTT connections the last life left open, or already serving). The
 * next start must take the file all the same.
 */
import { spawn } from 'node:child_process';
import { MQSIM_BIN } from './serve-process.ts';

export interface KilledStart {
  /** Whether it had printed its URL (was serving) when killed. */
  ready: boolean;
  /** Set when it exited on its own before the kill: its exit code and stderr (a refused file). */
  exitedFirst?: string;
}

export async function killDuringStart(args: readonly string[], delayMs: number): Promise<KilledStart> {
  const child = spawn(process.execPath, [MQSIM_BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let ready = false;
  let stderr = '';
  child.stdout!.on('data', () => (ready = true));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
  const code = await exited;
  clearTimeout(timer);
  return code === null ? { ready } : { ready, exitedFirst: `exit ${code}: ${stderr.trim()}` };
}
