import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { RunningCluster } from '../../../sim/io/serve/cluster-server.ts';
import type { StateKeeper } from '../../../sim/io/state/state-keeper.ts';
import { fsyncDirectory } from '../../../sim/io/state/journal-file.ts';
import { dirname } from 'node:path';
import { MQSIM_VERSION } from '../../../sim/version.ts';
import { checkpointBundle } from './checkpoint-bundle.ts';
import {
  blobPath,
  fileSha256,
  metaPath,
  readMeta,
  removeCheckpoint,
  sha256,
  tmpBlobPath,
  type CheckpointMeta,
} from './checkpoint-files.ts';
import { JOB_VARIABLE, type CheckpointJob } from './checkpoint-model.ts';

/** How often serve looks whether a checkpoint is due (wall time). */
const LOOK_EVERY_MS = 2_000;
/** Writes journaled since the last checkpoint that make one due whatever the virtual time (about 6-12 s of replay). */
const WRITES_EVERY = 50_000;

/**
 * What serve's checkpoints are made of, handed over by serve (which owns the option table): the
 * state file, `--checkpoint-every`, the options the model is built with, and the virtual epoch.
 */
export interface CheckpointPlan {
  state: string;
  /** Virtual time between two checkpoints (ms). */
  every: number;
  model: CheckpointJob['model'];
  epochMs: number;
}

/** Where the run started when it was restored from a checkpoint: the writes it held, the virtual time. */
interface RestoredAt {
  writes: number;
  virtualNow: number;
}

export interface CheckpointRuns {
  stop(): void;
  /** Resolves when the build running now (if any) has ended (tests, the bench). */
  idle(): Promise<void>;
}

/**
 * Builds a checkpoint in the background each time the run has gone `--checkpoint-every` of virtual
 * time past the last one, or 50,000 writes, and the journal grew: a child process at the lowest priority rebuilds the
 * model from the journal's durable prefix and V8 writes it out (checkpoint-entry.ts). One build at a
 * time; the newest checkpoint replaces the one before. SIGUSR2 asks for one now. A failed build costs a line on stderr, never
 * the run. The child dies with serve: it stops when re-parented (checkpoint-model.ts), and serve
 * kills it when it stops.
 */
export function startCheckpoints(
  plan: CheckpointPlan,
  keeper: StateKeeper,
  running: RunningCluster,
  restored?: RestoredAt,
): CheckpointRuns {
  const { state, every, model: modelOptions } = plan;
  const previous = readMeta(state);
  let last = restored?.virtualNow ?? previous?.virtualNow ?? plan.epochMs;
  let lastWrites = restored?.writes ?? previous?.writes ?? 0;
  let lastBytes = 0;
  let child: ChildProcess | undefined;
  let building: Promise<void> | undefined;
  let stopped = false;
  /** `now`: SIGUSR2 asked for one whatever the time since the last (still only when the journal grew). */
  const look = (now = false): void => {
    if (building || stopped) return;
    running.app.syncClock();
    const bytes = keeper.durableBytes;
    const due = now || running.cluster.now() - last >= every || keeper.writeCount - lastWrites >= WRITES_EVERY;
    if (!due || bytes <= lastBytes) return;
    building = buildCheckpoint(state, bytes, modelOptions, (c) => (child = c))
      .then((meta) => {
        if (meta && !stopped) {
          last = meta.virtualNow;
          lastWrites = meta.writes;
          lastBytes = bytes;
        }
      })
      .catch((e: unknown) => {
        lastBytes = bytes;
        if (!stopped) process.stderr.write(`mqsim serve: checkpoint not made (${(e as Error).message}); the run goes on\n`);
      })
      .finally(() => {
        building = undefined;
        child = undefined;
      });
  };
  const timer = setInterval(look, LOOK_EVERY_MS);
  timer.unref();
  const onSignal = (): void => look(true);
  process.on('SIGUSR2', onSignal);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      process.off('SIGUSR2', onSignal);
      child?.kill('SIGKILL');
      // What a build left half-made goes now: this process may exit before the build's own cleanup runs.
      if (child) removeCheckpoint(state, { keepNewest: true });
    },
    idle: () => building ?? Promise.resolve(),
  };
}

/** One build (serve and the tests): the child, then the blob and its description renamed into place, the directory fsynced. */
export async function buildCheckpoint(
  state: string,
  bytes: number,
  model: CheckpointJob['model'],
  onChild: (c: ChildProcess) => void,
): Promise<CheckpointMeta | undefined> {
  removeCheckpoint(state, { keepNewest: true });
  const bundle = await checkpointBundle();
  const tmp = tmpBlobPath(state, process.pid);
  const script = `${tmp}.cjs`;
  writeFileSync(script, bundle.code, { mode: 0o600 });
  try {
    const job: CheckpointJob = { state, bytes, model, parentPid: process.pid, buildId: randomUUID() };
    const [result, journalSha256] = await Promise.all([runBuild(tmp, script, job, onChild), fileSha256(state, bytes)]);
    chmodSync(tmp, 0o600);
    const meta: CheckpointMeta = {
      journalBytes: bytes,
      journalSha256,
      writes: result.writes,
      virtualNow: result.virtualNow,
      mqsimVersion: MQSIM_VERSION,
      nodeVersion: process.version,
      codeSha256: bundle.sha256,
      codeInputs: bundle.inputs,
      modelSha256: sha256(JSON.stringify(model)),
      buildId: job.buildId,
      blobSha256: await fileSha256(tmp),
      blobBytes: statSync(tmp).size,
    };
    writeFileSync(`${tmp}.json`, JSON.stringify(meta, null, 1) + '\n', { mode: 0o600 });
    renameSync(tmp, blobPath(state));
    renameSync(`${tmp}.json`, metaPath(state));
    fsyncDirectory(dirname(state));
    return meta;
  } finally {
    for (const f of [script, tmp, `${tmp}.json`]) if (existsSync(f)) unlinkSync(f);
  }
}

/** Runs `node --snapshot-blob TMP --build-snapshot SCRIPT` at low priority; its last stdout line says what it covers. */
function runBuild(
  tmp: string,
  script: string,
  job: CheckpointJob,
  onChild: (c: ChildProcess) => void,
): Promise<{ writes: number; virtualNow: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--snapshot-blob', tmp, '--build-snapshot', script], {
      env: { ...process.env, [JOB_VARIABLE]: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onChild(child);
    try {
      if (child.pid !== undefined) setPriority(child.pid, 19);
    } catch {
      // not allowed here: it runs at the same priority
    }
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && existsSync(tmp) && line.startsWith('{')) resolve(JSON.parse(line) as { writes: number; virtualNow: number });
      else reject(new Error(`the build ended with ${signal ?? `exit code ${code}`}${err ? `: ${err.trim().split('\n').at(-1)}` : ''}`));
    });
  });
}
