import { InvalidArgumentError, type Command } from 'commander';
import { startClusterServer, type ClusterServerOptions } from '../../sim/io/serve/cluster-server.ts';
import { serveSecrets } from './serve-secrets.ts';
import { DEVIATIONS, deviationById } from '../../sim/switches/catalogue.ts';
import type { EnvelopeForm } from '../../sim/io/http/envelope.ts';
import type { WorkloadName } from '../../sim/model/nodes/cluster-options.ts';
import { parseChoice, parseIntOption, UsageError } from './usage-error.ts';
import { StateKeeper } from '../../sim/io/state/state-keeper.ts';
import { loadState, type LoadedState } from '../../sim/io/state/state-load.ts';
import { StateFileError, type ServeState, type ServeStateOptions } from '../../sim/io/state/state-file.ts';
import { MQSIM_VERSION } from '../../sim/version.ts';
import { DIALECT_NAMES, DIALECTS, dialectHelp, type DialectName } from '../../sim/dialects/dialects.ts';
import { StaticUi, UiDirError } from '../../sim/io/http/static-ui.ts';

interface ServeOptions {
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
  mqttLogin: 'secret-free' | 'required';
}

/** CLI options recorded in a state file, by commander attribute name, with how to read them back. */
const RECORDED: { key: keyof ServeOptions; flag: string; recorded: (o: ServeStateOptions) => unknown }[] = [
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

/**
 * A state file resumes the run it recorded, so its options win; one given on the command line that
 * says otherwise is a mistake (exit 2), not something to apply silently. `--epoch` is checked too.
 */
function checkAgainstRecorded(cmd: Command, opts: ServeOptions, recorded: ServeState, path: string): void {
  const given = (key: string): boolean => cmd.getOptionValueSource(key) === 'cli';
  for (const { key, flag, recorded: read } of RECORDED) {
    if (!given(key)) continue;
    const mine = JSON.stringify(opts[key]);
    const theirs = JSON.stringify(read(recorded.options));
    if (mine !== theirs)
      throw new UsageError(
        `${flag} ${mine} differs from ${theirs} recorded in the state file ${path}; a state file resumes the run it recorded: drop ${flag} or use another --state file`,
      );
  }
  if (opts.epoch !== undefined && parseEpoch(opts.epoch) !== recorded.options.epochMs) {
    throw new UsageError(
      `--epoch ${opts.epoch} differs from ${new Date(recorded.options.epochMs).toISOString()} recorded in the state file ${path}; drop --epoch or use another --state file`,
    );
  }
}

/**
 * The replay of a state file. A user create an older mqsim journaled with the password in clear is
 * replaced, in the writes the keeper saves (the same objects), by its body with the stored hash.
 */
function resumeFrom(recorded: ServeState, where: string, onSealed: () => void): NonNullable<ClusterServerOptions['resume']> {
  return {
    writes: recorded.writes,
    virtualNow: recorded.virtualNow,
    where,
    onSealed: (i, body) => {
      recorded.writes[i].body = body;
      onSealed();
    },
  };
}

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

/** One line per deviation: id, whether it breaks the spec or is allowed by it, where it comes from, what it does. */
const DEVIATION_HELP = DEVIATIONS.map(
  (d) =>
    `  ${d.id.padEnd(40)} [${d.spec === 'breaks' ? 'breaks spec' : 'spec allows'}${d.notes ? `, real server ${d.notes.replace(/^notes /, '')}` : ''}] ${d.description}`,
).join('\n');

/** `--epoch`: an ISO time or Unix milliseconds; default: the wall clock at start, whole seconds. */
function parseEpoch(value: string | undefined): number {
  if (value === undefined) return Math.floor(Date.now() / 1000) * 1000;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new UsageError(`--epoch must be an ISO time (2026-01-01T00:00:00Z) or Unix milliseconds, got ${JSON.stringify(value)}`);
  return t;
}

/** Adds `mqsim serve`'s options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureServeCommand(cmd: Command): void {
  cmd
    .option(
      '--port <port>',
      'HTTP port of node 1; node N listens on port + N - 1 (0: ephemeral ports)',
      parseIntOption('--port', 0, 65535),
      58080,
    )
    .option('--host <host>', 'address to listen on and register', '127.0.0.1')
    .option('--nodes <n>', 'number of nodes (1-9)', parseIntOption('--nodes', 1, 9), 3)
    .option('--seed <seed>', 'seed of every random choice; one seed gives one run', '1')
    .option(
      '--workload <name>',
      'demo: a seeded living population of clients, sessions, subscriptions, connectors; none: empty cluster',
      parseChoice('--workload', ['demo', 'none'] as const),
      'demo',
    )
    .option('--admin-user <name>', 'administrator name for POST /api/v1/login', 'admin')
    .option(
      '--admin-password <password>',
      'administrator password (default: admin); shows in ps, so prefer MQSIM_ADMIN_PASSWORD or --admin-password-file',
    )
    .option('--admin-password-file <path>', 'read the administrator password from PATH (a trailing newline is dropped)')
    .option(
      '--jwt-secret <secret>',
      'HS256 signing secret for tokens (default: a development secret in the source); shows in ps, so prefer MQSIM_JWT_SECRET or --jwt-secret-file',
    )
    .option('--jwt-secret-file <path>', 'read the token signing secret from PATH (a trailing newline is dropped)')
    .option(
      '--insecure-defaults',
      'start beyond loopback (--host 0.0.0.0, ::, another machine address) even with the default password or signing secret, with a warning',
    )
    .option('--token-ttl-hours <hours>', 'token validity (admin.token_ttl_hours)', parseIntOption('--token-ttl-hours', 1, 8760), 8)
    .option(
      '--dialect <name>',
      "spec: answer as the spec says; robustmq: as the real RobustMQ server at the reference notes' snapshot does where it differs (its switches are listed below)",
      parseChoice('--dialect', DIALECT_NAMES),
      'spec',
    )
    .option(
      '--ui <dir>',
      'serve a built dashboard (e.g. ./dist) from the same origin: every path the API does not route is a file of DIR, unknown ones answer index.html (404), as the real server serves ./dist',
    )
    .option(
      '--envelope <form>',
      "response envelope: A {code,message,data} (spec main form) or B {code,data,error} (as the real server); default: the dialect's (spec A, robustmq B)",
      parseChoice('--envelope', ['A', 'B'] as const),
    )
    .option('--epoch <time>', 'virtual time at start (ISO time or Unix ms); default: now. Pin it to replay a session exactly')
    .option(
      '--clients <n>',
      'size of the demo client population (default: the hand-made demo, about 60 clients); e.g. 10000',
      parseIntOption('--clients', 0, 1_000_000),
    )
    .option('--control', 'serve the simulator control interface under /_sim/ on every node (loopback peers only; see below)')
    .option(
      '--nats <url>',
      'answer the mq9 protocol subjects ($mq9.AI.MAILBOX.CREATE, $mq9.AI.AGENT.*) over this NATS server, e.g. nats://127.0.0.1:4222',
    )
    .option(
      '--live-connectors',
      'connectors of types webhook, mqtt, redis, postgres, mysql, rabbitmq and file deliver for real to their configured servers (not replayable); the other types stay simulated',
    )
    .option(
      '--mqtt-port <port>',
      'serve MQTT 3.1.1 and 5 over TCP: node K listens on port + K - 1 (0: ephemeral ports; default: no MQTT listener)',
      parseIntOption('--mqtt-port', 0, 65535),
    )
    .option(
      '--mqtt-login <mode>',
      'MQTT clients without a user name: secret-free (let in; config mqtt_runtime.secret_free_login true) or required (refused)',
      parseChoice('--mqtt-login', ['secret-free', 'required'] as const),
      'secret-free',
    )
    .option(
      '--state <file>',
      'keep the cluster state in FILE, a journal: every change is on disk before it is answered; a restart with the same FILE resumes the run (created when missing; a foreign, damaged or newer file is refused)',
    )
    .option(
      '--deviation <id...>',
      'switch on a deliberately broken behaviour (repeatable or comma-separated; ids below), to see a conformance run catch it',
      collectDeviations,
      [],
    )
    .addHelpText(
      'after',
      `
Examples:
  $ mqsim serve                                   # 3 nodes on 58080-58082, demo workload
  $ mqsim serve --nodes 5 --seed 42 --port 9000   # 5 nodes on 9000-9004
  $ mqsim serve --workload none --envelope B      # empty cluster, envelope form B
  $ mqsim serve --dialect robustmq --ui ./dist    # the RobustMQ dashboard's build against a simulated real server
  $ mqsim serve --dialect robustmq --deviation connector-status-stop   # a dialect plus more switches
  $ curl -s http://127.0.0.1:58080/api/cluster/tenant/list
  $ mqsim serve --state cluster.state             # stop with Ctrl-C; the same command resumes it
  $ mqsim serve --mqtt-port 1884 --workload none  # MQTT listeners on 1884-1886 (node K: 1884 + K - 1)
  $ mosquitto_sub -h 127.0.0.1 -p 1884 -t 'sensors/#' -V mqttv5 &   # a real client, listed by the API
  $ mosquitto_pub -h 127.0.0.1 -p 1885 -t sensors/t1 -m 21.5 -q 1    # lands on node 2

MQTT listener (--mqtt-port N): MQTT 3.1, 3.1.1 and 5 over TCP (QoS 0/1/2, retained messages, wills,
persistent sessions, shared subscriptions, topic aliases); clients appear in the client, session and
subscription lists. Users: a client naming a user must give its password (tenant from the user property
"tenant" or a user name "tenant@user"); without a user name it is let in unless --mqtt-login required.
ACL, blacklist, flapping bans, rewrite and auto-subscribe rules, quotas apply. With --state, every MQTT
action is journaled; connections open at a restart are treated as lost (wills go out, expiry runs).

Durable state (--state FILE): the file is a write-ahead journal of the run's options (seed, nodes,
workload, epoch, envelope, clients, deviations, admin settings) and every request that changed the
model, with its virtual time; a restart rebuilds the cluster from the seed and applies them again
(checking each answers as it did), then virtual time continues where it stopped. Options given with
an existing file must match it. A write is answered only once its record is on disk (fsync; writes
arriving together share one), so an acknowledged write survives kill -9 and power loss. A last record
cut short by a crash (never acknowledged) is dropped at restart; damage before it is refused. Not with
--nats or --live-connectors (effects from outside the simulator cannot be replayed).

Prints the base URL (node 1) on stdout once every listener is ready; runs until SIGINT or SIGTERM, then exits 0.
Requests from 127.0.0.1 or ::1 need no token; others log in first:
  $ curl -s -XPOST http://HOST:58080/api/v1/login -H 'content-type: application/json' -d '{"username":"admin","password":"admin"}'

Secrets (admin password, token signing secret), each from the first of: --admin-password / --jwt-secret
(visible in ps: local use only), --admin-password-file / --jwt-secret-file PATH (trailing newline dropped;
not both a flag and its file), MQSIM_ADMIN_PASSWORD / MQSIM_JWT_SECRET, else the built-in default
(password admin; a development signing secret written in mqsim's source). A --host other than localhost,
127.x.y.z or ::1 (0.0.0.0 and :: included) refuses to start (exit 2) while either is the built-in one,
unless --insecure-defaults, which starts with a warning on every start:
  $ MQSIM_ADMIN_PASSWORD="$(cat admin.pw)" mqsim serve --host 0.0.0.0 --jwt-secret-file /run/secrets/mqsim-jwt
With --state, the file keeps a salted scrypt hash of the admin password (never the password, never the
signing secret, never an MQTT user's password): a restart without a password uses the recorded one; a
restart given another one replaces it. The signing secret is not kept: give it again at each start (tokens
issued before a restart stay valid only under the same secret).

Control interface (--control; off by default; kept apart from the spec's API; JSON in and out, same envelope):
  GET  /_sim/clock                       POST /_sim/clock/advance {ms}   (virtual time then runs ahead of wall time)
  POST /_sim/nodes/{crash|restart|stop|start} {node_id, wiped?}
  POST /_sim/network/partition {side_a:[ids], side_b:[ids], one_way?}   /_sim/network/heal {reset_faults?}
  POST /_sim/network/configure {loss?, duplicate?, jitter_ms?, from?, to?}
  POST /_sim/clients/{connect|disconnect|publish|subscribe} {tenant?, client_id, ...}
  POST /_sim/clients/flapping-storm {client_id, attempts, tenant?}   (connect+disconnect attempts times at once)
  POST /_sim/mq9/mailbox/create {name?, ttl?, desc?}   /_sim/mq9/agent/register {name, agent_info}
  POST /_sim/mq9/agent/unregister {name}   /_sim/mq9/running {running}
  POST /_sim/connectors/target-down {target, down}
  GET  /_sim/trace?tail=N                GET /_sim/invariants
  $ curl -s -XPOST http://127.0.0.1:58080/_sim/clock/advance -H 'content-type: application/json' -d '{"ms":60000}'

Live connectors (--live-connectors; off by default; a run with it is not replayable):
  webhook (undici), mqtt (mqtt), redis (ioredis, mode single), postgres (pg), mysql (mysql2),
  rabbitmq (amqplib) and file connectors really deliver; failures drive their failure strategy.
  Redis command_template placeholders: \${topic} \${payload} \${key} \${timestamp} (ms), e.g. RPUSH mqsim:\${topic} \${payload}.
  SQL default columns: mysql (record_key, payload, timestamp); postgres (client_id, topic, timestamp, payload, data).

Dialect robustmq (--dialect robustmq): envelope B and these switches, one per behaviour of the real
server (reference notes §11 and the sections they point to); --deviation adds more:
${dialectHelp('robustmq')}
Left out of the dialect, and why:
${DIALECTS.robustmq.omitted.map((o) => `  - ${o.behaviour} (${o.notes}): ${o.why}`).join('\n')}

Dashboard (--ui DIR): GET/HEAD of any path the server does not route (/api, /health, /metrics, /mcp,
/_sim ...) is a file of DIR; / and dir/ read index.html; a missing file answers index.html with 404
(single-page applications route on the client); other methods 405. A config.js defining
window.__APP_CONFIG__ is served with api.port set to the node's port, so the dashboard calls it.
  $ npx mqsim serve --dialect robustmq --ui ../robustmq-copilot/packages/web-ui/dist   # open http://127.0.0.1:58080/

Deviations (--deviation ID; never for normal use): deliberately broken behaviours ("breaks spec") and
the real server's behaviours from the reference notes, marked "breaks spec" or "spec allows":
  $ mqsim serve --deviation topic-list-limit-ignored,login-failure-wrong-text
${DEVIATION_HELP}`,
    )
    .action(async (opts: ServeOptions, cmd: Command) => {
      if (opts.dialect === 'robustmq' && opts.envelope === 'A') {
        throw new UsageError(
          '--envelope A contradicts --dialect robustmq: the real server answers in form B (its switch failure-code-100 rewrites every answer); drop --envelope',
        );
      }
      if (cmd.getOptionValueSource('mqttLogin') === 'cli' && opts.mqttPort === undefined) {
        throw new UsageError(
          '--mqtt-login applies to the MQTT listener: give --mqtt-port too (e.g. --mqtt-port 1884, or 0 for ephemeral ports)',
        );
      }
      if (opts.state && (opts.nats || opts.liveConnectors)) {
        throw new UsageError(
          `--state cannot be combined with ${opts.nats ? '--nats' : '--live-connectors'}: what arrives from outside the simulator cannot be replayed on restart`,
        );
      }
      let loaded: LoadedState | undefined;
      try {
        loaded = opts.state ? loadState(opts.state) : undefined;
      } catch (e) {
        if (e instanceof StateFileError) throw new UsageError(e.message);
        throw e;
      }
      const recorded: ServeState | undefined = loaded?.state;
      if (recorded && opts.state) {
        checkAgainstRecorded(cmd, opts, recorded, opts.state);
        const o = recorded.options;
        Object.assign(opts, {
          seed: o.seed,
          nodes: o.nodes,
          workload: o.workload,
          envelope: o.envelope,
          dialect: o.dialect ?? 'spec',
          clients: o.clients,
          deviation: o.deviations,
          adminUser: o.admin.username,
          tokenTtlHours: o.admin.tokenTtlHours,
        });
      }
      const secrets = await serveSecrets(opts, recorded?.options.admin);
      // After a state file gave its options: the node count may come from it.
      if (opts.mqttPort !== undefined && opts.mqttPort > 0 && opts.mqttPort + opts.nodes - 1 > 65_535) {
        throw new UsageError(
          `--mqtt-port ${opts.mqttPort} leaves no port for node ${opts.nodes} (node K listens on port + K - 1, at most 65535); pick a lower one, or 0 for ephemeral ports`,
        );
      }
      const epochMs = recorded ? recorded.options.epochMs : parseEpoch(opts.epoch);
      const envelope = opts.envelope ?? DIALECTS[opts.dialect].envelope;
      let ui: string | undefined;
      if (opts.ui !== undefined) {
        try {
          ui = new StaticUi(opts.ui).root;
        } catch (e) {
          if (e instanceof UiDirError) throw new UsageError(e.message);
          throw e;
        }
      }
      const stateOptions: ServeStateOptions = {
        seed: opts.seed,
        nodes: opts.nodes,
        workload: opts.workload,
        epochMs,
        envelope,
        ...(opts.dialect !== 'spec' ? { dialect: opts.dialect } : {}),
        ...(opts.clients !== undefined ? { clients: opts.clients } : {}),
        deviations: opts.deviation,
        admin: { username: opts.adminUser, passwordHash: secrets.passwordHash, tokenTtlHours: opts.tokenTtlHours },
      };
      let rewrite = secrets.rewrite;
      let keeper: StateKeeper | undefined;
      let running: Awaited<ReturnType<typeof startClusterServer>> | undefined;
      if (opts.state) {
        keeper = new StateKeeper({
          path: opts.state,
          mqsimVersion: MQSIM_VERSION,
          options: stateOptions,
          ...(loaded ? { loaded } : {}),
          virtualNow: () => {
            running?.app.syncClock();
            return running?.cluster.now() ?? recorded?.virtualNow ?? epochMs;
          },
          // Durability can no longer be promised: stop at once, as a database would, rather than go on answering.
          onFatal: (e) => {
            process.stderr.write(`mqsim serve: ${e.message}; stopping (writes not yet answered were not acknowledged)\n`);
            process.exit(1);
          },
          onNotice: (line) => process.stderr.write(`mqsim serve: ${line}\n`),
        });
      }
      // The demo simulates an hour of history before listening: at 100,000 clients that takes ~40 s,
      // so say what is happening instead of sitting silent.
      if (opts.workload === 'demo' && (opts.clients ?? 0) >= 5_000) {
        process.stderr.write(
          `mqsim serve: simulating one virtual hour of the demo with ${opts.clients} clients before the listeners open (about ${Math.max(1, Math.round((opts.clients ?? 0) / 2_500))} s)...\n`,
        );
      }
      const replayStarted = performance.now();
      try {
        running = await startClusterServer({
          ...(opts.mqttPort !== undefined ? { mqttPort: opts.mqttPort, secretFreeLogin: opts.mqttLogin === 'secret-free' } : {}),
          seed: opts.seed,
          nodes: opts.nodes,
          host: opts.host,
          port: opts.port,
          workload: opts.workload,
          epochMs,
          envelope,
          dialect: opts.dialect,
          ...(ui ? { ui } : {}),
          ...(opts.deviation.length > 0 ? { deviations: opts.deviation } : {}),
          ...(opts.control ? { control: true } : {}),
          ...(opts.nats ? { nats: opts.nats } : {}),
          ...(opts.clients !== undefined ? { clients: opts.clients } : {}),
          ...(opts.liveConnectors ? { liveConnectors: true } : {}),
          ...(recorded && opts.state ? { resume: resumeFrom(recorded, opts.state, () => (rewrite = true)) } : {}),
          ...(keeper ? { onModelWrite: (w) => keeper.append(w), durableOutput: keeper } : {}),
          admin: {
            ...stateOptions.admin,
            jwtSecret: secrets.jwtSecret,
            ...(secrets.password !== undefined ? { password: secrets.password } : {}),
          },
          onInternalError: (e) => process.stderr.write(`mqsim: internal error (a bug, please report): ${(e as Error)?.stack ?? e}\n`),
        });
      } catch (e) {
        if (e instanceof StateFileError) throw new UsageError(e.message);
        throw e;
      }
      // A new state file is created at once, so a wrong path shows now, not at the first write; a
      // resumed one is touched only now that its replay succeeded (a torn last record cut off, format 1
      // converted; an older file's secrets in clear, or a replaced password, written out anew).
      if (keeper) {
        try {
          await keeper.open({ rewrite });
        } catch (e) {
          await running.close();
          throw new Error(`could not open the state file ${opts.state}: ${(e as Error).message}`, { cause: e });
        }
      }
      for (const line of secrets.notes) process.stderr.write(`mqsim serve: ${line}\n`);
      process.stderr.write(
        `mqsim serve: ${opts.nodes} node(s), seed ${opts.seed}, workload ${opts.workload}, dialect ${opts.dialect}${opts.dialect !== 'spec' ? ` (${DIALECTS[opts.dialect].switches.length} switches)` : ''}, envelope ${envelope}, virtual epoch ${new Date(epochMs).toISOString()}\n` +
          running.nodeUrls.map((u, i) => `  node ${i + 1}: ${u}\n`).join('') +
          (opts.control ? `  control interface: ${running.baseUrl}/_sim/ (loopback only)\n` : '') +
          (ui ? `  dashboard: ${ui} at ${running.baseUrl}/\n` : '') +
          (running.mqtt
            ? running.mqtt.ports
                .map((p, i) => `  node ${i + 1} MQTT: mqtt://${opts.host}:${p} (MQTT 3.1.1 and 5 over TCP; login ${opts.mqttLogin})\n`)
                .join('')
            : '') +
          (opts.nats ? `  mq9 over NATS: ${opts.nats}\n` : '') +
          (opts.liveConnectors
            ? '  LIVE CONNECTORS ON: webhook, mqtt, redis, postgres, mysql, rabbitmq and file connectors deliver for real\n'
            : '') +
          (opts.deviation.length > 0 ? `  DEVIATIONS ON (deliberately broken behaviours): ${opts.deviation.join(', ')}\n` : '') +
          (opts.state
            ? recorded
              ? `  state: ${opts.state}: resumed ${recorded.writes.length} write(s) up to virtual ${new Date(recorded.virtualNow).toISOString()} in ${((performance.now() - replayStarted) / 1000).toFixed(2)} s\n`
              : `  state: ${opts.state} (new)\n`
            : ''),
      );
      // The handlers go in before the URL is printed: whoever waits for the URL may signal at once,
      // and a SIGTERM landing between the two would otherwise kill the process without a save.
      const stopped = new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      process.stdout.write(`${running.baseUrl}\n`);
      await stopped;
      await running.close();
      if (keeper) {
        try {
          await keeper.close();
          process.stderr.write(
            `mqsim serve: state saved to ${opts.state} (${keeper.writeCount} write(s))\nmqsim serve: journal: ${keeper.summary}\n`,
          );
        } catch (e) {
          process.stderr.write(`mqsim serve: ${(e as Error).message}\n`);
          process.exitCode = 1;
        }
      }
      process.stderr.write(
        `mqsim serve: stopped (trace ${running.cluster.engine.trace.length} entries, hash ${running.cluster.engine.trace.hash.slice(0, 16)})\n`,
      );
    });
}
