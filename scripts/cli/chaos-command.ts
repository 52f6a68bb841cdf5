import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CHAOS_BUGS, CHAOS_FAULT_KINDS, generatePlan, type ChaosFaultKind, type ChaosOptions } from '../../sim/runs/chaos/chaos-plan.ts';
import { runPlan } from '../../sim/runs/chaos/chaos-runner.ts';
import { chaosCommandOf, checkDeterminism, replayFileOf, resultLine, runFailed } from '../../sim/runs/chaos/chaos.ts';
import { parseSeedList, summarize, type SweepSummary } from '../../sim/runs/chaos/seed-sweep.ts';
import { sweepFileName, sweepFileOf } from '../../sim/runs/chaos/sweep-file.ts';
import { shrinkPlan } from '../../sim/runs/chaos/shrink.ts';
import type { ShardSpec } from '../../suites/conform/report-model.ts';
import { JOB_INDEX_VARIABLE, parseShardCount, resolveShard } from '../../suites/report/job-shard.ts';
import { parseShard, SelectionError, shardOf } from '../../suites/report/selection.ts';
import { runTargetChaos } from '../chaos/target-chaos.ts';
import { UrlTarget } from '../../suites/targets/url-target.ts';
import { registerChaosMergeCommand } from './chaos-merge-command.ts';
import { runSweep } from './chaos-sweep.ts';
import { parseChoice, parseIntOption, UsageError } from './usage-error.ts';

export interface ChaosIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  writeFile: (path: string, text: string) => void;
  /** Whether progress lines go to stderr (a sweep prints one every few seconds). */
  progress?: boolean;
  /** Where JOB_COMPLETION_INDEX is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

const defaultIo: ChaosIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  writeFile: (p, t) => {
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, t);
  },
  progress: true,
};

function faultList(value: string): ChaosFaultKind[] {
  if (value === 'none') return [];
  const out: ChaosFaultKind[] = [];
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!(CHAOS_FAULT_KINDS as readonly string[]).includes(raw))
      throw new InvalidArgumentError(
        `--faults: unknown fault kind ${JSON.stringify(raw)}; kinds are ${CHAOS_FAULT_KINDS.join(', ')} (or none).`,
      );
    if (!out.includes(raw as ChaosFaultKind)) out.push(raw as ChaosFaultKind);
  }
  return out;
}

function seedArg(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value)) throw new InvalidArgumentError('--seed must be 1-64 letters, digits, "_", "." or "-".');
  return value;
}

export interface ChaosCommandOptions {
  seed: string;
  steps: number;
  nodes: number;
  faults: ChaosFaultKind[];
  bug?: (typeof CHAOS_BUGS)[number];
  out?: string;
  json?: boolean;
  checkDeterminism?: boolean;
  shrink: boolean;
  shrinkOut?: string;
  shrinkRuns: number;
  seeds?: string[];
  workers?: number;
  shard?: ShardSpec;
  /** Number of shards, this process's from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod index). */
  shardCount?: number;
  outDir?: string;
  target?: string;
  username?: string;
  password?: string;
}

/**
 * `mqsim chaos --target URL`: the plan's API operations against a server over HTTP, checked against
 * the acknowledged history; exit 1 on a violation (or when nothing was acknowledged: a vacuous run).
 */
