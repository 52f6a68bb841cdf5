import { readFileSync } from 'node:fs';
import { createServedModel, replayOnto, type ServedModel, type ServedModelOptions } from '../../../sim/io/serve/served-model.ts';
import { decodeJournal } from '../../../sim/io/state/state-journal-format.ts';
import type { Cluster } from '../../../sim/model/cluster/cluster.ts';

/**
 * What a checkpoint build is told (in the environment variable MQSIM_CHECKPOINT_JOB, as JSON): the
 * state file, how many of its bytes are the durable prefix to rebuild, the options the model is made
 * with (no secret among them: the signing secret and a password in clear are given to the restored
 * process at each start), and the process to die with.
 */
export interface CheckpointJob {
  state: string;
  bytes: number;
  model: ServedModelOptions;
  parentPid: number;
  /** Names this build in the snapshot and in its description (CheckpointMeta.buildId). */
  buildId: string;
}

/** A model rebuilt to a journal record: the writes it holds and the virtual time it reached. */
export interface BuiltCheckpoint {
  buildId: string;
  model: ServedModel;
  writes: number;
  virtualNow: number;
}

export const JOB_VARIABLE = 'MQSIM_CHECKPOINT_JOB';

/** Virtual time run between two looks at whether the serve that asked for the build is still there. */
const SLICE_MS = 60_000;

/**
 * The model rebuilt from the first `job.bytes` bytes of the journal, with the same replay code a
 * restart runs and no I/O but reading that prefix. Virtual time is moved in slices of a minute (the
 * same events run: runUntil(a) then runUntil(b) is runUntil(b)), and between slices the build stops
 * at once when its parent is gone (it was re-parented), so a killed serve leaves no build running.
 */
export async function buildCheckpointModel(job: CheckpointJob): Promise<BuiltCheckpoint> {
  const prefix = readFileSync(job.state).subarray(0, job.bytes);
  const { state, torn } = decodeJournal(prefix, job.state);
  if (torn) throw new Error(`${job.state}: the first ${job.bytes} bytes do not end at a record boundary`);
  const orphaned = (): void => {
    if (process.ppid !== job.parentPid) process.exit(3);
  };
  const advance = (cluster: Cluster, to: number): void => {
    while (cluster.now() < to) {
      orphaned();
      cluster.engine.runUntil(Math.min(to, cluster.now() + SLICE_MS));
    }
  };
  orphaned();
  const model = createServedModel(job.model);
  await replayOnto(model, { writes: state.writes, virtualNow: state.virtualNow, where: job.state }, { advance });
  return { buildId: job.buildId, model, virtualNow: state.virtualNow, writes: state.writes.length };
}

export function readJob(): CheckpointJob {
  const text = process.env[JOB_VARIABLE];
  if (!text) throw new Error(`${JOB_VARIABLE} is not set: this script is run by mqsim serve to build a checkpoint`);
  return JSON.parse(text) as CheckpointJob;
}
