import { InvalidArgumentError, type Command } from 'commander';
import { startClusterServer } from '../../sim/http/cluster-server.ts';
import { DEVIATIONS, deviationById } from '../../sim/http/deviations/catalogue.ts';
import type { EnvelopeForm } from '../../sim/http/envelope.ts';
import type { WorkloadName } from '../../sim/cluster/cluster.ts';
import { parseChoice, parseIntOption, UsageError } from './usage-error.ts';

interface ServeOptions {
  port: number;
  host: string;
  nodes: number;
  seed: string;
  workload: WorkloadName;
  adminUser: string;
  adminPassword: string;
  jwtSecret?: string;
  tokenTtlHours: number;
  envelope: EnvelopeForm;
  epoch?: string;
  deviation: string[];
  control?: boolean;
  nats?: string;
  clients?: number;
  liveConnectors?: boolean;
}

/** `--deviation a,b --deviation c`: every id known, collected in order without repeats. */
function collectDeviations(value: string, previous: string[]): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (ids.length === 0) throw new InvalidArgumentError('--deviation needs an id (see the list in --help).');
  const unknown = ids.filter((id) => !deviationById(id));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown deviation ${unknown.map((u) => JSON.stringify(u)).join(', ')}; the known ids are listed in mqsim serve --help.`);
  return [...new Set([...previous, ...ids])];
}

const DEVIATION_HELP = DEVIATIONS.map((d) => `  ${d.id.padEnd(44)} ${d.description}`).join('\n');

/** `--epoch`: an ISO time or Unix milliseconds; default: the wall clock at start, whole seconds. */
function parseEpoch(value: string | undefined): number {
  if (value === undefined) return Math.floor(Date.now() / 1000) * 1000;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new UsageError(`--epoch must be an ISO time (2026-01-01T00:00:00Z) or Unix milliseconds, got ${JSON.stringify(value)}`);
  return t;
}

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the admin HTTP API of a simulated cluster: one listener per node, virtual time following wall time')
    .option('--port <port>', 'HTTP port of node 1; node N listens on port + N - 1 (0: ephemeral ports)', parseIntOption('--port', 0, 65535), 58080)
    .option('--host <host>', 'address to listen on and register', '127.0.0.1')
    .option('--nodes <n>', 'number of nodes (1-9)', parseIntOption('--nodes', 1, 9), 3)
    .option('--seed <seed>', 'seed of every random choice; one seed gives one run', '1')
    .option('--workload <name>', 'demo: a seeded living population of clients, sessions, subscriptions, connectors; none: empty cluster', parseChoice('--workload', ['demo', 'none'] as const), 'demo')
    .option('--admin-user <name>', 'administrator name for POST /api/v1/login', 'admin')
    .option('--admin-password <password>', 'administrator password', 'admin')
    .option('--jwt-secret <secret>', 'HS256 signing secret for tokens (default: a fixed development secret)')
    .option('--token-ttl-hours <hours>', 'token validity (admin.token_ttl_hours)', parseIntOption('--token-ttl-hours', 1, 8760), 8)
    .option('--envelope <form>', 'response envelope: A {code,message,data} (spec main form) or B {code,data,error} (as the real server)', parseChoice('--envelope', ['A', 'B'] as const), 'A')
    .option('--epoch <time>', 'virtual time at start (ISO time or Unix ms); default: now. Pin it to replay a session exactly')
    .option('--clients <n>', 'size of the demo client population (default: the hand-made demo, about 60 clients); e.g. 10000', parseIntOption('--clients', 0, 1_000_000))
    .option('--control', 'serve the simulator control interface under /_sim/ on every node (loopback peers only; see below)')
    .option('--nats <url>', 'answer the mq9 protocol subjects ($mq9.AI.MAILBOX.CREATE, $mq9.AI.AGENT.*) over this NATS server, e.g. nats://127.0.0.1:4222')
    .option('--live-connectors', 'connectors of types webhook, mqtt, redis, postgres, mysql, rabbitmq and file deliver for real to their configured servers (not replayable); the other types stay simulated')
    .option('--deviation <id...>', 'switch on a deliberately broken behaviour (repeatable or comma-separated; ids below), to see a conformance run catch it', collectDeviations, [])
    .addHelpText(
      'after',
      `
