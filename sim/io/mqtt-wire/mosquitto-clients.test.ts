import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceMissing } from '../../../fixtures/testing/required-service.ts';
import { eventually, startTestBroker, type TestBroker } from './testing/test-broker.ts';

/**
 * Debian's Mosquitto clients (mosquitto_pub / mosquitto_sub 2.0) against the MQTT listener: another
 * implementation of MQTT 3.1.1 and 5 than mqtt.js, written in C. Only 127.0.0.1 and the listener's
 * ephemeral ports are used (a real Mosquitto broker owns 1883 on this machine).
 */

const PUB = '/usr/bin/mosquitto_pub';
const SUB = '/usr/bin/mosquitto_sub';
const clientsMissing = serviceMissing(
  'Mosquitto clients',
  existsSync(PUB) && existsSync(SUB) ? undefined : `${PUB} or ${SUB} is not installed (apt-get install -y mosquitto-clients)`,
);

let broker: TestBroker;
beforeAll(async () => {
  if (clientsMissing) return;
  broker = await startTestBroker();
  expect(
    (await broker.post('/api/cluster/user/create', { tenant: 'default', username: 'mosq', password: 'm0sq', is_superuser: false })).code,
  ).toBe(0);
});
afterAll(async () => {
  await broker?.close();
});

function pub(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PUB, ['-h', '127.0.0.1', ...args], { timeout: 10_000 }, (err, _out, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

/** Starts mosquitto_sub; resolves with its output once it exits (after -C messages or -W seconds). */
function sub(args: string[]): { done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(SUB, ['-h', '127.0.0.1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return { done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err }))) };
}

const subscribed = (clientId: string) =>
  eventually(
    () => broker.api(`/api/mqtt/subscribe/list?client_id=${clientId}`),
    (r) => r.data.total_count > 0,
  );

describe.skipIf(clientsMissing)('MQTT listener with mosquitto_pub and mosquitto_sub', () => {
  it('delivers QoS 2 from an MQTT 5 publisher on node 2 to an MQTT 3.1.1 subscriber on node 1', async () => {
    const s = sub([
      '-p',
      String(broker.port(1)),
      '-V',
      'mqttv311',
      '-q',
      '2',
      '-t',
      'mosq/#',
      '-i',
      'mosq-sub',
      '-C',
      '2',
      '-W',
      '8',
      '-v',
    ]);
    await subscribed('mosq-sub');
    const record = (await broker.api('/api/mqtt/client/list?client_id=mosq-sub')).data.data[0];
    expect(record.network_connection.protocol).toBe('MQTT4');
    expect(await pub(['-p', String(broker.port(2)), '-V', 'mqttv5', '-q', '2', '-t', 'mosq/a', '-m', 'from v5'])).toMatchObject({
      code: 0,
    });
    expect(await pub(['-p', String(broker.port(3)), '-V', 'mqttv311', '-q', '1', '-t', 'mosq/b', '-m', 'from v3'])).toMatchObject({
      code: 0,
    });
    const result = await s.done;
    expect(result.code).toBe(0);
    expect(result.out.trim().split('\n')).toEqual(['mosq/a from v5', 'mosq/b from v3']);
  });

  it('keeps a retained message for a later mosquitto_sub, and forwards MQTT 5 user properties', async () => {
    expect(
      await pub([
        '-p',
        String(broker.port(1)),
        '-V',
        'mqttv5',
        '-q',
        '1',
        '-r',
        '-t',
        'mosq/retained',
        '-m',
        'still here',
        '-D',
        'publish',
        'user-property',
        'origin',
        'mosquitto',
      ]),
    ).toMatchObject({ code: 0 });
    const s = sub([
      '-p',
      String(broker.port(2)),
      '-V',
      'mqttv5',
      '-q',
      '1',
      '-t',
      'mosq/retained',
      '-C',
      '1',
      '-W',
      '5',
      '-F',
      '%t %p %r %P',
    ]);
    const result = await s.done;
    expect(result.code).toBe(0);
    // topic, payload, retain flag, user properties
    expect(result.out.trim()).toBe('mosq/retained still here 1 origin:mosquitto');
  });

  it('logs in a user, and refuses a bad password with "bad user name or password" in MQTT 3.1.1 and 5', async () => {
    expect(
      await pub(['-p', String(broker.port()), '-V', 'mqttv311', '-u', 'mosq', '-P', 'm0sq', '-t', 'mosq/login', '-m', 'ok']),
    ).toMatchObject({ code: 0 });
    const v3 = await pub(['-p', String(broker.port()), '-V', 'mqttv311', '-u', 'mosq', '-P', 'wrong', '-t', 'mosq/login', '-m', 'no']);
    expect(v3.code).not.toBe(0);
    expect(v3.stderr).toMatch(/bad user name or password/i);
    const v5 = await pub(['-p', String(broker.port()), '-V', 'mqttv5', '-u', 'mosq', '-P', 'wrong', '-t', 'mosq/login', '-m', 'no']);
    expect(v5.code).not.toBe(0);
    expect(v5.stderr).toMatch(/bad user name or password/i);
  });

  it('queues QoS 1 messages for a persistent mosquitto_sub session (-c) while it is away', async () => {
    await broker.config('MqttOfflineMessage', { enable: true });
    try {
      const first = sub([
        '-p',
        String(broker.port()),
        '-V',
        'mqttv311',
        '-q',
        '1',
        '-c',
        '-i',
        'mosq-persist',
        '-t',
        'mosq/persist',
        '-W',
        '1',
      ]);
      await first.done; // -W 1: leaves after a second, session kept (-c: no clean session)
      await eventually(
        () => broker.api('/api/mqtt/client/list?client_id=mosq-persist'),
        (r) => r.data.data[0]?.network_connection === null,
      );
      expect(
        await pub(['-p', String(broker.port(3)), '-V', 'mqttv311', '-q', '1', '-t', 'mosq/persist', '-m', 'while away']),
      ).toMatchObject({ code: 0 });
      const back = sub([
        '-p',
        String(broker.port(2)),
        '-V',
        'mqttv311',
        '-q',
        '1',
        '-c',
        '-i',
        'mosq-persist',
        '-t',
        'mosq/persist',
        '-C',
        '1',
        '-W',
        '5',
      ]);
      const result = await back.done;
      expect(result.code).toBe(0);
      expect(result.out.trim()).toBe('while away');
    } finally {
      await broker.config('MqttOfflineMessage', { enable: false });
    }
  });
});
