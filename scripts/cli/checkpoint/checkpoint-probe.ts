import { writeSync } from 'node:fs';
import { replayOnto, type ServedModel } from '../../../sim/io/serve/served-model.ts';
import { loadState } from '../../../sim/io/state/state-load.ts';
import type { BuiltCheckpoint } from './checkpoint-model.ts';

/** Lists whose answers show a model's state in a digest (what a user would look at first). */
const PROBED_LISTS = [
  '/api/cluster/tenant/list',
  '/api/cluster/topic/list',
  '/api/cluster/user/list',
  '/api/mqtt/session/list',
  '/api/mqtt/subscribe/list',
];

/** What tells two models apart: the trace (every event's effect, hashed), the time, and a few list answers. */
export interface ModelDigest {
  traceHash: string;
  traceLength: number;
  now: number;
  lists: Record<string, string>;
}

export async function modelDigest(model: ServedModel): Promise<ModelDigest> {
  const { cluster } = model;
  const traceHash = cluster.engine.trace.hash;
  const traceLength = cluster.engine.trace.length;
  const lists: Record<string, string> = {};
  for (const url of PROBED_LISTS) {
    const answer = await model.replaying!.handle({ method: 'GET', url, headers: {}, peer: '127.0.0.1', nodeId: 1 });
    lists[url] = `${answer.status} ${answer.body}`;
  }
  return { traceHash, traceLength, now: cluster.now(), lists };
}

/**
 * `MQSIM_CHECKPOINT_VERIFY=FILE node --snapshot-blob FILE.checkpoint`: instead of serving, replays the
 * rest of the journal FILE onto the restored model and prints its digest as JSON, to compare with a
 * whole replay's (the checkpoint tests do; so can a person who doubts a checkpoint).
 */
export async function verifyRestored(built: BuiltCheckpoint, state: string): Promise<void> {
  const loaded = loadState(state);
  if (!loaded) throw new Error(`${state} does not exist`);
  await replayOnto(built.model, { writes: loaded.state.writes, virtualNow: loaded.state.virtualNow, where: state });
  writeSync(1, `${JSON.stringify({ fromWrite: built.writes, ...(await modelDigest(built.model)) })}\n`);
}
