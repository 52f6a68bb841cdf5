import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import {
  mergeSweepFiles,
  parseSweepFile,
  SWEEP_FILE_PATTERN,
  SweepMergeError,
  type SweepFile,
  type SweepMerge,
  type SweepMergeInput,
} from '../../sim/runs/chaos/sweep-file.ts';
import { UsageError } from './usage-error.ts';

interface ChaosMergeIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIo: ChaosMergeIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

interface ChaosMergeOptions {
  json?: boolean;
  /** Write the merged summary here (a sweep file of the whole sweep). */
  out?: string;
}

/** The sweep files an argument names: the file itself, or every sweep*.json in a directory. */
function sweepFilesOf(path: string): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    throw new UsageError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
    );
  }
  if (!isDir) return [path];
  const found = readdirSync(path)
    .filter((name) => SWEEP_FILE_PATTERN.test(name))
    .sort()
    .map((name) => join(path, name));
  if (found.length === 0)
    throw new UsageError(`no sweep summary (sweep.json or sweep-i-of-n.json) in ${path}: give the --out-dir of a sweep`);
  return found;
}

/**
 * Reads one sweep file, with its failing seeds' replay files resolved against the file's directory
 * (where the sweep wrote them). A replay file that is not there any more is reported and left out.
 */
function readInput(file: string, io: ChaosMergeIo): SweepMergeInput {
  let sweep: SweepFile;
  try {
    sweep = parseSweepFile(readFileSync(file, 'utf8'), file);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const failed = sweep.summary.failed.map((f) => {
    if (f.replay_file === null) return f;
    const path = join(dirname(file), f.replay_file);
    if (existsSync(path)) return { ...f, replay_file: path };
    io.stderr(`warning: the replay file of failing seed ${f.seed} is missing: ${path}\n`);
    return { ...f, replay_file: null };
  });
  return { file, sweep: { ...sweep, summary: { ...sweep.summary, failed } } };
}

function mergeTable(m: SweepMerge): string {
  const s = m.summary;
  const c = s.coverage;
  const o = m.options;
  const seconds = m.shards.map((x) => x.seconds);
  const rows: [string, string][] = [
    [
      'options',
      `${o.steps} steps, ${o.nodes} nodes, faults ${o.faults.join(',') || 'none'}${o.bug ? `, bug ${o.bug}` : ''}, seeds ${m.seeds}`,
    ],
    [
      'shards',
      `${m.shards.length} (${m.shards.map((x) => (x.shard ? `${x.shard.index}/${x.shard.count}` : 'whole')).join(', ')}): ${Math.max(...seconds).toFixed(1)} s the longest, ${seconds.reduce((a, b) => a + b, 0).toFixed(1)} s in all`,
    ],
    ['seeds run', String(s.seeds_run)],
    ['passed', String(s.passed)],
    [
      'failed',
      `${s.failed.length}${
        s.failed.length
          ? ` (${Object.entries(s.violations_by_invariant)
              .map(([k, n]) => `${k} x${n}`)
              .join(', ')})`
          : ''
      }`,
    ],
    ['events', String(s.events)],
    [
      'coverage',
      `leader changes ${c.leader_changes}, crashes ${c.node_crashes}, partitions ${c.partitions}, connector failures ${c.connector_failures}, bans ${c.bans} (lifted ${c.bans_lifted}), api ok ${c.api_ok} / refused ${c.api_refused}`,
    ],
    [
      'faults',
      Object.entries(c.faults)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none',
    ],
  ];
  const lines = rows.map(([k, v]) => `${k.padEnd(10)} ${v}`);
  for (const f of s.failed)
    lines.push(`FAILED seed ${f.seed}: ${f.first_violation}${f.replay_file ? `\n  replay: mqsim replay ${f.replay_file}` : ''}`);
  lines.push(s.failed.length > 0 ? 'FAIL' : 'PASS');
  return `${lines.join('\n')}\n`;
}

/**
 * `mqsim chaos merge DIR|FILE...`: the summary of a sweep from its shards' summary files. Exit 0 when
 * no seed failed, 1 when one did, 2 (a UsageError) when the inputs cannot be read or combined.
 */
function runChaosMerge(paths: readonly string[], options: ChaosMergeOptions, io: ChaosMergeIo = defaultIo): number {
  const inputs = paths.flatMap(sweepFilesOf).map((file) => readInput(file, io));
  let merged: SweepMerge;
  try {
    merged = mergeSweepFiles(inputs);
  } catch (e) {
    if (e instanceof SweepMergeError) throw new UsageError(e.message);
    throw e;
  }
  if (options.out) {
    const file: SweepFile & { merged_from: SweepMerge['shards'] } = {
      format: 'mqsim-chaos-sweep/1',
      options: merged.options,
      seeds: merged.seeds,
      shard: null,
      summary: merged.summary,
      run: { seconds: +merged.shards.reduce((n, x) => n + x.seconds, 0).toFixed(2), workers: 0 },
      merged_from: merged.shards,
    };
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(file, null, 2)}\n`);
  }
  if (options.json)
    io.stdout(`${JSON.stringify({ ...merged.summary, seeds: merged.seeds, options: merged.options, shards: merged.shards })}\n`);
  else io.stdout(mergeTable(merged));
  return merged.summary.failed.length > 0 ? 1 : 0;
}

/** Registers `mqsim chaos merge` under the chaos command. */
export function registerChaosMergeCommand(chaos: Command): void {
  chaos
    .command('merge')
    .description("combine the summary files of a sweep's shards (their --out-dir) into the summary of the whole sweep")
    .argument('<paths...>', 'shard output directories (every sweep*.json in them) or sweep summary files')
    .option('--json', 'print the merged summary as one JSON line')
    .option('--out <file>', 'also write the merged summary as a sweep file')
    .addHelpText(
      'after',
      `
The inputs must be the shards of one sweep (same options and seed list), each once, all of them:
a shard given twice, a missing shard or a whole sweep next to shards is an error (exit 2). The result
is what one unsharded run prints: seeds run, passed, the failing seeds in seed order with their first
violation and replay file (found next to the shard's summary), events, coverage totals.
Exit status: 0 no seed failed, 1 a seed failed, 2 usage error.

Examples:
  $ mqsim chaos --seeds 1..1000 --shard 1/2 --out-dir shard-1 && mqsim chaos --seeds 1..1000 --shard 2/2 --out-dir shard-2
  $ mqsim chaos merge shard-1 shard-2
  $ mqsim chaos merge /reports --json --out merged-sweep.json    # an Indexed Job's shards on one volume`,
    )
    .action((paths: string[], options: ChaosMergeOptions) => {
      process.exitCode = runChaosMerge(paths, options);
    });
}
