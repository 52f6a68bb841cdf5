import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { CHAOS_BUGS, type ChaosBug } from '../../sim/runs/chaos/chaos-plan.ts';
import { parseScenarioFile, type ScenarioFile } from '../../sim/runs/scenario/scenario-file.ts';
import { runScenario, type ScenarioResult } from '../../sim/runs/scenario/scenario-runner.ts';
import { parseChoice, UsageError } from './usage-error.ts';

export interface ScenarioIo {
  stdout: (text: string) => void;
  readFile: (path: string) => string;
  /** Scenario files of a directory (its *.json, sorted), or null when `path` is a file. */
  listDir: (path: string) => string[] | null;
}

const defaultIo: ScenarioIo = {
  stdout: (t) => process.stdout.write(t),
  readFile: (p) => readFileSync(p, 'utf8'),
  listDir: (p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(p, f))
      : null,
};

export interface ScenarioCommandOptions {
  json?: boolean;
  bug?: ChaosBug;
  seed?: string;
}

/** Every scenario named (a directory stands for its *.json files), parsed before any runs: a bad file is a usage error (exit 2). */
export function loadScenarios(paths: string[], io: ScenarioIo = defaultIo): { path: string; file: ScenarioFile }[] {
  const out: { path: string; file: ScenarioFile }[] = [];
  for (const p of paths) {
    let files: string[];
    try {
      files = io.listDir(p) ?? [p];
    } catch (e) {
      throw new UsageError(`cannot read ${p}: ${(e as Error).message}`);
    }
    for (const f of files) {
      let text: string;
      try {
        text = io.readFile(f);
      } catch (e) {
        throw new UsageError(`cannot read ${f}: ${(e as Error).message}`);
      }
      try {
        out.push({ path: f, file: parseScenarioFile(text, f) });
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    }
  }
  if (out.length === 0) throw new UsageError(`no scenario files in ${paths.join(', ')}`);
  return out;
}

function report(r: ScenarioResult, path: string): string {
  const lines = [
    `scenario ${r.scenario} (${path}), seed ${r.seed}${r.bug ? `, bug ${r.bug}` : ''}: ${r.events} events, trace ${r.trace_hash}`,
  ];
  for (const c of r.checks) lines.push(`  ${c.passed ? 'PASS' : 'FAIL'} ${c.name}: ${c.message}`);
  lines.push(`${r.passed ? 'PASS' : 'FAIL'} ${r.scenario}`);
  return `${lines.join('\n')}\n`;
}

/** `mqsim scenario FILE|DIR...`: exit 0 when every scenario passed, 1 when one failed, 2 on a bad file. */
export async function runScenarioCommand(paths: string[], o: ScenarioCommandOptions, io: ScenarioIo = defaultIo): Promise<number> {
  const scenarios = loadScenarios(paths, io);
  let failed = 0;
  for (const { path, file } of scenarios) {
    const r = await runScenario(file, { ...(o.seed ? { seed: o.seed } : {}), ...(o.bug ? { bug: o.bug } : {}) });
    if (!r.passed) failed++;
    io.stdout(
      o.json
        ? `${JSON.stringify({ scenario: r.scenario, file: path, seed: r.seed, bug: r.bug, passed: r.passed, events: r.events, trace_hash: r.trace_hash, checks: r.checks, violations: r.violations })}\n`
        : report(r, path),
    );
  }
  return failed > 0 ? 1 : 0;
}

/** Adds `mqsim scenario`'s arguments, options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureScenarioCommand(cmd: Command): void {
  cmd
    .argument('<files...>', 'scenario files (format mqsim-scenario/1), or directories of them')
    .option('--json', 'one JSON line per scenario (with trace_hash)')
    .option('--seed <seed>', "override the scenario's seed")
    .addOption(
      new Option('--bug <name>', 'switch on a deliberately buggy model variant (the checks must then fail)').argParser(
        parseChoice('--bug', CHAOS_BUGS),
      ),
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 every check of every scenario held; 1 a check failed or an invariant broke; 2 a bad
scenario file (the message names the field) or another usage error.

Examples:
  mqsim scenario fixtures/scenarios/leader-crash-during-writes.json
  mqsim scenario fixtures/scenarios --json
  mqsim scenario fixtures/scenarios/isr-shrinks-to-one-then-leader-lost.json --bug uncleanElection`,
    )
    .action(async (files: string[], opts: ScenarioCommandOptions) => {
      process.exitCode = await runScenarioCommand(files, opts);
    });
}
