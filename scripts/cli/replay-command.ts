import { readFileSync } from 'node:fs';
import { type Command } from 'commander';
import { runPlan } from '../../sim/runs/chaos/chaos-runner.ts';
import { resultLine, runFailed } from '../../sim/runs/chaos/chaos.ts';
import { parseReplayFile } from '../../sim/runs/chaos/replay-file.ts';
import { parseIntOption, UsageError } from './usage-error.ts';

export interface ReplayIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
}

const defaultIo: ReplayIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readFile: (p) => readFileSync(p, 'utf8'),
};

export interface ReplayCommandOptions {
  json?: boolean;
  until?: number;
  dump?: boolean;
}

/** `mqsim replay FILE`: exit 1 on a violation, a requested fault that never happened, or a diverging hash. */
export async function runReplayCommand(file: string, o: ReplayCommandOptions, io: ReplayIo = defaultIo): Promise<number> {
  if (o.dump && o.until === undefined) throw new UsageError('--dump needs --until EVENT');
  let text: string;
  try {
    text = io.readFile(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let saved;
  try {
    saved = parseReplayFile(text, file);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { result, dump } = await runPlan(saved.options, saved.plan, { replay: `mqsim replay ${file}`, untilEvent: o.until });
  if (o.until !== undefined) {
    if (dump === null) {
      io.stderr(`the run ended after ${result.events} events, before event ${o.until}\n`);
      return 1;
    }
    io.stdout(o.json ? `${JSON.stringify(dump)}\n` : `${JSON.stringify(dump, null, 2)}\n`);
    return 0;
  }
  const same = result.trace_hash === saved.expect.trace_hash;
  if (o.json) io.stdout(`${resultLine(result)}\n`);
  else {
    io.stdout(`replayed ${file}: ${result.steps} steps, ${result.events} events, trace ${result.trace_hash}\n`);
    for (const v of result.violations) io.stdout(`VIOLATION ${v.name} at event ${v.event}: ${v.message}\n`);
  }
  if (!same) io.stderr(`replay DIVERGED: saved trace ${saved.expect.trace_hash}, replayed ${result.trace_hash}\n`);
  else if (!o.json) io.stdout('reproduced exactly (same trace hash)\n');
  return !same || runFailed(result) ? 1 : 0;
}

/** Adds `mqsim replay`'s argument, options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureReplayCommand(cmd: Command): void {
  cmd
    .argument('<file>', 'replay file written by `mqsim chaos --out` or by shrinking')
    .option('--json', 'print the same JSON line as `mqsim chaos --json`')
    .option(
      '--until <event>',
      'stop right after this engine event (0 = before the first)',
      parseIntOption('--until', 0, Number.MAX_SAFE_INTEGER),
    )
    .option('--dump', 'with --until: print nodes, group leaders and terms, and the ISR summary at that point')
    .addHelpText(
      'after',
      `
Exit codes: 0 reproduced and clean; 1 a violation (reproduced), an unexercised fault kind, or a
diverging trace hash; 2 usage error.

Examples:
  mqsim replay run.json --json
  mqsim replay mqsim-chaos-3.min.json
  mqsim replay run.json --until 1200 --dump`,
    )
    .action(async (file: string, opts: ReplayCommandOptions) => {
      process.exitCode = await runReplayCommand(file, opts);
    });
}
