import { InvalidArgumentError, Option, type Command } from 'commander';
import { deviationById } from '../../sim/switches/catalogue.ts';
import type { EnvelopeForm } from '../../sim/admin-api/envelope.ts';
import type { WorkloadName } from '../../sim/model/nodes/cluster-options.ts';
import { parseChoice, parseIntOption, UsageError } from './usage-error.ts';
import type { ServeStateOptions } from '../../sim/io/state/state-file.ts';
import { DIALECT_NAMES, type DialectName } from '../../sim/switches/dialects.ts';

/** The options of `mqsim serve` as commander gives them (attribute names). */
export interface ServeOptions {
  port: number;
  host: string;
  nodes: number;
  seed: string;
  workload: WorkloadName;
  adminUser: string;
  adminPassword?: string;
  adminPasswordFile?: string;
  jwtSecret?: string;
  jwtSecretFile?: string;
  insecureDefaults?: boolean;
  tokenTtlHours: number;
  envelope?: EnvelopeForm;
  epoch?: string;
  deviation: string[];
  control?: boolean;
  nats?: string;
  clients?: number;
  liveConnectors?: boolean;
  state?: string;
  dialect: DialectName;
  ui?: string;
  mqttPort?: number;
  /** Virtual ms between two checkpoints (`--checkpoint-every`). */
  checkpointEvery: number;
  /** False with `--no-checkpoint`. */
  checkpoint: boolean;
  mqttLogin: 'secret-free' | 'required';
}

/** CLI options recorded in a state file, by commander attribute name, with how to read them back. */
export const RECORDED: { key: keyof ServeOptions; flag: string; recorded: (o: ServeStateOptions) => unknown }[] = [
  { key: 'seed', flag: '--seed', recorded: (o) => o.seed },
  { key: 'nodes', flag: '--nodes', recorded: (o) => o.nodes },
  { key: 'workload', flag: '--workload', recorded: (o) => o.workload },
  { key: 'envelope', flag: '--envelope', recorded: (o) => o.envelope },
  { key: 'dialect', flag: '--dialect', recorded: (o) => o.dialect ?? 'spec' },
  { key: 'clients', flag: '--clients', recorded: (o) => o.clients },
  { key: 'deviation', flag: '--deviation', recorded: (o) => o.deviations },
  { key: 'adminUser', flag: '--admin-user', recorded: (o) => o.admin.username },
  { key: 'tokenTtlHours', flag: '--token-ttl-hours', recorded: (o) => o.admin.tokenTtlHours },
];

