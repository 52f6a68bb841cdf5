import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { InProcessSim } from './in-process-client.ts';

const REMOTE = '127.0.0.2';
const secret = 'test-secret-0123456789abcdef0123456789';

async function loginToken(sim: InProcessSim): Promise<string> {
  const res = await sim.post('/api/v1/login', { username: 'admin', password: 'pw' }, { peer: REMOTE });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ code: 0, message: 'success', data: { expires_in: 28_800 } });
  return res.json.data.token;
}

function newSim(): InProcessSim {
  return new InProcessSim({ admin: { password: 'pw', jwtSecret: secret } });
}

describe('authentication', () => {
  it('lets exactly 127.0.0.1 and ::1 in without a token, not other loopback addresses', async () => {
    const sim = newSim();
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect((await sim.get('/api/cluster/tenant/list', { peer })).status).toBe(200);
    for (const peer of ['127.0.0.2', '10.0.0.5', '::2']) {
      const res = await sim.get('/api/cluster/tenant/list', { peer });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 401, data: null });
      expect(res.json.message).toMatch(/Authorization/);
    }
  });

  it('accepts a token from login and refuses wrong credentials with the spec text', async () => {
    const sim = newSim();
    const token = await loginToken(sim);
    expect((await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const wrong = await sim.post('/api/v1/login', { username: 'admin', password: 'nope' }, { peer: REMOTE });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ code: 401, message: 'Invalid username or password', data: null });
  });

  it('refuses expired, tampered, wrongly signed and alg:none tokens with 401', async () => {
    const sim = newSim();
    const token = await loginToken(sim);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'root' })).toString('base64url')}.${s}`;
    const wrongKey = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('admin')
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .sign(new TextEncoder().encode('another-secret-another-secret-1234'));
    const none = new UnsecuredJWT({}).setSubject('admin').setIssuedAt(claims.iat).setExpirationTime(claims.exp).encode();
    const hs512 = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('admin')
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .sign(new TextEncoder().encode(secret));
    for (const bad of [tampered, wrongKey, none, hs512, 'garbage', `${h}.${p}`]) {
      const res = await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${bad}` } });
      expect(res.status, bad).toBe(401);
      expect(res.json.code).toBe(401);
    }
    // Expiry follows virtual time: valid until exp, refused after it.
    sim.advance(28_799_000);
    expect((await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    sim.advance(1_000);
    const expired = await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } });
    expect(expired.status).toBe(401);
    expect(expired.json.message).toMatch(/expired/);
  });

  it('keeps login, health probes and /metrics reachable without a token', async () => {
    const sim = newSim();
    expect((await sim.get('/health/ready', { peer: REMOTE })).status).toBe(200);
    expect((await sim.get('/health/node', { peer: REMOTE })).status).toBe(200);
    expect((await sim.get('/health/cluster', { peer: REMOTE })).status).toBe(200);
    expect((await sim.get('/metrics', { peer: REMOTE })).status).toBe(200);
    expect((await sim.post('/api/v1/login', { username: 'admin', password: 'pw' }, { peer: REMOTE })).status).toBe(200);
    expect((await sim.get('/', { peer: REMOTE })).status).toBe(401);
  });

  it('never returns the admin password or the JWT secret', async () => {
    const sim = newSim();
    for (const path of ['/api/cluster/config/get', '/api/status', '/api/info']) {
      const res = await sim.get(path);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain('"pw"');
    }
  });
});

describe('admin request rate limit (max_admin_http_uri_rate)', () => {
  it('answers 429 with Retry-After past 50 requests per second on one path, per path', async () => {
    const sim = newSim();
    for (let i = 0; i < 50; i++) expect((await sim.get('/api/cluster/user/list')).status).toBe(200);
    const limited = await sim.get('/api/cluster/user/list');
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await sim.get('/api/cluster/acl/list')).status).toBe(200);
    sim.advance(1_000);
    expect((await sim.get('/api/cluster/user/list')).status).toBe(200);
  });
});
