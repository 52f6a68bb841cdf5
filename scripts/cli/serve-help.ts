import { DEVIATIONS } from '../../sim/switches/catalogue.ts';
import { DIALECTS, dialectHelp } from '../../sim/switches/dialects.ts';

/** One line per deviation: id, whether it breaks the spec or is allowed by it, where it comes from, what it does. */
const DEVIATION_HELP = DEVIATIONS.map(
  (d) =>
    `  ${d.id.padEnd(40)} [${d.spec === 'breaks' ? 'breaks spec' : 'spec allows'}${d.notes ? `, real server ${d.notes.replace(/^notes /, '')}` : ''}] ${d.description}`,
).join('\n');

/** Examples, the MQTT listener and durable state (with checkpoints). */
function examplesAndState(): string {
  return `
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
Checkpoints (with --state; --checkpoint-every, default 1h of virtual time, or 50,000 writes; --no-checkpoint): a low-priority
background process rebuilds the model up to the journal's durable end and saves it as FILE.checkpoint
(a V8 snapshot, with FILE.checkpoint.json); a restart then replays only the writes after it. A
checkpoint made by another mqsim, Node or option set, or not matching the file, is removed with one
line and the whole journal is replayed. kill -USR2 PID asks for one now.
`;
}

/** Start-up, secrets, the control interface, live connectors, the dialect, the dashboard, deviations. */
function otherSections(): string {
  return `Prints the base URL (node 1) on stdout once every listener is ready; runs until SIGINT or SIGTERM, then exits 0.
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
${DEVIATION_HELP}`;
}

/** The text after the options in `mqsim serve --help`: examples and what each part of a served cluster does. */
export function serveHelpText(): string {
  return `${examplesAndState()}\n${otherSections()}`;
}
