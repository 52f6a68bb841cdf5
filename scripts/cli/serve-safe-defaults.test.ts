import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import mqtt from 'mqtt';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_JWT_SECRET } from '../../sim/model/nodes/cluster-options.ts';
import { encodeState, type ServeStateOptions } from '../../sim/io/state/state-file.ts';
import { loadState } from '../../sim/io/state/state-load.ts';
import { MQSIM_BIN, startServe, stopAll, type ServedProcess } from './testing/serve-process.ts';

/**
 * `mqsim serve`'s secrets through the real CLI: the built-in ones refused beyond loopback, the
 * environment and files as sources kept out of `ps`, a state file holding no secret in clear, and an
 * older file (secrets in clear) still resumed and rewritten. Servers bind 127.0.0.1 (one test binds
 * 0.0.0.0: a start with --insecure-defaults must listen beyond loopback to say so); clients talk to
 * 127.0.0.1 only, from 127.0.0.2 to be a peer that needs a token. Ports: 63500-63599.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-safe-defaults-'));
const remote = new Agent({ localAddress: '127.0.0.2' });
afterAll(async () => {
  stopAll();
  await remote.close();
  rmSync(dir, { recursive: true, force: true });
});

const EPOCH = '2026-01-01T00:00:00Z';

/** Runs `mqsim serve ARGS` expecting it to exit before it is ready. */
function refused(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MQSIM_BIN, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: err });
    }),
  );
}

async function stop(s: ServedProcess): Promise<void> {
  s.child.kill('SIGTERM');
  const code = await s.exit;
  expect(code, `${s.child.signalCode ?? ''} ${s.stderr()}`).toBe(0);
}

/** A request from 127.0.0.2: not exempt from the token (only 127.0.0.1 and ::1 are). */
async function fromRemote(
  url: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; token?: string } = {},
): Promise<{ status: number; json: any }> {
  const res = await request(url, {
    method: init.method ?? 'GET',
    dispatcher: remote,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.statusCode, json: await res.body.json() };
}

async function login(s: ServedProcess, password: string): Promise<{ status: number; token?: string }> {
  const res = await fromRemote(`${s.url}/api/v1/login`, { method: 'POST', body: { username: 'admin', password } });
  return { status: res.status, token: res.json.data?.token };
}

const tenants = async (s: ServedProcess, token?: string): Promise<number> =>
  (await fromRemote(`${s.url}/api/cluster/tenant/list`, token ? { token } : {})).status;

/** A token for `admin` signed with the development secret in mqsim's source, valid at the pinned epoch. */
function forgedToken(): Promise<string> {
  const iat = Date.parse(EPOCH) / 1000;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('admin')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 8 * 3600)
    .sign(new TextEncoder().encode(DEVELOPMENT_JWT_SECRET));
}

