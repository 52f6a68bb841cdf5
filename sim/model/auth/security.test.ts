import { spawn } from 'node:child_process';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../contract/index.ts';
import { buildParams } from '../../../contract/minimal-params.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

/** Issue 7, item 4: the simulator's security properties, one test each. */

const REMOTE = '10.9.8.7';
const SECRET = 'sec-test-jwt-secret-0123456789abcdef';
const PASSWORD = 'Adm1n-pass-XYZ';
const enc = new TextEncoder();

function newSim(): InProcessSim {
  return new InProcessSim({ workload: 'none', admin: { username: 'admin', password: PASSWORD, jwtSecret: SECRET, tokenTtlHours: 1 } });
}

async function login(sim: InProcessSim): Promise<{ token: string; claims: { iat: number; exp: number } }> {
  const res = await sim.post('/api/v1/login', { username: 'admin', password: PASSWORD }, { peer: REMOTE });
  expect(res.status).toBe(200);
  const token: string = res.json.data.token;
  return { token, claims: JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) };
}

async function statusWith(sim: InProcessSim, token: string): Promise<number> {
  sim.advance(25);
  return (await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } })).status;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token signed by hand: any header, HMAC with `hash` over the given key bytes. */
function handSigned(header: Record<string, unknown>, payload: Record<string, unknown>, hash: string, key: string | Buffer): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(hash, key).update(input).digest('base64url')}`;
}

describe('simulator security', () => {
  it('accepts no token after its expiry on virtual time (exp is exclusive, no clock tolerance)', async () => {
    const sim = newSim();
    const { token, claims } = await login(sim);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(await statusWith(sim, token)).toBe(200);
    sim.advance(claims.exp * 1000 - sim.cluster.now() - 50);
    expect(await statusWith(sim, token)).toBe(200); // 25 ms before exp
    sim.advance(1000);
    const res = await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/expired/);
    // Later still refused, and a fresh login works again.
    sim.advance(60_000);
    expect(await statusWith(sim, token)).toBe(401);
    expect(await statusWith(sim, (await login(sim)).token)).toBe(200);
  });

  it('allows no algorithm confusion: none, HS384/HS512 with the secret, RS256 keyed by the secret, kid/jku/jwk pointing elsewhere', async () => {
    const sim = newSim();
    const { token, claims } = await login(sim);
    const payload = { sub: 'admin', iat: claims.iat, exp: claims.exp };
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const attacker = 'attacker-key-attacker-key-attacker-key';
    const forged: Record<string, string> = {
      'alg none (jose)': new UnsecuredJWT(payload).encode(),
      'alg None, empty signature': `${b64({ alg: 'None', typ: 'JWT' })}.${b64(payload)}.`,
      'alg NONE, real signature kept': `${b64({ alg: 'NONE' })}.${b64(payload)}.${token.split('.')[2]}`,
      'alg missing': handSigned({ typ: 'JWT' }, payload, 'sha256', SECRET),
      HS384: await new SignJWT(payload).setProtectedHeader({ alg: 'HS384' }).sign(enc.encode(SECRET)),
      HS512: await new SignJWT(payload).setProtectedHeader({ alg: 'HS512' }).sign(enc.encode(SECRET)),
      'RS256 header, HMAC with the secret as the "public key"': handSigned({ alg: 'RS256', typ: 'JWT' }, payload, 'sha256', SECRET),
      'RS256 header, HMAC with an RSA public key PEM': handSigned(
        { alg: 'RS256' },
        payload,
        'sha256',
        publicKey.export({ type: 'spki', format: 'pem' }) as string,
      ),
      'RS256 signed by an attacker RSA key': await new SignJWT(payload).setProtectedHeader({ alg: 'RS256' }).sign(privateKey),
      'ES256 header, HMAC with the secret': handSigned({ alg: 'ES256' }, payload, 'sha256', SECRET),
      'HS256 with kid pointing elsewhere, attacker key': handSigned(
        { alg: 'HS256', kid: '../../../../dev/null' },
        payload,
        'sha256',
        attacker,
      ),
      'HS256 with kid of an empty key, empty HMAC key': handSigned({ alg: 'HS256', kid: '/dev/null' }, payload, 'sha256', ''),
      'HS256 with jku pointing elsewhere, attacker key': handSigned(
        { alg: 'HS256', jku: 'http://evil.example/jwks.json', kid: 'evil' },
        payload,
        'sha256',
        attacker,
      ),
      'HS256 with embedded jwk, attacker key': handSigned(
        { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from(attacker).toString('base64url') } },
        payload,
        'sha256',
        attacker,
      ),
      'RS256 with embedded jwk of the attacker': await new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', jwk: publicKey.export({ format: 'jwk' }) as never })
        .sign(privateKey),
      'right secret, sub changed to another user': await new SignJWT({ ...payload, sub: 'root' })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(enc.encode(SECRET)),
      'right secret, no exp': await new SignJWT({ sub: 'admin', iat: claims.iat })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(enc.encode(SECRET)),
    };
    expect(await statusWith(sim, token)).toBe(200);
    for (const [name, bad] of Object.entries(forged)) expect(await statusWith(sim, bad), name).toBe(401);
  });

  it('compares passwords in constant time: first- and last-character differences both fail, timingSafeEqual in the source', async () => {
    const sim = newSim();
    const first = `X${PASSWORD.slice(1)}`;
    const last = `${PASSWORD.slice(0, -1)}X`;
    for (const password of [first, last, PASSWORD.slice(0, -1), `${PASSWORD}X`, '', PASSWORD.toLowerCase()]) {
      sim.advance(25);
      const res = await sim.post('/api/v1/login', { username: 'admin', password }, { peer: REMOTE });
      expect(res.status, password).toBe(401);
      expect(res.json).toEqual({ code: 401, message: 'Invalid username or password', data: null });
    }
    // Not timed (flaky): the comparisons must be timingSafeEqual over equal-length digests.
    const adminSrc = readFileSync(fileURLToPath(new URL('./admin-auth.ts', import.meta.url)), 'utf8');
    expect(adminSrc).toMatch(/timingSafeEqual\(digest\(password\), digest\(admin\.password \?\? ''\)\)/);
    const adminHashSrc = readFileSync(fileURLToPath(new URL('./admin-password.ts', import.meta.url)), 'utf8');
    expect(adminHashSrc).toMatch(/resolve\(timingSafeEqual\(candidate, expected\)\)/);
    expect(adminSrc).toMatch(/timingSafeEqual\(digest\(username\), digest\(admin\.username\)\)/);
    expect(adminSrc).not.toMatch(/password\s*===|===\s*admin\.password|password\s*!==/);
    const hashSrc = readFileSync(fileURLToPath(new URL('./password-hash.ts', import.meta.url)), 'utf8');
    expect(hashSrc).toMatch(/return timingSafeEqual\(candidate, Buffer\.from\(stored\.hash, 'hex'\)\)/);
    const usersSrc = readFileSync(fileURLToPath(new URL('../broker/users.ts', import.meta.url)), 'utf8');
    expect(usersSrc).toMatch(/verifyPassword\(password, user\.password\)/);
    expect(usersSrc).not.toMatch(/\.password\s*===|===\s*password/);
    // User passwords: stored only as a salted hash; a near miss fails.
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'sec' });
    await sim.post('/api/cluster/user/create', { tenant: 'sec', username: 'u1', password: 'user-pass-1', is_superuser: false });
    expect(sim.cluster.users.authenticate('sec', 'u1', 'user-pass-1')).toBe(true);
    expect(sim.cluster.users.authenticate('sec', 'u1', 'Xser-pass-1')).toBe(false);
    expect(sim.cluster.users.authenticate('sec', 'u1', 'user-pass-X')).toBe(false);
    expect(JSON.stringify(sim.cluster.users.all())).not.toContain('user-pass-1');
  });

  it('redacts secrets in config get (admin.password, admin.jwt_secret, mqtt_runtime.default_password)', async () => {
    const sim = newSim();
    const res = await sim.get('/api/cluster/config/get');
    expect(res.status).toBe(200);
    const data = res.json.data;
    expect(data.admin).toMatchObject({ username: 'admin', password: '******', jwt_secret: '******' });
    expect(data.mqtt_runtime.default_password).toBe('******');
    for (const secret of [SECRET, PASSWORD, 'robustmq']) expect(res.text).not.toContain(secret);
    // Nor anywhere else a reader without a token can reach.
    for (const path of ['/api/status', '/api/info', '/metrics', '/health/node', '/health/cluster', '/']) {
      sim.advance(25);
      const other = await sim.get(path);
      for (const secret of [SECRET, PASSWORD]) expect(other.text, path).not.toContain(secret);
    }
  });

  it('never writes the jwt secret or the admin password to the output of `mqsim serve`', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const child = spawn(
      process.execPath,
      ['bin/mqsim.js', 'serve', '--port', '0', '--nodes', '1', '--workload', 'none', '--admin-password', PASSWORD, '--jwt-secret', SECRET],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 20_000;
      while (!/^http:\/\/\S+\n/m.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const base = /^(http:\/\/\S+)\n/m.exec(out)?.[1];
      expect(base, `stdout: ${out} stderr: ${err}`).toBeDefined();
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${base}${path}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        });
      expect((await post('/api/v1/login', { username: 'admin', password: `${PASSWORD}-wrong` })).status).toBe(401);
      expect((await post('/api/v1/login', { username: 'nobody', password: PASSWORD })).status).toBe(401);
      const ok = (await (await post('/api/v1/login', { username: 'admin', password: PASSWORD })).json()) as { data: { token: string } };
      expect(typeof ok.data.token).toBe('string');
      const cfg = await (await fetch(`${base}/api/cluster/config/get`)).text();
      expect(cfg).not.toContain(SECRET);
      expect(cfg).not.toContain(PASSWORD);
      await fetch(`${base}/api/cluster/tenant/list`, { headers: { authorization: `Bearer ${ok.data.token}x` } });
      await post('/api/cluster/tenant/create', { tenant_name: 5, password: PASSWORD });
    } finally {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(err).toMatch(/mqsim serve: stopped/);
    for (const secret of [SECRET, PASSWORD]) {
      expect(out, 'stdout').not.toContain(secret);
      expect(err, 'stderr').not.toContain(secret);
    }
  }, 40_000);

  it('makes prototype pollution through request bodies impossible on every create and write endpoint', async () => {
    const sim = newSim();
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'pp' });
    const poison = { polluted: 'yes', isAdmin: true };
    const keysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const writes = CONTRACT.filter((e) => e.method === 'POST' && !/login|delete|leave/.test(e.id));
    expect(writes.length).toBeGreaterThan(10);
    let accepted = 0;
    for (const e of writes) {
      const params = buildParams(e, {});
      if ('tenant' in params) params.tenant = 'pp';
      // Proto keys at the top level and inside every object- or JSON-text-valued parameter.
      const nested = Object.fromEntries(
        Object.entries(params).map(([k, v]) => [k, v !== null && typeof v === 'object' && !Array.isArray(v) ? `__NESTED_${k}__` : v]),
      );
      let text = JSON.stringify(nested);
      for (const [k, v] of Object.entries(params)) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          text = text.replace(
            `"__NESTED_${k}__"`,
            `${JSON.stringify(v).slice(0, -1)}${Object.keys(v).length ? ',' : ''}"__proto__":${JSON.stringify(poison)},"constructor":{"prototype":${JSON.stringify(poison)}}}`,
          );
        }
      }
      text = `${text.slice(0, -1)},"__proto__":${JSON.stringify(poison)},"constructor":{"prototype":${JSON.stringify(poison)}},"prototype":${JSON.stringify(poison)}}`;
      sim.advance(25);
      const res = await sim.call('POST', e.path, undefined, { rawBody: text });
      expect(res.status, `${e.id}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      if (res.json?.code === 0) accepted++;
      expect(({} as Record<string, unknown>).polluted, e.id).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin, e.id).toBeUndefined();
    }
    // The poisoned bodies were otherwise valid: most writes went through to the model.
    expect(accepted, `${accepted} of ${writes.length} accepted`).toBeGreaterThan(writes.length / 2);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(keysBefore);
    // Stored records carry no extra keys: no list shows the poison anywhere.
    for (const e of CONTRACT.filter((x) => x.method === 'GET' && x.list)) {
      sim.advance(25);
      const res = await sim.get(`${e.path}?limit=1000${e.params.some((p) => p.name === 'tenant') ? '&tenant=pp' : ''}`);
      expect(res.text, e.id).not.toContain('polluted');
      expect(res.text, e.id).not.toContain('isAdmin');
    }
    const tenant = (await sim.get('/api/cluster/tenant/list?tenant_name=pp')).json.data.data[0];
    expect(Object.keys(tenant).sort()).toEqual(['config', 'create_time', 'desc', 'tenant_name']);
  });
});
