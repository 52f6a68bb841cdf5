import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { exitCodeOf, type FailOn, type Report } from '../../suites/conform/report-model.ts';
import { writeReports } from '../../suites/report/writers/write-reports.ts';
import { MergeError, mergeReports } from '../../suites/report/merge.ts';
import { readReportFile, ReportFileError } from '../../suites/report/report-file.ts';
import { summaryText, type ConformIo } from './conform-command.ts';

export interface ReportMergeOptions {
  out?: string;
  baseline?: string;
  json?: boolean;
  quiet?: boolean;
  failOn?: FailOn;
}

const defaultIo: ConformIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  reportsRoot: 'reports',
};

/**
 * `mqsim report merge DIR...`: one report from shard reports, written in all three formats. Exit
 * status as `mqsim conform` (0 pass, 1 fail or vacuous, 2 when the inputs cannot be merged).
 */
export function runReportMerge(inputs: readonly string[], options: ReportMergeOptions, io: ConformIo = defaultIo): number {
  let merged: Report;
  try {
    const reports = inputs.map((i) => readReportFile(i));
    const baseline = options.baseline !== undefined ? readReportFile(options.baseline) : undefined;
    merged = mergeReports(reports, { ...(baseline ? { baseline } : {}), ...(options.failOn ? { failOn: options.failOn } : {}) });
  } catch (e) {
    if (e instanceof ReportFileError || e instanceof MergeError) {
      io.stderr(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const out = options.out ?? join(io.reportsRoot, merged.runId);
  writeReports(merged, out);
  if (options.json) io.stdout(`${JSON.stringify(merged, null, 2)}\n`);
  else {
    if (!options.quiet) io.stderr(`merged ${inputs.length} reports: ${merged.endpoints.length} endpoints\n`);
    io.stdout(summaryText(merged, out, options.quiet));
  }
  return exitCodeOf(merged);
}

export interface RegisterReportOptions {
  io?: ConformIo;
  exit?: (code: number) => void;
}

/** Registers `mqsim report` (subcommand `merge`) on the CLI program. */
export function registerReportCommand(program: Command, registerOptions: RegisterReportOptions = {}): Command {
  return configureReportCommand(
    program.command('report').description('work with conformance reports written by `mqsim conform`'),
    registerOptions,
  );
}

/** Adds `mqsim report`'s subcommand `merge` to `report` (named and described by the CLI's command table). */
export function configureReportCommand(report: Command, registerOptions: RegisterReportOptions = {}): Command {
  const exit =
    registerOptions.exit ??
    ((code: number) => {
      process.exitCode = code;
    });
  report.exitOverride();
  report
    .command('merge')
    .description('combine report.json files (e.g. the shards of one run) into one report: report.json, index.html and junit.xml')
    .argument('<dirs...>', 'report directories (or report.json files) to merge')
    .option('--out <dir>', 'write the merged reports here (default: reports/<run-id>-merged/)')
    .option(
      '--baseline <report.json>',
      'compare the merged report with an earlier report: exit 1 only for NEW findings (at the --fail-on level)',
    )
    .addOption(
      new Option(
        '--fail-on <level>',
        'the finding level that fails the run: must, should or info (default: as the inputs were run)',
      ).choices(['must', 'should', 'info']),
    )
    .option('--json', 'print the merged report as JSON on stdout instead of the summary')
    .option('--quiet', 'print only the final verdict line')
    .addHelpText(
      'after',
      `
The inputs must be reports of one target; an endpoint present in two inputs, or a missing shard
(e.g. 1/3 and 3/3 without 2/3), is an error (exit 2). Endpoints come out in contract order; findings,
spec coverage, counts, vacuous flag and verdict are recomputed over all inputs (a rule broken in two
shards is one finding). Exit status: 0 pass, 1 a finding at the --fail-on level (with --baseline: a
new one) or a vacuous input, 2 usage error.

Examples:
  $ mqsim conform --target sim --shard 1/2 --report-dir shard-1 --quiet
  $ mqsim conform --target sim --shard 2/2 --report-dir shard-2 --quiet
  $ mqsim report merge shard-1 shard-2 --out conform-report
  $ mqsim report merge shards/*/ --out conform-report --baseline baseline/report.json`,
    )
    .exitOverride()
    .action((dirs: string[], options: ReportMergeOptions) => {
      exit(runReportMerge(dirs, options, registerOptions.io ?? defaultIo));
    });
  return report;
}
