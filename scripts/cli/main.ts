import { Command, CommanderError } from 'commander';
import { MQSIM_VERSION } from '../../sim/version.ts';
import { registerChaosCommand } from './chaos-command.ts';
import { registerConformCommand } from './conform-command.ts';
import { registerOpenapiCommand } from './openapi-command.ts';
import { registerReplayCommand } from './replay-command.ts';
import { registerReportCommand } from './report-command.ts';
import { registerScenarioCommand } from './scenario-command.ts';
import { registerServeCommand } from './serve-command.ts';
import { UsageError } from './usage-error.ts';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('mqsim')
    .description('Deterministic cluster simulator, conformance suites and chaos replay for a message broker\'s admin HTTP API')
    .version(MQSIM_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerServeCommand(program);
  registerConformCommand(program);
  registerOpenapiCommand(program);
  registerReportCommand(program);
  registerChaosCommand(program);
  registerReplayCommand(program);
  registerScenarioCommand(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI: exit 0 on success, 1 on a failed check or run, 2 on a usage error. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes with 2.
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`mqsim: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`mqsim: ${(e as Error)?.message ?? e}\n`);
    process.exitCode = 1;
  }
}
