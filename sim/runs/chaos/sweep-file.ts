import { isInteger, isOneOf, isRecord } from '../../model/api/json-guards.ts';
import { CHAOS_BUGS, CHAOS_FAULT_KINDS, type ChaosOptions } from './chaos-plan.ts';
import { combineSummaries, formatSeedList, parseSeedList, type SweepSummary } from './seed-sweep.ts';

/**
 * The machine-readable summary a sweep (or one shard of it) leaves in its `--out-dir`, next to the
 * replay files of its failing seeds: what was run (options, the whole sweep's seed list, which shard)
 * and what came out. `mqsim chaos merge` combines the files of a sweep's shards into the summary one
 * unsharded run would have printed, and refuses shards of different sweeps, overlapping or missing ones.
 */
export interface SweepFile {
  format: 'mqsim-chaos-sweep/1';
  options: Omit<ChaosOptions, 'seed'>;
  /** The whole sweep's seeds, before sharding, as ranges (`1..1000,42`). */
  seeds: string;
  /** 1-based, as `--shard i/n`; null for a whole sweep. */
  shard: { index: number; count: number } | null;
  /** Failing seeds' replay files are named relative to this file's directory. */
  summary: SweepSummary;
  run: { seconds: number; workers: number };
}

const FORMAT = 'mqsim-chaos-sweep/1';

/** `sweep.json`, or `sweep-2-of-4.json` for shard 2 of 4: the shards of one sweep may share a directory. */
export function sweepFileName(shard: { index: number; count: number } | null | undefined): string {
  return shard ? `sweep-${shard.index}-of-${shard.count}.json` : 'sweep.json';
}

/** Does a directory entry look like a sweep summary file? */
export const SWEEP_FILE_PATTERN = /^sweep(-\d+-of-\d+)?\.json$/;

export function sweepFileOf(input: {
  options: Omit<ChaosOptions, 'seed'>;
  seeds: readonly string[];
  shard?: { index: number; count: number };
  summary: SweepSummary;
  seconds: number;
  workers: number;
}): SweepFile {
  return {
    format: FORMAT,
    options: { steps: input.options.steps, nodes: input.options.nodes, faults: [...input.options.faults], bug: input.options.bug ?? null },
    seeds: formatSeedList(input.seeds),
    shard: input.shard ? { index: input.shard.index, count: input.shard.count } : null,
    summary: input.summary,
    run: { seconds: input.seconds, workers: input.workers },
  };
}

/** Reads a sweep file's text; throws a message naming `where` and what is wrong. */
export function parseSweepFile(text: string, where: string): SweepFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  checkSweepFile(data, where);
  return data;
}

/** Throws a message naming `where` and what is wrong unless `data` has the sweep file's shape. */
function checkSweepFile(data: unknown, where: string): asserts data is SweepFile {
  if (!isRecord(data) || data.format !== FORMAT) throw new Error(`${where} is not a sweep summary (format must be "${FORMAT}")`);
  const o = data.options;
  if (!isRecord(o) || !isInteger(o.steps) || !isInteger(o.nodes) || !Array.isArray(o.faults))
    throw new Error(`${where}: options {steps, nodes, faults} are required`);
  for (const f of o.faults) if (!isOneOf(CHAOS_FAULT_KINDS, f)) throw new Error(`${where}: unknown fault kind ${f}`);
  if (o.bug !== null && o.bug !== undefined && !isOneOf(CHAOS_BUGS, o.bug)) throw new Error(`${where}: unknown bug ${o.bug}`);
  if (typeof data.seeds !== 'string') throw new Error(`${where}: seeds is required`);
  const sh = data.shard;
  if (sh !== null && !(isRecord(sh) && isInteger(sh.index) && isInteger(sh.count) && sh.index >= 1 && sh.index <= sh.count))
    throw new Error(`${where}: shard must be null or {index, count} with 1 ≤ index ≤ count`);
  const s = data.summary;
  if (!isRecord(s) || !isInteger(s.seeds_run) || !isInteger(s.passed) || !Array.isArray(s.failed) || !s.coverage)
    throw new Error(`${where}: summary {seeds_run, passed, failed, coverage} is required`);
}

