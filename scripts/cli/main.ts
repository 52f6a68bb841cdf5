import { Command, CommanderError, Help } from 'commander';
import { MQSIM_VERSION } from '../../sim/version.ts';
import { UsageError } from './usage-error.ts';

/**
 * One `mqsim` command as the top-level help lists it. Its options, help text and action live in its
 * module, imported only when the command runs or shows its own help: `mqsim --help` and
 * `mqsim --version` then load commander alone, not the simulator and the suites behind each command
 * (≈1 s of module loading), which keeps them within a few tens of milliseconds of Node's own start.
 */
export interface CliCommand {
  name: string;
  /** What follows the name in the list of commands, as commander prints it once configured (a test keeps them equal). */
  term: string;
  description: string;
  /** Adds the command's options, arguments, help text and action to `cmd` (already named and described). */
  load: () => Promise<(cmd: Command) => unknown>;
}

export const CLI_COMMANDS: readonly CliCommand[] = [
  {
    name: 'serve',
    term: '[options]',
    description: 'serve the admin HTTP API of a simulated cluster: one listener per node, virtual time following wall time',
    load: async () => (await import('./serve-command.ts')).configureServeCommand,
  },
  {
    name: 'conform',
    term: '[options]',
    description: 'check every endpoint of a server (or the embedded simulator) against the contract and write JSON, HTML and JUnit reports',
    load: async () => (await import('./conform-command.ts')).configureConformCommand,
  },
  {
    name: 'openapi',
    term: '[options]',
    description: 'print the admin API contract as an OpenAPI 3.1 document (JSON)',
    load: async () => (await import('./openapi-command.ts')).configureOpenapiCommand,
  },
  {
    name: 'report',
    term: '',
    description: 'work with conformance reports written by `mqsim conform`',
    load: async () => (await import('./report-command.ts')).configureReportCommand,
  },
  {
    name: 'chaos',
    term: '[options]',
    description:
      'Seeded chaos run: API operations through the admin handlers interleaved with faults; every invariant checked after every event',
    load: async () => (await import('./chaos-command.ts')).configureChaosCommand,
  },
  {
    name: 'replay',
    term: '[options] <file>',
    description: 'Replay a saved chaos run (or a shrunk failure) exactly; optionally dump the cluster state at an event',
    load: async () => (await import('./replay-command.ts')).configureReplayCommand,
  },
  {
    name: 'scenario',
    term: '[options] <files...>',
    description: 'Run named chaos scenarios (setup, workload, faults, heal, eventually-checks) on the in-process cluster',
    load: async () => (await import('./scenario-command.ts')).configureScenarioCommand,
  },
];

/**
 * The program with every command named and described; a command's module is loaded and applied in
 * commander's `preSubcommand` hook, which runs before the command parses its arguments, for
 * `mqsim serve …`, `mqsim serve --help` and `mqsim help serve` alike.
 */
export function buildProgram(): Command {
  return buildProgramWithLoaders().program;
}

function buildProgramWithLoaders(): { program: Command; loaders: Map<Command, CliCommand['load']> } {
  const program = new Command();
  const terms = new Map(CLI_COMMANDS.map((c) => [c.name, c.term]));
  program
    .name('mqsim')
    .description("Deterministic cluster simulator, conformance suites and chaos replay for a message broker's admin HTTP API")
    .version(MQSIM_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // Sub-subcommands whose options share a name with their parent's (chaos merge --json) need it.
    .enablePositionalOptions()
    .configureHelp({
      // The commands are not configured yet when the list is printed: their terms come from the table.
      subcommandTerm(this: Help, cmd: Command): string {
        const term = terms.get(cmd.name());
        return term === undefined ? Help.prototype.subcommandTerm.call(this, cmd) : `${cmd.name()} ${term}`.trim();
      },
    })
    .exitOverride();
  const loaders = new Map<Command, CliCommand['load']>();
  for (const entry of CLI_COMMANDS) {
    const cmd = program.command(entry.name).description(entry.description).exitOverride();
    loaders.set(cmd, entry.load);
  }
  program.hook('preSubcommand', async (_program, sub) => configure(loaders, sub));
  return { program, loaders };
}

async function configure(loaders: Map<Command, CliCommand['load']>, cmd: Command): Promise<void> {
  const load = loaders.get(cmd);
  if (!load) return;
  loaders.delete(cmd);
  (await load())(cmd);
}

/**
 * `mqsim help serve` prints the command's help without dispatching to it (commander calls no hook on
 * that path), so the command named is configured before parsing.
 */
async function configureForHelpCommand(
  program: Command,
  loaders: Map<Command, CliCommand['load']>,
  argv: readonly string[],
): Promise<void> {
  const [first, second] = argv.slice(2);
  if (first !== 'help' || second === undefined) return;
  const named = program.commands.find((c) => c.name() === second);
  if (named) await configure(loaders, named);
}

/** Runs the CLI: exit 0 on success, 1 on a failed check or run, 2 on a usage error. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`mqsim serve --help | head`) closes the pipe: stop quietly, as Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const { program, loaders } = buildProgramWithLoaders();
  try {
    await configureForHelpCommand(program, loaders, argv);
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
