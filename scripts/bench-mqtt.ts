/**
 * Benchmark of the MQTT listener of `mqsim serve --mqtt-port` (issue 12): connections per second and
 * publishes per second (QoS 0 and QoS 1, one subscriber receiving), next to a baseline measured in the
 * same run with the same load generator: the Mosquitto broker on 127.0.0.1:1883 (Debian's, 2.0). The
 * two targets take turns, round after round; figures are medians of the rounds.
 *
 *   npm run bench:mqtt -- [--rounds 3] [--connections 2000] [--concurrency 50] [--messages 20000]
 *                         [--payload 64] [--window 100] [--nodes 3] [--mosquitto-port 1883]
 *                         [--serve-port 0] [--serve-mqtt-port 0] [--cpu-prof DIR]
 *
 * mqsim runs as a user runs it (`mqsim serve --workload none --mqtt-port 0`, 3 nodes) in a child
 * process; its tenant publish and connection-rate quotas (10,000/s by default, on virtual time) are
 * lifted through the admin API first, as an operator would for a load test. Load generator and
 * brokers share this machine's cores, so quote ratios measured in one run, on a quiet machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { argNumber, argText } from './bench/script-args.ts';
import { measureConnects, measurePublishes, reachable, type ConnectFigures, type PublishFigures } from './bench/mqtt-load.ts';
import { median } from './bench/median.ts';

const rounds = argNumber('rounds', 3, { positive: true });
const connections = argNumber('connections', 2_000, { positive: true });
const concurrency = argNumber('concurrency', 50, { positive: true });
const messages = argNumber('messages', 20_000, { positive: true });
const payloadBytes = argNumber('payload', 64, { positive: true });
const window = argNumber('window', 100, { positive: true });
const nodes = argNumber('nodes', 3, { positive: true });
const mosquittoPort = argNumber('mosquitto-port', 1883, { positive: true });
/** Ports of mqsim's admin API and node 1's MQTT listener (0: ephemeral), for machines where ports are shared out. */
const servePort = argNumber('serve-port', 0);
const serveMqttPort = argNumber('serve-mqtt-port', 0);
/** A directory: mqsim runs under `node --cpu-prof` and writes its profile there at exit. */
const cpuProfDir = argText('cpu-prof', '');

const BIN = fileURLToPath(new URL('../bin/mqsim.js', import.meta.url));

interface Served {
  child: ChildProcess;
  url: string;
  mqttPort: number;
}