/** Inputs that cannot be combined; the CLI exits 2 with the message. */
export class SweepMergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepMergeError';
  }
}

export interface SweepMergeInput {
  file: string;
  sweep: SweepFile;
}

export interface SweepMerge {
  options: SweepFile['options'];
  seeds: string;
  /** What one unsharded run of the sweep would have summarised; replay files as the inputs name them. */
  summary: SweepSummary;
  shards: { file: string; shard: SweepFile['shard']; seeds_run: number; failed: number; seconds: number }[];
}

const shardName = (s: SweepFile['shard']) => (s ? `${s.index}/${s.count}` : 'whole sweep');

/**
 * Combines the summaries of one sweep's shards. Refuses inputs of different sweeps (options or seed
 * list), a whole sweep next to anything else, shards counted differently, a shard given twice or
 * missing, and a shard whose seed count is not its share of the list.
 */
export function mergeSweepFiles(inputs: readonly SweepMergeInput[]): SweepMerge {
  if (inputs.length === 0) throw new SweepMergeError('nothing to merge: give the directories (or sweep*.json files) of the shards');
  const [first] = inputs;
  const key = (i: SweepMergeInput) => JSON.stringify([i.sweep.options, i.sweep.seeds]);
  for (const i of inputs) {
    if (key(i) !== key(first)) {
      throw new SweepMergeError(
        `${i.file} and ${first.file} are not shards of one sweep: ${JSON.stringify({ options: i.sweep.options, seeds: i.sweep.seeds })} vs ${JSON.stringify({ options: first.sweep.options, seeds: first.sweep.seeds })}`,
      );
    }
  }
  const whole = inputs.find((i) => i.sweep.shard === null);
  if (whole && inputs.length > 1)
    throw new SweepMergeError(
      `${whole.file} is a whole sweep (no shard); with other inputs it overlaps them: merge the shards of one sweep`,
    );
  const count = first.sweep.shard?.count ?? 1;
  const byIndex = new Map<number, string>();
  for (const i of inputs) {
    const s = i.sweep.shard;
    if (!s) continue;
    if (s.count !== count)
      throw new SweepMergeError(
        `${i.file} is shard ${shardName(s)} but ${first.file} is shard ${shardName(first.sweep.shard)}: the shards of one sweep have one count`,
      );
    const seen = byIndex.get(s.index);
    if (seen !== undefined) throw new SweepMergeError(`shard ${shardName(s)} is given twice (${seen} and ${i.file})`);
    byIndex.set(s.index, i.file);
  }
  if (!whole) {
    const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k));
    if (missing.length > 0)
      throw new SweepMergeError(
        `missing shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} of the sweep (merged: ${[...byIndex.values()].join(', ')})`,
      );
  }
  const seeds = parseSeedList(first.sweep.seeds);
  for (const i of inputs) {
    const s = i.sweep.shard;
    // Shard i of n holds the seeds at positions i-1, i-1+n, … (round robin).
    const share = s ? Math.floor((seeds.length - s.index) / s.count) + 1 : seeds.length;
    const expected = Math.max(0, share);
    if (i.sweep.summary.seeds_run !== expected)
      throw new SweepMergeError(
        `${i.file} ran ${i.sweep.summary.seeds_run} seeds, but shard ${shardName(s)} of ${first.sweep.seeds} has ${expected}`,
      );
  }
  const order = new Map(seeds.map((seed, k) => [seed, k]));
  const ordered = [...inputs].sort((a, b) => (a.sweep.shard?.index ?? 0) - (b.sweep.shard?.index ?? 0));
  return {
    options: first.sweep.options,
    seeds: first.sweep.seeds,
    summary: combineSummaries(
      ordered.map((i) => i.sweep.summary),
      order,
    ),
    shards: ordered.map((i) => ({
      file: i.file,
      shard: i.sweep.shard,
      seeds_run: i.sweep.summary.seeds_run,
      failed: i.sweep.summary.failed.length,
      seconds: i.sweep.run?.seconds ?? 0,
    })),
  };
}
