import { parseDockerTarget } from '../../suites/targets/docker-target.ts';
import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CONTRACT } from '../../contract/index.ts';
import { coverageLine } from '../../suites/conform/coverage.ts';
import { exitCodeOf, type FailOn, type Report, type ShardSpec } from '../../suites/conform/report-model.ts';
import { runConform, runIdOf, SetupError } from '../../suites/run/runner.ts';
import { DEFAULT_CONCURRENCY } from '../../suites/conform/endpoint-lanes.ts';
import { copyToLatest, writeReports } from '../../suites/report/writers/write-reports.ts';
import { baselineLines } from '../../suites/report/baseline.ts';
import { ProgressPrinter } from '../../suites/report/progress.ts';
import { readReportFile, ReportFileError } from '../../suites/report/report-file.ts';
import { JOB_INDEX_VARIABLE, parseShardCount, resolveShard } from '../../suites/report/job-shard.ts';
import { parseShard, selectEndpoints, SelectionError } from '../../suites/report/selection.ts';
import { parsePeerAddress, peerAddressProblem } from '../../suites/targets/peer-address.ts';
import { parseTargetUrl } from '../../suites/targets/url-target.ts';
import { parseMqttFlag } from '../../suites/conform/mqtt-listener-address.ts';
import { DEFAULT_HISTORY_DEPTH, DEFAULT_HISTORY_RUNS } from '../../suites/properties/list-histories/history-property.ts';

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
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a number above 0, got ${JSON.stringify(value)}.`);
    return n;
  };
}

function targetArg(value: string): string {
  if (value === 'sim') return value;
  if (value.startsWith('docker:')) {
    try {
      parseDockerTarget(value);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
    return value;
  }
  try {
    parseTargetUrl(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value.replace(/\/+$/, '');
}

/** `--only`/`--skip`: repeatable, each value comma-separated. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function mqttArg(value: string): string {
  if (value.trim() === 'none') return 'none';
  try {
    parseMqttFlag(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value.trim();
}

function peerAddressArg(value: string): string {
  try {
    return parsePeerAddress(value);
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
  const cmd = command
    .requiredOption(
      '--target <url|sim|docker:IMAGE>',
      'base URL of the server to check, "sim" for the embedded simulator, or docker:IMAGE[:TAG][?port=58080&user=U&password=P] to start an image with testcontainers',
      targetArg,
    )
    .option('--username <name>', 'administrator name: log in and send a Bearer token with every request')
    .option('--password <password>', 'administrator password (with --username)')
    .option(
      '--jwt-secret <secret>',
      "the server's token signing secret (config admin.jwt_secret): the expired-but-correctly-signed token check runs too (URL and docker targets; the simulator's secret is known); never written to a report",
    )
    .addOption(
      new Option(
        '--peer-address <ip>',
        "local address the auth checks send from as a peer the spec does not exempt from tokens (default: 127.0.0.2, or this host's own address when the server listens on it)",
      ).argParser(peerAddressArg),
    )
    .addOption(
      new Option(
        '--mqtt <host:port|none>',
        'the target\'s MQTT TCP listener, instead of finding it in config get (mqtt_server.tcp_port, mqtt_runtime.server.tcp_port) and the node records (extend.mqtt.mqtt_addr); "none": it has none, probe nothing',
      ).argParser(mqttArg),
    )
    .option(
      '--report-dir <dir>',
      'write report.json, index.html and junit.xml exactly here (default: reports/<run-id>/, copied to reports/latest/)',
    )
    .addOption(
      new Option('--seed <n>', "seed: names of the run's fixtures, and the simulator's seed with --target sim")
        .argParser(integer('--seed', 0))
        .default(1),
    )
    .addOption(new Option('--timeout <ms>', 'per-request timeout in ms').argParser(integer('--timeout', 1, 600_000)).default(10_000))
    .addOption(
      new Option(
        '--rate <n>',
        "send at most n requests per second in all (default: no overall limit; each path stays within the target's max_admin_http_uri_rate, 50/s or as config get announces it, and a 429 holds its path for Retry-After)",
      ).argParser(positiveNumber('--rate')),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `families of endpoints checked at once, each within the target's per-path rate limit (default ${DEFAULT_CONCURRENCY} for a URL or docker target, 1 for sim; 1: one after another), and twice as many properties of the property suites (4 with 1). The report is the same whatever n`,
      ).argParser(integer('--concurrency', 1, 64)),
    )
    .addOption(new Option('--nodes <n>', 'cluster size with --target sim').argParser(integer('--nodes', 1, 9)).default(3))
    .option('--json', 'print the report as JSON on stdout instead of the summary')
    .addOption(
      new Option(
        '--only <patterns>',
        'check only endpoints matching a path glob (/api/cluster/tenant/*), endpoint id glob (cluster.*), tag (tenants) or "METHOD /path"; comma-separated, repeatable',
      ).argParser(collect),
    )
    .addOption(new Option('--skip <patterns>', 'leave out endpoints matching these patterns (same forms as --only)').argParser(collect))
    .addOption(
      new Option(
        '--shard <i/n>',
        'check shard i of n: the selected endpoints and, separately, the properties are dealt round robin (fixtures are set up in every shard); combine with `mqsim report merge`',
      ).argParser(shardArg),
    )
    .addOption(
      new Option(
        '--shard-count <n>',
        `split the run into n shards and check the one ${JOB_INDEX_VARIABLE} names (0 … n-1, as a Kubernetes Indexed Job sets it): shard ${JOB_INDEX_VARIABLE}+1 of n`,
      ).argParser(shardCountArg),
    )
    .option(
      '--baseline <report.json>',
      'an earlier report (file or its directory): exit 1 only for NEW findings (at the --fail-on level); lists new and fixed findings',
    )
    .addOption(
      new Option(
        '--fail-on <level>',
        'the finding level that fails the run: must (MUST findings), should (MUST and SHOULD), info (any finding)',
      )
        .choices(['must', 'should', 'info'])
        .default('must'),
    )
    .option('--quiet', 'no progress; print only the final verdict line')
    .option('--no-properties', 'leave out the property-based suites (fast-check model runs and generated requests)')
    .addOption(
      new Option('--property-runs <n>', 'runs per property (fast-check numRuns)').argParser(integer('--property-runs', 1, 100_000)),
    )
    .option('--property-path <path>', 'replay exactly one failing property case (printed with its failure); the other checks are left out')
    .addOption(
      new Option(
        '--depth <n>',
        `steps per list history (property history.lists: writes and filtered, sorted, paged list reads of every family, each answer judged against the acknowledged writes; default ${DEFAULT_HISTORY_DEPTH}, ${DEFAULT_HISTORY_RUNS} histories); longer histories find faults that need more state`,
      ).argParser(integer('--depth', 1, 1_000_000)),
    )
    .addHelpText(
      'after',
      `
Failed checks are grouped into findings by cause (one broken rule of the spec, or one endpoint
answering server errors); every check cites the spec assertion it tests, and the report prints spec
coverage. Exit status: 0 when the run reached the API and no finding at the --fail-on level (default
must: MUST findings only) exists; 1 otherwise or when the run was vacuous (e.g. every request answered
401); 2 on a usage error, or when the run cannot start: nothing answers at --target, it is not this
API (e.g. a plain file server), or the login with --username/--password is refused. Then one sentence
on stderr says what to fix, and no report is written. Also 2 when the target stops answering in the
middle of the run (several requests in a row get no answer and neither /health/ready nor / answers):
the run ends there and its report has one finding, target-stopped, saying when and at which request.
With --baseline, 1 only for findings the baseline did not have (or that now show on more endpoints).

Secrets: --password and --jwt-secret never appear in a report; its replay command reads them from
$MQSIM_PASSWORD and $MQSIM_JWT_SECRET. Secrets the target shows in its answers (passwords, signing
secrets, tokens) are redacted in every artifact.

Auth checks send from a peer the spec does not exempt (127.0.0.2 on a loopback target). When the
target exempts that peer too (one MUST finding: the spec exempts only 127.0.0.1 and ::1), or it
cannot be bound, they are skipped with the reason: give --peer-address with another address of this host.

List histories (check property.history.lists): fast-check generates histories of writes and list
reads over every family with a list (tenants, users, ACL, blacklist, rewrite and auto-subscribe rules,
schemas and their bindings, connectors, topics), in tenants of the run, and judges every list answer
by the spec against the writes the target acknowledged: the filters, the sort in both directions, the
page asked for, total_count. A failure is shrunk to the shortest history that shows it, printed as curl
lines with its --property-path; --depth N runs longer histories (N steps each).

Progress goes to stderr: one line per endpoint ("endpoint n of N … failures so far"), or one
updating line on a terminal; --quiet prints only the verdict.

Patterns (--only, --skip): "*" stays within a path segment, "**" crosses segments; a pattern that
matches no endpoint is a usage error. Shards of one selection partition its checks: the endpoints
are dealt round robin, and so are the properties (a shard may call any endpoint a property needs);
run every i of 1..n (against separate servers, or with different --seed values against one server,
so fixtures do not collide), then merge the report directories: the merge has the checks of the
unsharded run. Under a scheduler that numbers its processes, --shard-count n takes the shard from
JOB_COMPLETION_INDEX (0-based: a Kubernetes Indexed Job with completions n sets it in each pod; set it
from a CI matrix too): shard JOB_COMPLETION_INDEX+1 of n. Examples: examples/k8s/, examples/github-actions/.

Examples:
  $ mqsim conform --target sim
  $ mqsim conform --target http://127.0.0.1:58080 --seed 7
  $ mqsim conform --target http://broker:58080 --username admin --password secret --report-dir out/conform
  $ mqsim conform --target http://127.0.0.1:58080 --username admin --password "$MQSIM_PASSWORD" --jwt-secret "$MQSIM_JWT_SECRET"
  $ mqsim conform --target http://127.0.0.1:58080 --peer-address 192.168.1.10 --mqtt 127.0.0.1:1883
  $ mqsim conform --target sim --json > report.json
  $ mqsim conform --target sim --only '/api/cluster/tenant/*,users' --skip 'POST /api/cluster/user/delete'
  $ mqsim conform --target http://broker:58080 --baseline baseline/report.json --report-dir conform-report
  $ mqsim conform --target sim --shard 1/2 --report-dir shard-1 --quiet
  $ mqsim conform --target sim --shard 2/2 --report-dir shard-2 --quiet
  $ mqsim report merge shard-1 shard-2 --out conform-report
  $ JOB_COMPLETION_INDEX=0 mqsim conform --target sim --shard-count 2 --report-dir shard-1 --quiet   # an Indexed Job's pod 0
  $ mqsim conform --target sim --seed 42 --property-path 'model.users~0:1:0:0~G:B'   # replay one property failure
  $ mqsim conform --target http://127.0.0.1:58080 --only tenants,users --depth 1000   # longer list histories
  $ mqsim conform --target sim --seed 3 --depth 1000 --property-path 'history.lists~0:4:3~412.3.3'   # replay a history failure at its depth
  $ mqsim conform --target docker:robustmq/robustmq:latest?port=58080   # needs a Docker engine`,
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
