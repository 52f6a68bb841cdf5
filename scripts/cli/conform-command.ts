import { join } from 'node:path';
import type { Command } from 'commander';
import { CONTRACT } from '../../contract/index.ts';
import { coverageLine } from '../../suites/conform/coverage.ts';
import { exitCodeOf, type FailOn, type Report, type ShardSpec } from '../../suites/conform/report-model.ts';
import { runConform, runIdOf, SetupError } from '../../suites/run/runner.ts';
import { copyToLatest, writeReports } from '../../suites/report/writers/write-reports.ts';
import { baselineLines } from '../../suites/report/baseline.ts';
import { ProgressPrinter } from '../../suites/report/progress.ts';
import { readReportFile, ReportFileError } from '../../suites/report/report-file.ts';
import { resolveShard } from '../../suites/report/job-shard.ts';
import { selectEndpoints, SelectionError } from '../../suites/report/selection.ts';
import { peerAddressProblem } from '../../suites/targets/peer-address.ts';
import { addConformOptions } from './conform-options.ts';
import { CONFORM_HELP_TEXT } from './conform-help.ts';

export interface ConformCommandOptions {
  target: string;
  username?: string;
  password?: string;
  /** The server's token signing secret: the correctly-signed-expired-token checks run. */
  jwtSecret?: string;
  /** Local address the auth checks send from (a peer the spec does not exempt). */
  peerAddress?: string;
  /** The target's MQTT listener as HOST:PORT, instead of detecting it. */
  mqtt?: string;
  reportDir?: string;
  seed: number;
  timeout: number;
  rate?: number;
  /** Endpoints checked at once (1: one after another). */
  concurrency?: number;
  nodes: number;
  json?: boolean;
  /** Path globs, endpoint id globs or tags (repeatable, comma-separated). */
  only?: readonly string[];
  skip?: readonly string[];
  shard?: ShardSpec;
  /** Number of shards, this process's from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod index). */
  shardCount?: number;
  /** An earlier report.json (or its directory): only new findings fail the run. */
  baseline?: string;
  /** Findings from this level up fail the run (default must). */
  failOn?: FailOn;
  /** No progress; only the verdict line on stdout. */
  quiet?: boolean;
  /** `--no-properties` sets false; absent means true. */
  properties?: boolean;
  propertyRuns?: number;
  propertyPath?: string;
  /** Steps per list history. */
  depth?: number;
}

export interface ConformIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where default report directories go (`reports/`). */
  reportsRoot: string;
  /** stderr is a terminal: progress is one line updated in place. */
  stderrIsTTY?: boolean;
  columns?: number;
  /** Where JOB_COMPLETION_INDEX is read (default: process.env); injectable for tests. */
  env?: NodeJS.ProcessEnv;
}

const defaultIo: ConformIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  reportsRoot: 'reports',
  get stderrIsTTY() {
    return process.stderr.isTTY === true;
  },
  get columns() {
    return process.stderr.columns ?? 100;
  },
};

/**
 * The end-of-run lines: verdict, the findings (MUST first), spec coverage, where the reports are, then
 * the baseline comparison. With `quiet`, the verdict line alone.
 */
