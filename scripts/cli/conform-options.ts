import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseDockerTarget } from '../../suites/targets/docker-target.ts';
import type { ShardSpec } from '../../suites/conform/report-model.ts';
import { DEFAULT_CONCURRENCY } from '../../suites/conform/endpoint-lanes.ts';
import { JOB_INDEX_VARIABLE, parseShardCount } from '../../suites/report/job-shard.ts';
import { parseShard } from '../../suites/report/selection.ts';
import { parsePeerAddress } from '../../suites/targets/peer-address.ts';
import { parseTargetUrl } from '../../suites/targets/url-target.ts';
import { parseMqttFlag } from '../../suites/conform/mqtt-listener-address.ts';
import { DEFAULT_HISTORY_DEPTH, DEFAULT_HISTORY_RUNS } from '../../suites/properties/list-histories/history-property.ts';

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

/** A parser whose errors become commander's usage errors (exit status 2). */
function asUsageError<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

function targetArg(value: string): string {
  if (value === 'sim') return value;
  if (value.startsWith('docker:')) {
    asUsageError(parseDockerTarget)(value);
    return value;
  }
  asUsageError(parseTargetUrl)(value);
  return value.replace(/\/+$/, '');
}

/** `--only`/`--skip`: repeatable, each value comma-separated. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function mqttArg(value: string): string {
  if (value.trim() === 'none') return 'none';
  asUsageError(parseMqttFlag)(value);
  return value.trim();
}

const peerAddressArg = asUsageError(parsePeerAddress);
const shardArg: (value: string) => ShardSpec = asUsageError(parseShard);
const shardCountArg = asUsageError(parseShardCount);

/** Which server to check and how to reach it: the target, its login and secret, the addresses the checks use. */
function targetOptions(): Option[] {
  return [
    new Option(
      '--target <url|sim|docker:IMAGE>',
      'base URL of the server to check, "sim" for the embedded simulator, or docker:IMAGE[:TAG][?port=58080&user=U&password=P] to start an image with testcontainers',
    )
      .argParser(targetArg)
      .makeOptionMandatory(),
    new Option('--username <name>', 'administrator name: log in and send a Bearer token with every request'),
    new Option('--password <password>', 'administrator password (with --username)'),
    new Option(
      '--jwt-secret <secret>',
      "the server's token signing secret (config admin.jwt_secret): the expired-but-correctly-signed token check runs too (URL and docker targets; the simulator's secret is known); never written to a report",
    ),
    new Option(
      '--peer-address <ip>',
      "local address the auth checks send from as a peer the spec does not exempt from tokens (default: 127.0.0.2, or this host's own address when the server listens on it)",
    ).argParser(peerAddressArg),
    new Option(
      '--mqtt <host:port|none>',
      'the target\'s MQTT TCP listener, instead of finding it in config get (mqtt_server.tcp_port, mqtt_runtime.server.tcp_port) and the node records (extend.mqtt.mqtt_addr); "none": it has none, probe nothing',
    ).argParser(mqttArg),
  ];
}

/** How the run goes and what it checks and reports: seed, pace, selection and shards, verdict, properties. */
function runOptions(): Option[] {
  return [
    new Option(
      '--report-dir <dir>',
      'write report.json, index.html and junit.xml exactly here (default: reports/<run-id>/, copied to reports/latest/)',
    ),
    new Option('--seed <n>', "seed: names of the run's fixtures, and the simulator's seed with --target sim")
      .argParser(integer('--seed', 0))
      .default(1),
    new Option('--timeout <ms>', 'per-request timeout in ms').argParser(integer('--timeout', 1, 600_000)).default(10_000),
    new Option(
      '--rate <n>',
      "send at most n requests per second in all (default: no overall limit; each path stays within the target's max_admin_http_uri_rate, 50/s or as config get announces it, and a 429 holds its path for Retry-After)",
    ).argParser(positiveNumber('--rate')),
    new Option(
      '--concurrency <n>',
      `families of endpoints checked at once, each within the target's per-path rate limit (default ${DEFAULT_CONCURRENCY} for a URL or docker target, 1 for sim; 1: one after another). The report is the same whatever n`,
    ).argParser(integer('--concurrency', 1, 64)),
    new Option('--nodes <n>', 'cluster size with --target sim').argParser(integer('--nodes', 1, 9)).default(3),
    new Option('--json', 'print the report as JSON on stdout instead of the summary'),
    new Option(
      '--only <patterns>',
      'check only endpoints matching a path glob (/api/cluster/tenant/*), endpoint id glob (cluster.*), tag (tenants) or "METHOD /path"; comma-separated, repeatable',
    ).argParser(collect),
    new Option('--skip <patterns>', 'leave out endpoints matching these patterns (same forms as --only)').argParser(collect),
    new Option(
      '--shard <i/n>',
      'check shard i of n: the selected endpoints and, separately, the properties are dealt round robin (fixtures are set up in every shard); combine with `mqsim report merge`',
    ).argParser(shardArg),
    new Option(
      '--shard-count <n>',
      `split the run into n shards and check the one ${JOB_INDEX_VARIABLE} names (0 … n-1, as a Kubernetes Indexed Job sets it): shard ${JOB_INDEX_VARIABLE}+1 of n`,
    ).argParser(shardCountArg),
    new Option(
      '--baseline <report.json>',
      'an earlier report (file or its directory): exit 1 only for NEW findings (at the --fail-on level); lists new and fixed findings',
    ),
    new Option(
      '--fail-on <level>',
      'the finding level that fails the run: must (MUST findings), should (MUST and SHOULD), info (any finding)',
    )
      .choices(['must', 'should', 'info'])
      .default('must'),
    new Option('--quiet', 'no progress; print only the final verdict line'),
    new Option('--no-properties', 'leave out the property-based suites (fast-check model runs and generated requests)'),
    new Option('--property-runs <n>', 'runs per property (fast-check numRuns)').argParser(integer('--property-runs', 1, 100_000)),
    new Option(
      '--property-path <path>',
      'replay exactly one failing property case (printed with its failure); the other checks are left out',
    ),
    new Option(
      '--depth <n>',
      `steps per list history (property history.lists: writes and filtered, sorted, paged list reads of every family, each answer judged against the acknowledged writes; default ${DEFAULT_HISTORY_DEPTH}, ${DEFAULT_HISTORY_RUNS} histories); longer histories find faults that need more state`,
    ).argParser(integer('--depth', 1, 1_000_000)),
  ];
}

/**
 * Adds the options of `mqsim conform` to `cmd`, in the order --help lists them. The lists above make
 * new objects on every call: a command owns its options.
 */
export function addConformOptions(cmd: Command): Command {
  for (const option of [...targetOptions(), ...runOptions()]) cmd.addOption(option);
  return cmd;
}