const postLocal = async (s: ServedProcess, path: string, body: unknown): Promise<any> =>
  (await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

describe('mqsim serve --help', () => {
  it('says where each secret comes from, with an example, and what --insecure-defaults does', async () => {
    const child = spawn(process.execPath, [MQSIM_BIN, 'serve', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    for (const word of [
      '--admin-password-file <path>',
      '--jwt-secret-file <path>',
      '--insecure-defaults',
      'MQSIM_ADMIN_PASSWORD',
      'MQSIM_JWT_SECRET',
    ])
      expect(out).toContain(word);
    expect(out).toMatch(/\$ MQSIM_ADMIN_PASSWORD=.* mqsim serve --host 0\.0\.0\.0 --jwt-secret-file /);
    expect(out).toMatch(/refuses to start \(exit 2\) while either is the built-in one/);
  }, 30_000);
});

describe('mqsim serve beyond loopback with a built-in secret', () => {
  const ADMIN_ONLY =
    /the admin password is the built-in default "admin"; set MQSIM_ADMIN_PASSWORD or --admin-password-file PATH, or pass --insecure-defaults/;
  const JWT_ONLY =
    /the token signing secret is the development one from mqsim's source; set MQSIM_JWT_SECRET or --jwt-secret-file PATH, or pass/;
  const BOTH =
    /the admin password is the built-in default "admin" and the token signing secret .*; set MQSIM_ADMIN_PASSWORD .*, and MQSIM_JWT_SECRET/;
  const cases: [string, Record<string, string>, RegExp][] = [
    ['the default admin password', { MQSIM_JWT_SECRET: 'a-set-signing-secret-0123456789abc' }, ADMIN_ONLY],
    ['the built-in signing secret', { MQSIM_ADMIN_PASSWORD: 'A-set-password-1' }, JWT_ONLY],
    ['both', {}, BOTH],
  ];

  it('refuses to start on 0.0.0.0 and :: with exit 2 and one sentence naming the default, creating no state file', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const runs = cases.map(async ([name, env, message]) => {
        const state = join(dir, `refused-${name.replace(/\W+/g, '-')}-${host === '::' ? 'v6' : 'v4'}.state`);
        const r = await refused(['--host', host, '--port', '63500', '--nodes', '1', '--workload', 'none', '--state', state], env);
        expect(r.code, `${host} ${name}: ${r.stderr}`).toBe(2);
        expect(r.stderr, `${host} ${name}`).toMatch(
          new RegExp(`^mqsim: --host ${host.replace(/\./g, '\\.')} listens beyond loopback while ${message.source}`),
        );
        expect(r.stderr.trimEnd().split('\n'), 'one line').toHaveLength(1);
        expect(r.stderr.trimEnd().endsWith('to start anyway'), 'one sentence').toBe(true);
        expect(existsSync(state)).toBe(false);
      });
      await Promise.all(runs);
    }
  }, 180_000);

  it('--insecure-defaults starts beyond loopback with a warning, on the first start and on every resumed one', async () => {
    const state = join(dir, 'insecure.state');
    const args = ['--host', '0.0.0.0', '--port', '63510', '--nodes', '1', '--workload', 'none', '--state', state];
    const env = { MQSIM_ADMIN_PASSWORD: 'Set-admin-pw-7' };
    const warning =
      /^mqsim serve: WARNING \(--insecure-defaults\): listening on 0\.0\.0\.0, beyond loopback, while the token signing secret is the development one/m;
    const first = await startServe([...args, '--insecure-defaults'], env);
    expect(first.url).toBe('http://127.0.0.1:63510');
    expect(first.stderr()).toMatch(warning);
    await stop(first);
    const resumed = await startServe([...args, '--insecure-defaults'], env);
    expect(resumed.stderr()).toMatch(/resumed \d+ write\(s\)/);
    expect(resumed.stderr()).toMatch(warning);
    await stop(resumed);
    // Each start decides: without the flag, the resumed run is refused and its file left as it was.
    const bytes = readFileSync(state);
    const again = await refused(args, env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(JWT_ONLY);
    expect(readFileSync(state).equals(bytes)).toBe(true);
  }, 60_000);
});

describe('mqsim serve secrets from the environment and files', () => {
  const ADMIN = 'Env-Admin-pw-1';
  const JWT = 'file-jwt-secret-0123456789abcdefXYZ';
  const MQTT_PASSWORD = 'Bob-MQTT-pw-42';

  it('logs in with them, keeps them out of ps, refuses a token signed with the built-in secret, and writes none of them to the state file', async () => {
    const jwtFile = join(dir, 'jwt.secret');
    writeFileSync(jwtFile, `${JWT}\n`, { mode: 0o600 });
    const state = join(dir, 'secrets.state');
    const args = [
      '--port',
      '63520',
      '--nodes',
      '2',
      '--workload',
      'none',
      '--epoch',
      EPOCH,
      '--jwt-secret-file',
      jwtFile,
      '--state',
      state,
    ];
    const s = await startServe([...args, '--host', '127.0.0.1', '--mqtt-port', '63530'], { MQSIM_ADMIN_PASSWORD: ADMIN });
    // What ps shows: the process's argv.
    const argv = readFileSync(`/proc/${s.child.pid}/cmdline`, 'utf8');
    expect(argv).toContain('--jwt-secret-file');
    for (const secret of [ADMIN, JWT]) expect(argv).not.toContain(secret);

    const ok = await login(s, ADMIN);
    expect(ok.status).toBe(200);
    expect((await login(s, 'admin')).status).toBe(401);
    expect(await tenants(s, ok.token)).toBe(200);
    expect(await tenants(s, await forgedToken())).toBe(401);

    expect((await postLocal(s, '/api/cluster/tenant/create', { tenant_name: 'acme' })).code).toBe(0);
    expect(
      (await postLocal(s, '/api/cluster/user/create', { tenant: 'acme', username: 'bob', password: MQTT_PASSWORD, is_superuser: false }))
        .code,
    ).toBe(0);
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${s.mqttPort}`, {
      reconnectPeriod: 0,
      clientId: 'bob-1',
      username: 'acme@bob',
      password: MQTT_PASSWORD,
    });
    await client.endAsync();
    await stop(s);

    const bytes = readFileSync(state, 'utf8');
    for (const secret of [ADMIN, JWT, MQTT_PASSWORD]) expect(bytes).not.toContain(secret);
    expect(bytes).not.toContain('jwtSecret');
    expect(bytes).toContain('"passwordHash":{"scheme":"scrypt"');
    // The journaled body is a JSON string inside the file's JSON, so its quotes are escaped.
    expect(bytes).toContain('\\"password_scrypt\\":{\\"salt\\"');
    expect(bytes).toContain('"method":"MQTT","url":"connect"');

    // Resumed with no password: the recorded hash is the password; the same signing secret keeps tokens valid.
    const resumed = await startServe(['--port', '63520', '--jwt-secret-file', jwtFile, '--state', state]);
    expect((await login(resumed, ADMIN)).status).toBe(200);
    expect(await tenants(resumed, ok.token)).toBe(200);
    const bob = await mqtt
      .connectAsync(`mqtt://127.0.0.1:63530`, { reconnectPeriod: 0, username: 'acme@bob', password: MQTT_PASSWORD })
      .catch((e: Error) => e);
    expect(bob).toBeInstanceOf(Error); // no --mqtt-port on this start: nothing listens
    await stop(resumed);

    // Resumed with another password: it replaces the recorded one, and says so.
    const rotated = await startServe(['--port', '63520', '--jwt-secret-file', jwtFile, '--state', state, '--mqtt-port', '63530'], {
      MQSIM_ADMIN_PASSWORD: 'Rotated-pw-2',
    });
    expect(rotated.stderr()).toMatch(
      /the admin password from MQSIM_ADMIN_PASSWORD differs from the one recorded in .*secrets\.state; it replaces it/,
    );
    expect((await login(rotated, 'Rotated-pw-2')).status).toBe(200);
    expect((await login(rotated, ADMIN)).status).toBe(401);
    // The replayed user kept its stored hash: its password still logs in over MQTT.
    const again = await mqtt.connectAsync(`mqtt://127.0.0.1:${rotated.mqttPort}`, {
      reconnectPeriod: 0,
      username: 'acme@bob',
      password: MQTT_PASSWORD,
    });
    await again.endAsync();
    await stop(rotated);
    expect(readFileSync(state, 'utf8')).not.toContain('Rotated-pw-2');
  }, 90_000);

  it('accepts a token signed with the built-in secret when none is set (so the refusal above is the secret)', async () => {
    const s = await startServe(['--host', '127.0.0.1', '--port', '63540', '--nodes', '1', '--workload', 'none', '--epoch', EPOCH]);
    expect(await tenants(s)).toBe(401);
    expect(await tenants(s, await forgedToken())).toBe(200);
    await stop(s);
  }, 30_000);
});

describe('an older state file with secrets in clear', () => {
  it('resumes, logs in with its password, and is rewritten at once without the password, the signing secret or a user password', async () => {
    const state = join(dir, 'legacy.state');
    const args = ['--port', '63550', '--nodes', '1', '--workload', 'none', '--state', state];
    const first = await startServe(args);
    expect(
      (await postLocal(first, '/api/cluster/user/create', { tenant: 'default', username: 'carol', password: 'x', is_superuser: false }))
        .code,
    ).toBe(0);
    await stop(first);
    // What an older mqsim wrote: the admin password and signing secret in clear, the user's password too.
    const journal = loadState(state)!.state;
    journal.options.admin = {
      username: 'admin',
      password: 'Legacy-pw-9',
      jwtSecret: 'legacy-jwt-secret-0123456789abcdef',
      tokenTtlHours: 8,
    } as unknown as ServeStateOptions['admin'];
    for (const w of journal.writes) if (w.body) w.body = w.body.replace(/"password_scrypt":\{[^}]*\}/, '"password":"Carol-legacy-pw"');
    const legacy = encodeState(journal);
    expect(legacy).toContain('Carol-legacy-pw');
    expect(legacy.startsWith('MQSIM-SERVE-STATE 1 ')).toBe(true);
    writeFileSync(state, legacy);

    const resumed = await startServe(args);
    expect(resumed.stderr()).toMatch(/held the admin password in clear; it now keeps a salted hash of it/);
    expect(resumed.stderr()).toMatch(/held the token signing secret, which state files no longer keep/);
    const now = readFileSync(state, 'utf8');
    for (const secret of ['Legacy-pw-9', 'legacy-jwt-secret', 'Carol-legacy-pw']) expect(now, secret).not.toContain(secret);
    expect(now.startsWith('MQSIM-SERVE-STATE 2\n')).toBe(true);
    expect(now).toContain('\\"password_scrypt\\"');
    expect((await login(resumed, 'Legacy-pw-9')).status).toBe(200);
    await stop(resumed);
  }, 60_000);
});
