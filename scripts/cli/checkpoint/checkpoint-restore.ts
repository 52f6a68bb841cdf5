import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { codeSha256 } from './checkpoint-bundle.ts';
import {
  blobPath,
  checkpointProblem,
  fileSha256,
  metaPath,
  readMeta,
  removeCheckpoint,
  sha256,
  type CheckpointMeta,
} from './checkpoint-files.ts';
import type { CheckpointJob } from './checkpoint-model.ts';

/** Exit code of a restored process that could not use its checkpoint (then the whole journal is replayed). */
export const CHECKPOINT_UNUSABLE = 75;

/**
 * The checkpoint of the state file when this start (its model built with `model`) can use it;
 * otherwise undefined, and a checkpoint that is there but stale, foreign or damaged is removed with
 * one line on stderr.
 */
export async function usableCheckpoint(state: string, model: CheckpointJob['model']): Promise<CheckpointMeta | undefined> {
  if (!existsSync(metaPath(state)) && !existsSync(blobPath(state))) return undefined;
  const meta = readMeta(state);
  let problem: string | undefined;
  try {
    problem = await checkpointProblem(state, meta, { codeSha256, modelSha256: sha256(JSON.stringify(model)) });
  } catch (e) {
    problem = `it could not be checked (${(e as Error).message})`;
  }
  if (!problem) return meta;
  process.stderr.write(`mqsim serve: checkpoint ${blobPath(state)} not used and removed: ${problem}; replaying the whole journal\n`);
  removeCheckpoint(state);
  return undefined;
}

/**
 * Runs the server in a process started from the checkpoint (`node --snapshot-blob FILE.checkpoint`),
 * which replays only the journal's tail. It is handed this start's options and secrets over a pipe
 * (never in its arguments or environment), writes to the same stdout and stderr, and ends when that
 * pipe closes, so a kill -9 of this process leaves no server behind. SIGINT, SIGTERM and SIGUSR2 are passed
 * on; its exit code is returned, or 'fallback' when it could not use the checkpoint. `prepared` is serve's
 * start as plain data, passed on as JSON (checkpoint-restored.ts reads it); `lock` is the state file's
 * lock, told the child's pid.
 */
export function runFromCheckpoint(
  state: string,
  prepared: unknown,
  meta: CheckpointMeta,
  lock: { add(pid: number): void } | undefined,
): Promise<number | 'fallback'> {
  const child = spawn(process.execPath, ['--snapshot-blob', blobPath(state)], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    // Its own process group: a Ctrl-C reaches it once, through this process.
    detached: true,
  });
  if (child.pid !== undefined) lock?.add(child.pid);
  const channel = child.stdio[3] as Socket;
  // The snapshot is hashed while the child starts from it; it is told to go on only when it matches.
  let refused = false;
  const refuse = (): void => {
    refused = true;
    child.kill('SIGKILL');
  };
  void fileSha256(blobPath(state)).then((sha) => {
    if (sha === meta.blobSha256) channel.write(`${JSON.stringify({ prepared, buildId: meta.buildId })}\n`);
    else refuse();
  }, refuse);
  let started = false;
  channel.on('data', (d: Buffer) => (started ||= d.toString().includes('started')));
  channel.on('error', () => {});
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGUSR2'];
  for (const s of signals) process.on(s, forward);
  return new Promise((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null): void => {
      for (const s of signals) process.off(s, forward);
      channel.destroy();
      if (!started || refused || code === CHECKPOINT_UNUSABLE) resolve('fallback');
      else resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGINT' ? 2 : 15));
    };
    child.on('exit', done);
    child.on('error', () => done(null, null));
  });
}