export function summaryText(report: Report, reportDir: string, quiet = false): string {
  if (quiet) return `${report.verdictLine}\n`;
  const lines = [report.verdictLine];
  if (report.vacuous) lines.unshift(`WARNING: vacuous run — ${report.vacuousReason}`);
  // A finding grouped by rule or cause names it, then the assertion it cites (and how many more rows state it).
  const cites = (f: Report['findings'][number]) =>
    f.id === f.assertion
      ? f.assertion
      : `${f.id} (${f.assertion}${f.assertions && f.assertions.length > 1 ? ` and ${f.assertions.length - 1} more` : ''})`;
  const line = (f: Report['findings'][number]) =>
    `  ✗ [${f.level}] ${f.title}\n      ${cites(f)} · ${f.endpoints.slice(0, 4).join(', ')}${f.endpoints.length > 4 ? ` and ${f.endpoints.length - 4} more` : ''}`;
  const cross = report.findings.filter((f) => f.crossCutting).map(line);
  const own = report.findings.filter((f) => !f.crossCutting).map(line);
  if (cross.length > 0) lines.push(`cross-cutting findings (${cross.length}; not counted in each endpoint's status):`, ...cross);
  if (own.length > 0)
    lines.push(
      `${cross.length > 0 ? 'findings of particular endpoints' : 'findings'} (${own.length}):`,
      ...own.slice(0, 15),
      ...(own.length > 15 ? [`  … and ${own.length - 15} more in the report`] : []),
    );
  const e = report.summary.endpoints;
  if (e)
    lines.push(
      `endpoints by their own checks at --fail-on ${report.failOn ?? 'must'}: ${e.fail} fail, ${e.pass} pass, ${e.inconclusive} inconclusive, ${e.skipped} skipped, ${e.untested} untested`,
    );
  if (report.coverage) lines.push(coverageLine(report.coverage));
  lines.push(`report: ${join(reportDir, 'index.html')} (also report.json, junit.xml)`);
  if (report.baseline) lines.push(...baselineLines(report.baseline));
  for (const note of report.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

/** Reads `--baseline`; a usage error (exit 2) when it cannot be read. */
export function loadBaseline(file: string | undefined): { file: string; report: Report } | undefined {
  return file === undefined ? undefined : readReportFile(file);
}

/**
 * Runs `mqsim conform` with parsed options; returns the exit status: 0 pass, 1 fail or vacuous (with
 * a baseline: 1 only for new MUST failures), 2 usage error (bad selection, unreadable baseline, a
 * --peer-address this host cannot send from), set-up error (the target is down, is not this API,
 * or refuses the login: one sentence on stderr and no report, since nothing was checked), or a run
 * that could not be completed (the target stopped answering mid-run: the report is written, with one
 * finding saying when and at which request).
 */
export async function runConformCommand(options: ConformCommandOptions, io: ConformIo = defaultIo): Promise<number> {
  if ((options.username === undefined) !== (options.password === undefined)) {
    io.stderr('error: --username and --password go together\n');
    return 2;
  }
  let baseline: { file: string; report: Report } | undefined;
  let shard: ShardSpec | undefined;
  try {
    baseline = loadBaseline(options.baseline);
    shard = resolveShard(options, io.env ?? process.env);
    // Checked before anything starts, so a typo costs no run.
    selectEndpoints(CONTRACT, { ...options, ...(shard ? { shard } : {}) });
  } catch (e) {
    if (e instanceof ReportFileError) io.stderr(`error: --baseline: ${e.message}\n`);
    else if (e instanceof SelectionError) io.stderr(`error: ${e.message}\n`);
    else throw e;
    return 2;
  }
  const badPeer = options.peerAddress !== undefined ? await peerAddressProblem(options.peerAddress) : undefined;
  if (badPeer) {
    io.stderr(`error: ${badPeer}\n`);
    return 2;
  }
  const startedAt = new Date();
  const runId = runIdOf(startedAt, options.target, options.seed);
  const reportDir = options.reportDir ?? join(io.reportsRoot, runId);
  const printer = new ProgressPrinter(io.stderr, io.stderrIsTTY === true, io.columns);
  let report: Report;
  try {
    report = await runConform({
      target: options.target,
      seed: options.seed,
      timeoutMs: options.timeout,
      nodes: options.nodes,
      runId,
      ...(options.rate !== undefined ? { rate: options.rate } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      ...(options.jwtSecret !== undefined ? { jwtSecret: options.jwtSecret } : {}),
      ...(options.peerAddress !== undefined ? { peerAddress: options.peerAddress } : {}),
      ...(options.mqtt !== undefined ? { mqtt: options.mqtt } : {}),
      ...(options.only ? { only: options.only } : {}),
      ...(options.skip ? { skip: options.skip } : {}),
      ...(shard ? { shard } : {}),
      ...(baseline ? { baseline } : {}),
      ...(options.failOn ? { failOn: options.failOn } : {}),
      properties: options.properties !== false,
      ...(options.propertyRuns !== undefined ? { propertyRuns: options.propertyRuns } : {}),
      ...(options.propertyPath !== undefined ? { propertyPath: options.propertyPath } : {}),
      ...(options.depth !== undefined ? { depth: options.depth } : {}),
      ...(options.quiet ? {} : { onProgress: (line: string) => printer.line(line), onEndpoint: (p) => printer.endpoint(p) }),
    });
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    // Nothing was checked: no report is written (a report of zero checks could pass for a clean run).
    printer.clear();
    io.stderr(`error: ${e.message}\n`);
    return 2;
  }
  printer.clear();
  writeReports(report, reportDir);
  if (options.reportDir === undefined) copyToLatest(reportDir, join(io.reportsRoot, 'latest'));
  if (options.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(summaryText(report, reportDir, options.quiet));
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
  return configureConformCommand(program.command('conform'), registerOptions);
}

/** Adds `mqsim conform`'s options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureConformCommand(command: Command, registerOptions: RegisterOptions = {}): Command {
  // Setting exitCode (not process.exit) lets a large --json report drain to a pipe before the process ends.
  const exit =
    registerOptions.exit ??
    ((code: number) => {
      process.exitCode = code;
    });
  return (
    addConformOptions(command)
      .addHelpText('after', CONFORM_HELP_TEXT)
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
      })
  );
}
