import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { exitCodeOf, type Report } from '../../suites/conform/report-model.ts';
import { runConform, runIdOf } from '../../suites/conform/runner.ts';
import { copyToLatest, writeReports } from '../../suites/conform/writers/write-reports.ts';
import { parseTargetUrl } from '../../suites/targets/url-target.ts';

export interface ConformCommandOptions {
  target: string;
  username?: string;
  password?: string;
  reportDir?: string;
  seed: number;
  timeout: number;
  rate?: number;
  nodes: number;
  json?: boolean;
}

export interface ConformIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where default report directories go (`reports/`). */
  reportsRoot: string;
}

const defaultIo: ConformIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  reportsRoot: 'reports',
};

function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be an integer, got ${JSON.stringify(value)}.`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${n}.`);
    return n;
  };
}

function positiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a number above 0, got ${JSON.stringify(value)}.`);
    return n;
  };
}

function targetArg(value: string): string {
  if (value === 'sim') return value;
  try {
    parseTargetUrl(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value.replace(/\/+$/, '');
}

/** The end-of-run lines: verdict, where the reports are, and the first MUST failures. */
export function summaryText(report: Report, reportDir: string): string {
  const lines = [report.verdictLine, `report: ${join(reportDir, 'index.html')} (also report.json, junit.xml)`];
  if (report.vacuous) lines.unshift(`WARNING: vacuous run — ${report.vacuousReason}`);
  const must = report.endpoints.flatMap((e) => e.checks.filter((c) => c.status === 'fail' && c.level === 'MUST').map((c) => `  ✗ ${e.method} ${e.path} ${c.id}: ${c.message}`));
  if (must.length > 0) lines.push(`MUST failures (${must.length}):`, ...must.slice(0, 15), ...(must.length > 15 ? [`  … and ${must.length - 15} more in the report`] : []));
  for (const note of report.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

/** Runs `mqsim conform` with parsed options; returns the exit status (0 pass, 1 fail or vacuous). */
export async function runConformCommand(options: ConformCommandOptions, io: ConformIo = defaultIo): Promise<number> {
  if ((options.username === undefined) !== (options.password === undefined)) {
    io.stderr('error: --username and --password go together\n');
    return 2;
  }
  const startedAt = new Date();
  const runId = runIdOf(startedAt, options.target, options.seed);
  const reportDir = options.reportDir ?? join(io.reportsRoot, runId);
  const report = await runConform({
    target: options.target,
    seed: options.seed,
    timeoutMs: options.timeout,
    nodes: options.nodes,
    runId,
    ...(options.rate !== undefined ? { rate: options.rate } : {}),
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    onProgress: (line) => io.stderr(`${line}\n`),
  });
  writeReports(report, reportDir);
  if (options.reportDir === undefined) copyToLatest(reportDir, join(io.reportsRoot, 'latest'));
  if (options.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(summaryText(report, reportDir));
  return exitCodeOf(report);
}

export interface RegisterOptions {
  io?: ConformIo;
  /** Receives the run's exit status (default: process.exitCode); injectable for tests. */
  exit?: (code: number) => void;
}

/**
 * Registers `mqsim conform` on the CLI program. A failing or vacuous run ends with status 1; usage
 * errors are thrown as CommanderError for the program's main to turn into status 2.
 */
export function registerConformCommand(program: Command, registerOptions: RegisterOptions = {}): Command {
  // Setting exitCode (not process.exit) lets a large --json report drain to a pipe before the process ends.
  const exit =
    registerOptions.exit ??
    ((code: number) => {
      process.exitCode = code;
    });
  const cmd = program
    .command('conform')
    .description('check every endpoint of a server (or the embedded simulator) against the contract and write JSON, HTML and JUnit reports')
    .requiredOption('--target <url|sim>', 'base URL of the server to check, or "sim" for the embedded simulator', targetArg)
    .option('--username <name>', 'administrator name: log in and send a Bearer token with every request')
    .option('--password <password>', 'administrator password (with --username)')
    .option('--report-dir <dir>', 'write report.json, index.html and junit.xml exactly here (default: reports/<run-id>/, copied to reports/latest/)')
    .addOption(new Option('--seed <n>', 'seed: names of the run\'s fixtures, and the simulator\'s seed with --target sim').argParser(integer('--seed', 0)).default(1))
    .addOption(new Option('--timeout <ms>', 'per-request timeout in ms').argParser(integer('--timeout', 1, 600_000)).default(10_000))
    .addOption(new Option('--rate <n>', 'send at most n requests per second (default: no limit; 429 answers are waited out per Retry-After)').argParser(positiveNumber('--rate')))
    .addOption(new Option('--nodes <n>', 'cluster size with --target sim').argParser(integer('--nodes', 1, 9)).default(3))
    .option('--json', 'print the report as JSON on stdout instead of the summary')
    .addHelpText(
      'after',
      `
Exit status: 0 when no MUST check failed and the run reached the API; 1 when a MUST check failed or
the run was vacuous (e.g. every request answered 401); 2 on a usage error.

Examples:
  $ mqsim conform --target sim
  $ mqsim conform --target http://127.0.0.1:58080 --seed 7
  $ mqsim conform --target http://broker:58080 --username admin --password secret --report-dir out/conform
  $ mqsim conform --target sim --json > report.json`,
    )
    // Usage errors throw a CommanderError; the CLI's main turns it into exit status 2 (0 for --help).
    .exitOverride()
    .action(async (options: ConformCommandOptions) => {
      let code: number;
      try {
        code = await runConformCommand(options, registerOptions.io ?? defaultIo);
      } catch (e) {
        (registerOptions.io ?? defaultIo).stderr(`error: ${(e as Error).message}\n`);
        code = /--target|--username|URL/.test((e as Error).message) ? 2 : 1;
      }
      exit(code);
    });
  return cmd;
}
