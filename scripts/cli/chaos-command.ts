import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CHAOS_BUGS, CHAOS_FAULT_KINDS, generatePlan, type ChaosFaultKind, type ChaosOptions } from '../../sim/chaos/chaos-plan.ts';
import { runPlan } from '../../sim/chaos/chaos-runner.ts';
import { chaosCommandOf, checkDeterminism, replayFileOf, resultLine, runFailed } from '../../sim/chaos/chaos.ts';
import { shrinkPlan } from '../../sim/chaos/shrink.ts';
import { parseChoice, parseIntOption } from './usage-error.ts';

export interface ChaosIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  writeFile: (path: string, text: string) => void;
}

const defaultIo: ChaosIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  writeFile: (p, t) => writeFileSync(p, t),
};

function faultList(value: string): ChaosFaultKind[] {
  if (value === 'none') return [];
  const out: ChaosFaultKind[] = [];
  for (const raw of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!(CHAOS_FAULT_KINDS as readonly string[]).includes(raw)) throw new InvalidArgumentError(`--faults: unknown fault kind ${JSON.stringify(raw)}; kinds are ${CHAOS_FAULT_KINDS.join(', ')} (or none).`);
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
}

/** `mqsim chaos`: exit 0 when no invariant broke and every requested fault happened, else 1. */
export async function runChaosCommand(o: ChaosCommandOptions, io: ChaosIo = defaultIo): Promise<number> {
  const options: ChaosOptions = { seed: o.seed, steps: o.steps, nodes: o.nodes, faults: o.faults, bug: o.bug ?? null };
  if (o.checkDeterminism) {
    const d = await checkDeterminism(options);
    io.stdout(o.json ? `${JSON.stringify({ seed: o.seed, deterministic: d.same, trace_hashes: d.hashes })}\n` : `${d.same ? 'deterministic' : 'NOT deterministic'}: ${d.hashes.join(' vs ')}\n`);
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
    io.stderr(`shrunk ${plan.length} steps to ${shrunk.plan.length} (${shrunk.runs} runs${shrunk.minimal ? ', 1-minimal' : ', run budget reached'}) still breaking ${shrunk.violation}; replay it: mqsim replay ${file}\n`);
  }
  return runFailed(result) ? 1 : 0;
}

export function registerChaosCommand(program: Command): void {
  program
    .command('chaos')
    .description('Seeded chaos run: API operations through the admin handlers interleaved with faults; every invariant checked after every event')
    .addOption(new Option('--seed <seed>', 'seed of the plan and of the cluster').default('1').argParser(seedArg))
    .addOption(new Option('--steps <k>', 'number of steps (API calls, faults, repairs)').default(1000).argParser(parseIntOption('--steps', 1, 10_000_000)))
    .addOption(new Option('--nodes <n>', 'cluster size').default(5).argParser(parseIntOption('--nodes', 1, 9)))
    .addOption(new Option('--faults <kinds>', `comma-separated fault kinds: ${CHAOS_FAULT_KINDS.join(',')} (or none)`).default([...CHAOS_FAULT_KINDS], 'all').argParser(faultList))
    .addOption(new Option('--bug <name>', 'switch on a deliberately buggy model variant').argParser(parseChoice('--bug', CHAOS_BUGS)))
    .option('--out <file>', 'write the replay file of the run')
    .option('--json', 'print one JSON line')
    .option('--check-determinism', 'run twice from scratch and compare the trace hashes')
    .option('--no-shrink', 'on a violation, do not shrink the failing plan')
    .option('--shrink-out <file>', 'where the shrunk replay file goes (default <out>.min.json or mqsim-chaos-<seed>.min.json)')
    .addOption(new Option('--shrink-runs <n>', 'run budget of the shrinker').default(300).argParser(parseIntOption('--shrink-runs', 1, 100_000)))
    .addHelpText(
      'after',
      `
Exit codes: 0 no violation and every requested fault kind happened; 1 a violation, or a requested
fault kind never happened (the run would pass vacuously); 2 usage error.

Examples:
  mqsim chaos --seed 7 --steps 5000 --json
  mqsim chaos --seed 7 --steps 2000 --faults crash,partition --out run.json
  mqsim chaos --seed 3 --steps 2000 --bug grantVoteTwice        # shrinks the failure, prints the replay command
  mqsim chaos --seed 7 --steps 2000 --check-determinism`,
    )
    .action(async (opts: ChaosCommandOptions) => {
      process.exitCode = await runChaosCommand(opts);
    });
}