export async function runTargetCommand(o: ChaosCommandOptions, io: ChaosIo = defaultIo): Promise<number> {
  if (o.seeds || o.out || o.checkDeterminism || o.bug)
    throw new UsageError(
      '--target runs API operations against a server: --seeds, --out, --check-determinism and --bug apply to the simulated cluster only',
    );
  if ((o.username === undefined) !== (o.password === undefined)) throw new UsageError('--username and --password go together');
  let target: UrlTarget;
  try {
    target = await UrlTarget.create({
      url: o.target!,
      ...(o.username !== undefined ? { username: o.username, password: o.password! } : {}),
    });
  } catch (e) {
    throw new UsageError(`--target: ${(e as Error).message}`);
  }
  try {
    if (target.credentials) {
      const res = await target.login();
      if (!target.token) {
        io.stderr(`login to ${target.name} failed: HTTP ${res.status} ${res.text.slice(0, 200)}\n`);
        return 1;
      }
    }
    let last = performance.now();
    const r = await runTargetChaos(target, {
      seed: o.seed,
      steps: o.steps,
      onProgress: (done, total) => {
        if (io.progress && (performance.now() - last > 2_000 || done === total)) {
          last = performance.now();
          io.stderr(`chaos --target: ${done}/${total} calls\n`);
        }
      },
    });
    const vacuous = r.calls.ok === 0;
    if (o.json) io.stdout(`${JSON.stringify({ ...r, passed: r.violations.length === 0 && !vacuous })}\n`);
    else {
      io.stdout(
        `target ${r.target}, seed ${r.seed}: ${r.steps} API calls (${r.calls.ok} acknowledged, ${r.calls.refused} refused, ${r.calls.transport_errors} without answer), ${r.list_checks} list comparisons\n`,
      );
      for (const v of r.violations) io.stdout(`VIOLATION ${v.name} after step ${v.step}: ${v.message}\n`);
      if (vacuous) io.stdout('VACUOUS: no call was acknowledged (wrong URL or credentials?)\n');
      io.stdout(`${r.violations.length === 0 && !vacuous ? 'PASS' : 'FAIL'}\n`);
    }
    return r.violations.length === 0 && !vacuous ? 0 : 1;
  } finally {
    await target.close();
  }
}