/** `--deviation a,b --deviation c`: every id known, collected in order without repeats. */
function collectDeviations(value: string, previous: string[]): string[] {
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (ids.length === 0) throw new InvalidArgumentError('--deviation needs an id (see the list in --help).');
  const unknown = ids.filter((id) => !deviationById(id));
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown deviation ${unknown.map((u) => JSON.stringify(u)).join(', ')}; the known ids are listed in mqsim serve --help.`,
    );
  return [...new Set([...previous, ...ids])];
}

/** `--checkpoint-every 90m`: a duration in s, m, h or d, as virtual milliseconds. */
function parseDuration(flag: string): (value: string) => number {
  const unit: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return (value) => {
    const m = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(value.trim());
    const ms = m ? Math.round(Number(m[1]) * unit[m[2]]) : NaN;
    if (!(ms >= 60_000))
      throw new InvalidArgumentError(`${flag} takes a duration of at least a minute such as 30m, 1h or 2d, got ${JSON.stringify(value)}`);
    return ms;
  };
}

/** `--epoch`: an ISO time or Unix milliseconds; default: the wall clock at start, whole seconds. */
export function parseEpoch(value: string | undefined): number {
  if (value === undefined) return Math.floor(Date.now() / 1000) * 1000;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new UsageError(`--epoch must be an ISO time (2026-01-01T00:00:00Z) or Unix milliseconds, got ${JSON.stringify(value)}`);
  return t;
}

/** One option of `mqsim serve`: flags, help, and the parser and default commander is given. */
interface OptionRow {
  flags: string;
  description: string;
  parse?: (value: string, previous: never) => unknown;
  default?: unknown;
  /** How --help shows the default, when not as the value itself. */
  defaultLabel?: string;
}

const row = (
  flags: string,
  description: string,
  parse?: ((value: string, previous: never) => unknown) | string,
  dflt?: unknown,
  defaultLabel?: string,
): OptionRow =>
  typeof parse === 'string'
    ? { flags, description, default: parse }
    : {
        flags,
        description,
        ...(parse ? { parse } : {}),
        ...(dflt !== undefined ? { default: dflt } : {}),
        ...(defaultLabel ? { defaultLabel } : {}),
      };

/** The options of `mqsim serve`, in the order --help lists them. */
const SERVE_OPTIONS: readonly OptionRow[] = [
  row(
    '--port <port>',
    'HTTP port of node 1; node N listens on port + N - 1 (0: ephemeral ports)',
    parseIntOption('--port', 0, 65535),
    58080,
  ),
  row('--host <host>', 'address to listen on and register', '127.0.0.1'),
  row('--nodes <n>', 'number of nodes (1-9)', parseIntOption('--nodes', 1, 9), 3),
  row('--seed <seed>', 'seed of every random choice; one seed gives one run', '1'),
  row(
    '--workload <name>',
    'demo: a seeded living population of clients, sessions, subscriptions, connectors; none: empty cluster',
    parseChoice('--workload', ['demo', 'none'] as const),
    'demo',
  ),
  row('--admin-user <name>', 'administrator name for POST /api/v1/login', 'admin'),
  row(
    '--admin-password <password>',
    'administrator password (default: admin); shows in ps, so prefer MQSIM_ADMIN_PASSWORD or --admin-password-file',
  ),
  row('--admin-password-file <path>', 'read the administrator password from PATH (a trailing newline is dropped)'),
  row(
    '--jwt-secret <secret>',
    'HS256 signing secret for tokens (default: a development secret in the source); shows in ps, so prefer MQSIM_JWT_SECRET or --jwt-secret-file',
  ),
  row('--jwt-secret-file <path>', 'read the token signing secret from PATH (a trailing newline is dropped)'),
  row(
    '--insecure-defaults',
    'start beyond loopback (--host 0.0.0.0, ::, another machine address) even with the default password or signing secret, with a warning',
  ),
  row('--token-ttl-hours <hours>', 'token validity (admin.token_ttl_hours)', parseIntOption('--token-ttl-hours', 1, 8760), 8),
  row(
    '--dialect <name>',
    "spec: answer as the spec says; robustmq: as the real RobustMQ server at the reference notes' snapshot does where it differs (its switches are listed below)",
    parseChoice('--dialect', DIALECT_NAMES),
    'spec',
  ),
  row(
    '--ui <dir>',
    'serve a built dashboard (e.g. ./dist) from the same origin: every path the API does not route is a file of DIR, unknown ones answer index.html (404), as the real server serves ./dist',
  ),
  row(
    '--envelope <form>',
    "response envelope: A {code,message,data} (spec main form) or B {code,data,error} (as the real server); default: the dialect's (spec A, robustmq B)",
    parseChoice('--envelope', ['A', 'B'] as const),
  ),
  row('--epoch <time>', 'virtual time at start (ISO time or Unix ms); default: now. Pin it to replay a session exactly'),
  row(
    '--clients <n>',
    'size of the demo client population (default: the hand-made demo, about 60 clients); e.g. 10000',
    parseIntOption('--clients', 0, 1_000_000),
  ),
  row('--control', 'serve the simulator control interface under /_sim/ on every node (loopback peers only; see below)'),
  row(
    '--nats <url>',
    'answer the mq9 protocol subjects ($mq9.AI.MAILBOX.CREATE, $mq9.AI.AGENT.*) over this NATS server, e.g. nats://127.0.0.1:4222',
  ),
  row(
    '--live-connectors',
    'connectors of types webhook, mqtt, redis, postgres, mysql, rabbitmq and file deliver for real to their configured servers (not replayable); the other types stay simulated',
  ),
  row(
    '--mqtt-port <port>',
    'serve MQTT 3.1.1 and 5 over TCP: node K listens on port + K - 1 (0: ephemeral ports; default: no MQTT listener)',
    parseIntOption('--mqtt-port', 0, 65535),
  ),
  row(
    '--mqtt-login <mode>',
    'MQTT clients without a user name: secret-free (let in; config mqtt_runtime.secret_free_login true) or required (refused)',
    parseChoice('--mqtt-login', ['secret-free', 'required'] as const),
    'secret-free',
  ),
  row(
    '--state <file>',
    'keep the cluster state in FILE, a journal: every change is on disk before it is answered; a restart with the same FILE resumes the run (created when missing; a foreign, damaged or newer file is refused)',
  ),
  row(
    '--checkpoint-every <duration>',
    'with --state: build a checkpoint of the model in the background each time the run has gone this far in virtual time past the last one (e.g. 30m, 1h, 6h), so a restart replays only what came after it',
    parseDuration('--checkpoint-every'),
    3_600_000,
    '1h',
  ),
  row('--no-checkpoint', 'with --state: never build nor use a checkpoint (every restart replays the whole journal)'),
  row(
    '--deviation <id...>',
    'switch on a deliberately broken behaviour (repeatable or comma-separated; ids below), to see a conformance run catch it',
    collectDeviations,
    [],
  ),
];

/** Adds the options of `mqsim serve` to `cmd` (the table above). */
export function addServeOptions(cmd: Command): Command {
  for (const o of SERVE_OPTIONS) {
    const option = new Option(o.flags, o.description);
    if (o.parse) option.argParser(o.parse as (value: string, previous: unknown) => unknown);
    if (o.default !== undefined) option.default(o.default, o.defaultLabel);
    cmd.addOption(option);
  }
  return cmd;
}
