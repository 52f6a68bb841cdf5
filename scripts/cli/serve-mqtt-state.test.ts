import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { MQSIM_BIN as BIN, startServe, stopAll, type ServedProcess } from './testing/serve-process.ts';

/**
 * `mqsim serve --state FILE --mqtt-port 0` through the real CLI: what MQTT clients did (connect,
 * subscribe, publish, retained messages, queued messages of persistent sessions) survives kill -TERM
 * and restarts. Connections open at shutdown are lost then (their wills go out); sessions, their
 * subscriptions and queues come back.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-mqtt-state-'));
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const serve = startServe;

async function stop(s: ServedProcess): Promise<void> {
  s.child.kill('SIGTERM');
  expect(await s.exit).toBe(0);
}

const api = async (s: ServedProcess, path: string): Promise<any> => (await fetch(s.url + path)).json();
const post = async (s: ServedProcess, path: string, body: unknown): Promise<any> =>
  (await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
const client = (port: number, options: IClientOptions): Promise<MqttClient> =>
  mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, ...options });

describe('mqsim serve --state with the MQTT listener', () => {
  it('brings back MQTT sessions, subscriptions, retained and queued messages after kill -TERM, with the connections lost at shutdown', async () => {
    const state = join(dir, 'mqtt.state');
    const first = await serve(['--workload', 'none', '--state', state, '--mqtt-port', '0']);
    expect(first.mqttPort).toBeGreaterThan(0);
    expect(
      (await post(first, '/api/cluster/config/set', { config_type: 'MqttOfflineMessage', config: JSON.stringify({ enable: true }) })).code,
    ).toBe(0);
    const keeper = await client(first.mqttPort!, {
      clientId: 'keeper',
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
      will: { topic: 'state/will', payload: Buffer.from('keeper lost'), qos: 1, retain: true },
    });
    await keeper.subscribeAsync('state/#', { qos: 1 });
    const away = await client(first.mqttPort!, { clientId: 'away', protocolVersion: 4, clean: false });
    await away.subscribeAsync('queue/#', { qos: 1 });
    await away.endAsync();
    const pub = await client(first.mqttPort!, { clientId: 'pub', protocolVersion: 4 });
    const got = new Promise<string>((resolve) => keeper.once('message', (_t, p) => resolve(p.toString())));
    await pub.publishAsync('state/retained', 'kept across restarts', { qos: 1, retain: true });
    expect(await got).toBe('kept across restarts');
    await pub.publishAsync('queue/x', 'waiting for away', { qos: 1 });
    await pub.endAsync();
    await stop(first); // keeper is still connected: its connection is lost at shutdown
    keeper.end(true);
    const text = readFileSync(state, 'utf8');
    expect(text).toContain('"source":"mqtt"');
    for (const op of ['connect', 'subscribe', 'publish', 'disconnect']) expect(text).toContain(`"method":"MQTT","url":"${op}"`);

    const second = await serve(['--state', state, '--mqtt-port', '0']);
    expect(second.stderr()).toMatch(/resumed \d+ write\(s\)/);
    const sessions = (await api(second, '/api/mqtt/session/list')).data.data.map((s: any) => s.client_id).sort();
    expect(sessions).toEqual(['away', 'keeper']);
    const subs = (await api(second, '/api/mqtt/subscribe/list')).data.data.map((s: any) => [s.client_id, s.path]);
    expect(subs).toEqual([
      ['keeper', 'state/#'],
      ['away', 'queue/#'],
    ]);
    const clients = (await api(second, '/api/mqtt/client/list')).data.data;
    expect(clients.every((c: any) => c.network_connection === null)).toBe(true);
    // The retained message, and keeper's will, published when its connection was lost at shutdown.
    const late = await client(second.mqttPort!, { clientId: 'late', protocolVersion: 5 });
    const retained: string[] = [];
    late.on('message', (t, p) => retained.push(`${t}=${p}`));
    await late.subscribeAsync('state/#', { qos: 1 });
    await new Promise((r) => setTimeout(r, 200));
    expect(retained.sort()).toEqual(['state/retained=kept across restarts', 'state/will=keeper lost']);
    await late.endAsync();
    // away's queued message waited through the restart.
    const back = mqtt.connect(`mqtt://127.0.0.1:${second.mqttPort}`, {
      clientId: 'away',
      protocolVersion: 4,
      clean: false,
      reconnectPeriod: 0,
    });
    const queued = new Promise<string>((resolve) => back.once('message', (t, p) => resolve(`${t}=${p}`)));
    expect((await new Promise<any>((resolve) => back.once('connect', resolve))).sessionPresent).toBe(true);
    expect(await queued).toBe('queue/x=waiting for away');
    await back.endAsync();
    await stop(second);

    // A third start, without the listener, replays every MQTT operation again and agrees.
    const third = await serve(['--state', state]);
    expect(third.mqttPort).toBeUndefined();
    expect((await api(third, '/api/mqtt/session/list')).data.data.map((s: any) => s.client_id).sort()).toEqual(['away', 'keeper']);
    const topic = (await api(third, '/api/cluster/topic/detail?tenant=default&topic_name=state/retained')).data;
    expect(Buffer.from(topic.retain_message.payload).toString()).toBe('kept across restarts');
    await stop(third);
  }, 60_000);

  it('after a kill -9 right after a PUBACK, keeps what was acknowledged and treats the connections the journal left open as lost at the restart (wills go out)', async () => {
    const state = join(dir, 'killed.state');
    const first = await serve(['--workload', 'none', '--state', state, '--mqtt-port', '0']);
    const c = await client(first.mqttPort!, {
      clientId: 'crashed',
      protocolVersion: 4,
      clean: false,
      will: { topic: 'crash/will', payload: Buffer.from('gone with the process'), qos: 0, retain: true },
    });
    await c.subscribeAsync('crash/#', { qos: 1 });
    await c.publishAsync('crash/acked', 'acknowledged before the kill', { qos: 1, retain: true });
    // Right after the PUBACK: it was sent only once the publish's record was on disk.
    first.child.kill('SIGKILL');
    await first.exit;
    c.end(true);
    const second = await serve(['--state', state]);
    const record = (await api(second, '/api/mqtt/client/list?client_id=crashed')).data.data[0];
    expect(record.network_connection).toBeNull();
    expect(record.session).not.toBeNull(); // a persistent session outlives the lost connection
    const topic = (await api(second, '/api/cluster/topic/detail?tenant=default&topic_name=crash/will')).data;
    expect(Buffer.from(topic.retain_message.payload).toString()).toBe('gone with the process');
    const acked = (await api(second, '/api/cluster/topic/detail?tenant=default&topic_name=crash/acked')).data;
    expect(Buffer.from(acked.retain_message.payload).toString()).toBe('acknowledged before the kill');
    const subs = (await api(second, '/api/mqtt/subscribe/list')).data.data.map((x: any) => [x.client_id, x.path]);
    expect(subs).toContainEqual(['crashed', 'crash/#']);
    await stop(second);
    // The loss was journaled too: the next start agrees without dropping anything again.
    expect(readFileSync(state, 'utf8')).toContain('\\"why\\":\\"restart\\"'); // inside the write's JSON body text
    const third = await serve(['--state', state]);
    expect((await api(third, '/api/mqtt/session/list?client_id=crashed')).data.total_count).toBe(1);
    await stop(third);
  }, 30_000);

  it('refuses --mqtt-login without --mqtt-port, and an --mqtt-port that leaves the last node no port (exit 2)', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        child.stderr!.on('data', (c) => (err += c));
        child.on('exit', (code) => resolve({ code, err }));
      });
    expect(await run(['--mqtt-login', 'required'])).toMatchObject({ code: 2, err: expect.stringContaining('give --mqtt-port too') });
    expect(await run(['--mqtt-port', '65535'])).toMatchObject({ code: 2, err: expect.stringContaining('leaves no port for node 3') });
  });
});