function seedListArg(value: string): string[] {
  try {
    return parseSeedList(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function shardArg(value: string): ShardSpec {
  try {
    return parseShard(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function shardCountArg(value: string): number {
  try {
    return parseShardCount(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** Default directory of a sweep's replay files. */
export const DEFAULT_SWEEP_DIR = 'reports/chaos';

/**
 * `mqsim chaos --seeds A..B`: every seed of this shard, a summary, replay files of the failing seeds
 * and the summary file (`sweep.json`, or `sweep-i-of-n.json` for a shard) in --out-dir, which
 * `mqsim chaos merge` combines; exit 1 if a seed failed.
 */
export async function runSweepCommand(o: ChaosCommandOptions, io: ChaosIo = defaultIo): Promise<number> {
  if (o.out || o.checkDeterminism)
    throw new UsageError(
      '--seeds runs a sweep: --out and --check-determinism apply to one seed (use --out-dir for the replay files of failing seeds)',
    );
  let shard: ShardSpec | undefined;
  try {
    shard = resolveShard(o, io.env ?? process.env);
  } catch (e) {
    if (e instanceof SelectionError) throw new UsageError(e.message);
    throw e;
  }
  const seeds = shardOf(o.seeds!, shard);
  const template = { steps: o.steps, nodes: o.nodes, faults: o.faults, bug: o.bug ?? null };
  const workers = o.workers ?? availableParallelism();
  let lastReport = performance.now();
  const { outcomes, elapsedMs } = await runSweep(template, seeds, workers, (p) => {
    const now = performance.now();
    if (io.progress && (now - lastReport > 2_000 || p.done === p.total)) {
      lastReport = now;
      io.stderr(`chaos sweep: ${p.done}/${p.total} seeds, ${p.failed} failed\n`);
    }
  });
  const outDir = o.outDir ?? DEFAULT_SWEEP_DIR;
  const files = new Map<string, string>();
  for (const out of outcomes) {
    if (!out.replay) continue;
    const file = join(outDir, `chaos-seed-${out.seed}.json`);
    io.writeFile(file, `${JSON.stringify(out.replay)}\n`);
    files.set(out.seed, file);
  }
  const summary = summarize(outcomes, files);
  const rate = {
    seconds: +(elapsedMs / 1000).toFixed(2),
    events_per_s: Math.round((summary.events / elapsedMs) * 1000),
    seeds_per_min: Math.round((seeds.length / elapsedMs) * 60_000),
    workers,
  };
  // The file names replay files relative to itself: the directory may be moved (a CI artifact, a volume).
  const relative = summarize(outcomes, new Map([...files.keys()].map((seed) => [seed, `chaos-seed-${seed}.json`])));
  const summaryFile = join(outDir, sweepFileName(shard));
  io.writeFile(
    summaryFile,
    `${JSON.stringify(sweepFileOf({ options: template, seeds: o.seeds!, ...(shard ? { shard } : {}), summary: relative, seconds: rate.seconds, workers }), null, 2)}\n`,
  );
  if (o.json)
    io.stdout(
      `${JSON.stringify({ ...summary, ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}), ...rate, summary_file: summaryFile })}\n`,
    );
  else io.stdout(sweepTable({ ...o, ...(shard ? { shard } : {}) }, summary, rate, summaryFile));
  return summary.failed.length > 0 ? 1 : 0;
}

function sweepTable(
  o: ChaosCommandOptions,
  s: SweepSummary,
  rate: { seconds: number; events_per_s: number; seeds_per_min: number; workers: number },
  summaryFile: string,
): string {
  const c = s.coverage;
  const rows: [string, string][] = [
    [
      'options',
      `${o.steps} steps, ${o.nodes} nodes, faults ${o.faults.join(',') || 'none'}${o.bug ? `, bug ${o.bug}` : ''}${o.shard ? `, shard ${o.shard.index}/${o.shard.count}` : ''}`,
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
    ['time', `${rate.seconds} s on ${rate.workers} worker(s): ${rate.seeds_per_min} seeds/min, ${rate.events_per_s} events/s`],
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
    ['summary', summaryFile],
  ];
  const lines = rows.map(([k, v]) => `${k.padEnd(10)} ${v}`);
  for (const f of s.failed)
    lines.push(`FAILED seed ${f.seed}: ${f.first_violation}${f.replay_file ? `\n  replay: mqsim replay ${f.replay_file}` : ''}`);
  lines.push(s.failed.length > 0 ? 'FAIL' : 'PASS');
  return `${lines.join('\n')}\n`;
}

/** `mqsim chaos`: exit 0 when no invariant broke and every requested fault happened, else 1. */
export async function runChaosCommand(o: ChaosCommandOptions, io: ChaosIo = defaultIo): Promise<number> {
  if (o.target) return runTargetCommand(o, io);
  if (o.seeds) return runSweepCommand(o, io);
  if (o.shard || o.shardCount !== undefined || o.workers !== undefined || o.outDir)
    throw new UsageError('--shard, --shard-count, --workers and --out-dir belong to a sweep: give --seeds FROM..TO');
  if (o.username !== undefined || o.password !== undefined) throw new UsageError('--username and --password belong to --target');
  const options: ChaosOptions = { seed: o.seed, steps: o.steps, nodes: o.nodes, faults: o.faults, bug: o.bug ?? null };
  if (o.checkDeterminism) {
    const d = await checkDeterminism(options);
    io.stdout(
      o.json
        ? `${JSON.stringify({ seed: o.seed, deterministic: d.same, trace_hashes: d.hashes })}\n`
        : `${d.same ? 'deterministic' : 'NOT deterministic'}: ${d.hashes.join(' vs ')}\n`,
    );
    return d.same ? 0 : 1;
  }
  const plan = generatePlan(options);
  const replay = o.out ? `mqsim replay ${o.out}` : chaosCommandOf(options);
  const { result } = await runPlan(options, plan, { replay });
  if (o.out) io.writeFile(o.out, `${JSON.stringify(replayFileOf(options, plan, result))}\n`);
  if (o.json) io.stdout(`${resultLine(result)}\n`);
  else {
    io.stdout(`seed ${result.seed}: ${result.steps} steps, ${result.events} events, trace ${result.trace_hash}\n`);
    io.stdout(`coverage: ${JSON.stringify(result.coverage)}\n`);
    for (const v of result.violations) io.stdout(`VIOLATION ${v.name} at event ${v.event}: ${v.message}\n`);
    if (result.unexercised.length > 0) io.stdout(`UNEXERCISED (requested but never happened): ${result.unexercised.join(', ')}\n`);
    io.stdout(`${runFailed(result) ? 'FAIL' : 'PASS'}; replay: ${replay}\n`);
  }
  if (result.violations.length > 0 && o.shrink) {
    const shrunk = await shrinkPlan(options, plan, o.shrinkRuns);
    const file = o.shrinkOut ?? (o.out ? o.out.replace(/(\.json)?$/, '.min.json') : `mqsim-chaos-${o.seed}.min.json`);
    const { result: min } = await runPlan(options, shrunk.plan, { replay: `mqsim replay ${file}` });
    io.writeFile(file, `${JSON.stringify(replayFileOf(options, shrunk.plan, min, plan.length))}\n`);
    io.stderr(
      `shrunk ${plan.length} steps to ${shrunk.plan.length} (${shrunk.runs} runs${shrunk.minimal ? ', 1-minimal' : ', run budget reached'}) still breaking ${shrunk.violation}; replay it: mqsim replay ${file}\n`,
    );
  }
  return runFailed(result) ? 1 : 0;
}

/** Adds `mqsim chaos`'s options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureChaosCommand(cmd: Command): void {
  // `chaos merge` has options named as chaos's own (--json, --out): with positional options, those
  // after `merge` are merge's. Commander needs the setting on every command above it (main.ts sets the program's).
  const chaos = cmd.enablePositionalOptions();
  chaos
    .addOption(new Option('--seed <seed>', 'seed of the plan and of the cluster').default('1').argParser(seedArg))
    .addOption(
      new Option('--steps <k>', 'number of steps (API calls, faults, repairs)')
        .default(1000)
        .argParser(parseIntOption('--steps', 1, 10_000_000)),
    )
    .addOption(new Option('--nodes <n>', 'cluster size').default(5).argParser(parseIntOption('--nodes', 1, 9)))
    .addOption(
      new Option('--faults <kinds>', `comma-separated fault kinds: ${CHAOS_FAULT_KINDS.join(',')} (or none)`)
        .default([...CHAOS_FAULT_KINDS], 'all')
        .argParser(faultList),
    )
    .addOption(new Option('--bug <name>', 'switch on a deliberately buggy model variant').argParser(parseChoice('--bug', CHAOS_BUGS)))
    .addOption(
      new Option(
        '--seeds <list>',
        'sweep: run every seed of FROM..TO and/or a comma list (e.g. 1..1000); summary table, exit 1 if one failed',
      ).argParser(seedListArg),
    )
    .addOption(
      new Option('--workers <n>', 'sweep: worker threads (default: available cores)').argParser(parseIntOption('--workers', 1, 256)),
    )
    .addOption(new Option('--shard <i/n>', 'sweep: run only shard i of n of the seeds (round robin), for CI matrices').argParser(shardArg))
    .addOption(
      new Option(
        '--shard-count <n>',
        `sweep: split the seeds into n shards and run the one ${JOB_INDEX_VARIABLE} names (0 … n-1, as a Kubernetes Indexed Job sets it)`,
      ).argParser(shardCountArg),
    )
    .option(
      '--out-dir <dir>',
      `sweep: where the summary file (sweep.json, sweep-i-of-n.json for a shard) and failing seeds' replay files go (default ${DEFAULT_SWEEP_DIR})`,
    )
    .option('--target <url>', 'run the API operations of the plan against a server over HTTP (no faults) and check API-level invariants')
    .option('--username <user>', 'with --target: log in with these credentials (else no token is sent)')
    .option('--password <password>', 'with --target: password of --username')
    .option('--out <file>', 'write the replay file of the run')
    .option('--json', 'print one JSON line')
    .option('--check-determinism', 'run twice from scratch and compare the trace hashes')
    .option('--no-shrink', 'on a violation, do not shrink the failing plan')
    .option('--shrink-out <file>', 'where the shrunk replay file goes (default <out>.min.json or mqsim-chaos-<seed>.min.json)')
    .addOption(
      new Option('--shrink-runs <n>', 'run budget of the shrinker').default(300).argParser(parseIntOption('--shrink-runs', 1, 100_000)),
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 no violation and every requested fault kind happened; 1 a violation, or a requested
fault kind never happened (the run would pass vacuously); 2 usage error.

Examples:
  mqsim chaos --seed 7 --steps 5000 --json
  mqsim chaos --seed 7 --steps 2000 --faults crash,partition --out run.json
  mqsim chaos --seed 3 --steps 2000 --bug grantVoteTwice        # shrinks the failure, prints the replay command
  mqsim chaos --seed 7 --steps 2000 --check-determinism
  mqsim chaos --seeds 1..1000 --steps 1000 --workers 2                # sweep, summary table
  mqsim chaos --seeds 1..1000 --shard 2/4 --json --out-dir reports/chaos   # one CI matrix job
  JOB_COMPLETION_INDEX=1 mqsim chaos --seeds 1..1000 --shard-count 4 --out-dir /reports   # pod 1 of an Indexed Job
  mqsim chaos merge /reports                                          # the four shards' summary as one sweep
  mqsim chaos --target http://127.0.0.1:58080 --seed 3 --steps 500 --username admin --password admin`,
    )
    .action(async (opts: ChaosCommandOptions) => {
      process.exitCode = await runChaosCommand(opts);
    });
  registerChaosMergeCommand(chaos);
}