async function startMqsim(): Promise<Served> {
  const profiling = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  const args = ['serve', '--workload', 'none', '--port', String(servePort), '--mqtt-port', String(serveMqttPort), '--nodes', String(nodes)];
  const child = spawn(process.execPath, [...profiling, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (c) => resolve(String(c).trim()));
    child.once('exit', (code) => reject(new Error(`mqsim serve exited with ${code}: ${err}`)));
  });
  const mqttPort = Number(/node 1 MQTT: mqtt:\/\/127\.0\.0\.1:(\d+)/.exec(err)?.[1]);
  const post = async (path: string, body: unknown) => {
    const res = (await (
      await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json()) as { code: number };
    if (res.code !== 0) throw new Error(`${path}: ${JSON.stringify(res)}`);
  };
  await post('/api/cluster/tenant/update', {
    tenant_name: 'default',
    config: { max_publish_rate: 100_000_000, max_create_connection_rate_per_second: 100_000_000 },
  });
  await post('/api/cluster/config/set', {
    config_type: 'ClusterLimit',
    config: JSON.stringify({ max_network_connection_rate: 100_000_000 }),
  });
  return { child, url, mqttPort };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

interface TargetRounds {
  connects: ConnectFigures[];
  qos0: PublishFigures[];
  qos1: PublishFigures[];
}

async function round(port: number, into: TargetRounds): Promise<void> {
  into.connects.push(await measureConnects(port, connections, concurrency));
  into.qos0.push(await measurePublishes(port, 0, messages, payloadBytes, window));
  into.qos1.push(await measurePublishes(port, 1, messages, payloadBytes, window));
}

async function main(): Promise<void> {
  const mosquittoUp = await reachable(mosquittoPort);
  process.stdout.write(
    `bench-mqtt: ${rounds} round(s); ${connections} connects (${concurrency} at a time); ${messages} messages of ${payloadBytes} bytes per QoS (QoS 1: ${window} in flight); Node ${process.version}\n` +
      `  mqsim serve --workload none --nodes ${nodes} --mqtt-port ${serveMqttPort} (child process), baseline: ${mosquittoUp ? `Mosquitto at 127.0.0.1:${mosquittoPort}` : `none (nothing listens on 127.0.0.1:${mosquittoPort})`}\n\n`,
  );
  const served = await startMqsim();
  const mqsim: TargetRounds = { connects: [], qos0: [], qos1: [] };
  const mosquitto: TargetRounds = { connects: [], qos0: [], qos1: [] };
  try {
    // A warm-up of each, untimed: JIT, the first connections' set-up.
    await measureConnects(served.mqttPort, 200, concurrency);
    await measurePublishes(served.mqttPort, 1, 2_000, payloadBytes, window);
    if (mosquittoUp) await measurePublishes(mosquittoPort, 1, 2_000, payloadBytes, window);
    for (let r = 1; r <= rounds; r++) {
      await round(served.mqttPort, mqsim);
      if (mosquittoUp) await round(mosquittoPort, mosquitto);
      process.stderr.write(`  round ${r}/${rounds} done\n`);
    }
  } finally {
    // Waited for: under --cpu-prof the profile is written as the child exits.
    const exited = new Promise((resolve) => served.child.once('exit', resolve));
    served.child.kill('SIGTERM');
    await exited;
  }

  const rows: [string, (t: TargetRounds) => number, (t: TargetRounds) => string][] = [
    ['connections per second (CONNECT, CONNACK, DISCONNECT)', (t) => median(t.connects.map((c) => c.perSecond)), () => ''],
    [
      'QoS 0 messages per second, publisher → broker → subscriber',
      (t) => median(t.qos0.map((p) => p.perSecond)),
      (t) => `${fmt(median(t.qos0.map((p) => p.received)))} of ${fmt(messages)} received`,
    ],
    [
      'QoS 1 messages per second (PUBACK both ways)',
      (t) => median(t.qos1.map((p) => p.perSecond)),
      (t) => `${fmt(median(t.qos1.map((p) => p.received)))} of ${fmt(messages)} received`,
    ],
  ];
  const summary: Record<string, unknown> = {
    rounds,
    connections,
    concurrency,
    messages,
    payloadBytes,
    window,
    nodes,
    node: process.version,
    mqsim,
    ...(mosquittoUp ? { mosquitto } : {}),
  };
  process.stdout.write(`| what | mqsim serve | Mosquitto | mqsim / Mosquitto |\n|---|---|---|---|\n`);
  for (const [what, figure, note] of rows) {
    const a = figure(mqsim);
    const b = mosquittoUp ? figure(mosquitto) : NaN;
    const noteA = note(mqsim);
    const noteB = mosquittoUp ? note(mosquitto) : '';
    process.stdout.write(
      `| ${what} | ${fmt(a)}${noteA ? ` (${noteA})` : ''} | ${mosquittoUp ? `${fmt(b)}${noteB ? ` (${noteB})` : ''}` : 'n/a'} | ${mosquittoUp ? (a / b).toFixed(2) : 'n/a'} |\n`,
    );
    summary[what] = { mqsim: a, ...(mosquittoUp ? { mosquitto: b, ratio: a / b } : {}) };
  }
  mkdirSync('reports/bench', { recursive: true });
  writeFileSync('reports/bench/mqtt.json', `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write('\nwritten: reports/bench/mqtt.json\n');
}

main().catch((e) => {
  process.stderr.write(`bench-mqtt: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