Examples:
  $ mqsim serve                                   # 3 nodes on 58080-58082, demo workload
  $ mqsim serve --nodes 5 --seed 42 --port 9000   # 5 nodes on 9000-9004
  $ mqsim serve --workload none --envelope B      # empty cluster answering like the real server
  $ curl -s http://127.0.0.1:58080/api/cluster/tenant/list

Prints the base URL (node 1) on stdout once every listener is ready; runs until SIGINT or SIGTERM, then exits 0.
Requests from 127.0.0.1 or ::1 need no token; others log in first:
  $ curl -s -XPOST http://HOST:58080/api/v1/login -H 'content-type: application/json' -d '{"username":"admin","password":"admin"}'

Control interface (--control; off by default; kept apart from the spec's API; JSON in and out, same envelope):
  GET  /_sim/clock                       POST /_sim/clock/advance {ms}   (virtual time then runs ahead of wall time)
  POST /_sim/nodes/{crash|restart|stop|start} {node_id, wiped?}
  POST /_sim/network/partition {side_a:[ids], side_b:[ids], one_way?}   /_sim/network/heal {reset_faults?}
  POST /_sim/network/configure {loss?, duplicate?, jitter_ms?, from?, to?}
  POST /_sim/clients/{connect|disconnect|publish|subscribe} {tenant?, client_id, ...}
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

Deviations (--deviation ID; never for normal use: each makes the simulator break the spec on purpose):
  $ mqsim serve --deviation topic-list-limit-ignored,login-failure-wrong-text
${DEVIATION_HELP}`,
    )
    .action(async (opts: ServeOptions) => {
      const epochMs = parseEpoch(opts.epoch);
      const running = await startClusterServer({
        seed: opts.seed,
        nodes: opts.nodes,
        host: opts.host,
        port: opts.port,
        workload: opts.workload,
        epochMs,
        envelope: opts.envelope,
        ...(opts.deviation.length > 0 ? { deviations: opts.deviation } : {}),
        ...(opts.control ? { control: true } : {}),
        ...(opts.nats ? { nats: opts.nats } : {}),
        ...(opts.clients !== undefined ? { clients: opts.clients } : {}),
        ...(opts.liveConnectors ? { liveConnectors: true } : {}),
        admin: { username: opts.adminUser, password: opts.adminPassword, tokenTtlHours: opts.tokenTtlHours, ...(opts.jwtSecret ? { jwtSecret: opts.jwtSecret } : {}) },
        onInternalError: (e) => process.stderr.write(`mqsim: internal error (a bug, please report): ${(e as Error)?.stack ?? e}\n`),
      });
      process.stderr.write(
        `mqsim serve: ${opts.nodes} node(s), seed ${opts.seed}, workload ${opts.workload}, envelope ${opts.envelope}, virtual epoch ${new Date(epochMs).toISOString()}\n` +
          running.nodeUrls.map((u, i) => `  node ${i + 1}: ${u}\n`).join('') +
          (opts.control ? `  control interface: ${running.baseUrl}/_sim/ (loopback only)\n` : '') +
          (opts.nats ? `  mq9 over NATS: ${opts.nats}\n` : '') +
          (opts.liveConnectors ? '  LIVE CONNECTORS ON: webhook, mqtt, redis, postgres, mysql, rabbitmq and file connectors deliver for real\n' : '') +
          (opts.deviation.length > 0 ? `  DEVIATIONS ON (deliberately broken behaviours): ${opts.deviation.join(', ')}\n` : ''),
      );
      process.stdout.write(`${running.baseUrl}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await running.close();
      process.stderr.write(`mqsim serve: stopped (trace ${running.cluster.engine.trace.length} entries, hash ${running.cluster.engine.trace.hash.slice(0, 16)})\n`);
    });
}
