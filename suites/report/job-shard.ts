import type { ShardSpec } from '../conform/report-model.ts';
import { SelectionError } from './selection.ts';

/**
 * The shard a process runs when a scheduler starts N of them: `--shard i/n` as given, or
 * `--shard-count n` with the index from JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets in
 * each of its pods (0 … completions-1). A CI matrix can set the same variable, so one command line
 * serves both. Shards are 1-based everywhere else (`--shard 1/4` is the first): index 0 is shard 1.
 */

/** The variable a Kubernetes Indexed Job sets to each pod's completion index. */
export const JOB_INDEX_VARIABLE = 'JOB_COMPLETION_INDEX';
const MAX_SHARDS = 1000;

export interface ShardFlags {
  shard?: ShardSpec;
  shardCount?: number;
}

/** `--shard-count`: a whole number of shards, 1 … 1000. Throws a SelectionError. */
export function parseShardCount(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < 1 || n > MAX_SHARDS)
    throw new SelectionError(`--shard-count must be a whole number from 1 to ${MAX_SHARDS}, got ${JSON.stringify(value)}.`);
  return n;
}

/** The shard to run, if any; a SelectionError (a usage error) when the flags and the environment disagree. */
export function resolveShard(flags: ShardFlags, env: NodeJS.ProcessEnv = process.env): ShardSpec | undefined {
  if (flags.shardCount === undefined) return flags.shard;
  if (flags.shard)
    throw new SelectionError(`give either --shard i/n or --shard-count n (the index then comes from ${JOB_INDEX_VARIABLE}), not both.`);
  const count = flags.shardCount;
  const raw = env[JOB_INDEX_VARIABLE];
  if (raw === undefined || raw.trim() === '') {
    throw new SelectionError(
      `--shard-count ${count} takes this process's shard from ${JOB_INDEX_VARIABLE} (0 … ${count - 1}; a Kubernetes Indexed Job sets it in each pod), which is not set: set it, or give --shard i/n.`,
    );
  }
  if (!/^\s*\d+\s*$/.test(raw))
    throw new SelectionError(`${JOB_INDEX_VARIABLE} must be a whole number from 0 to ${count - 1}, got ${JSON.stringify(raw)}.`);
  const index = Number(raw);
  if (index >= count)
    throw new SelectionError(
      `${JOB_INDEX_VARIABLE}=${index} is out of range for --shard-count ${count} (0 … ${count - 1}): the Job's completions must equal the shard count.`,
    );
  return { index: index + 1, count };
}
