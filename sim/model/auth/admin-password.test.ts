import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { hashAdminPassword, isAdminPasswordHash, verifyAdminPassword } from './admin-password.ts';

const REMOTE = '10.9.8.7';
const SALT = Buffer.alloc(16, 7);

describe('admin password hash', () => {
  it('verifies the password it was made from and nothing else; a new salt gives another hash', async () => {
    const stored = hashAdminPassword('S3cret-admin', SALT);
    expect(stored).toMatchObject({ scheme: 'scrypt', n: 32768, r: 8, p: 1, salt: SALT.toString('hex') });
    expect(JSON.stringify(stored)).not.toContain('S3cret-admin');
    expect(await verifyAdminPassword('S3cret-admin', stored)).toBe(true);
    for (const wrong of ['s3cret-admin', 'S3cret-admi', 'S3cret-adminX', ''])
      expect(await verifyAdminPassword(wrong, stored), wrong).toBe(false);
    expect(hashAdminPassword('S3cret-admin', Buffer.alloc(16, 8)).hash).not.toBe(stored.hash);
  });

  it('accepts only a well-formed record with a bounded cost (a file could otherwise ask for gigabytes)', () => {
    const good = hashAdminPassword('x', SALT);
    expect(isAdminPasswordHash(good)).toBe(true);
    for (const bad of [
      null,
      'hash',
      { ...good, scheme: 'bcrypt' },
      { ...good, n: 2 ** 30 },
      { ...good, n: 3000 },
      { ...good, r: 0 },
      { ...good, p: 99 },
      { ...good, salt: 'zz' },
      { ...good, hash: '' },
    ])
      expect(isAdminPasswordHash(bad), JSON.stringify(bad)).toBe(false);
  });

  it('login checks against the hash when the cluster holds only the hash', async () => {
    const sim = new InProcessSim({
      workload: 'none',
      admin: { username: 'root', passwordHash: hashAdminPassword('Hash-only-pw', SALT), jwtSecret: 'hash-test-secret-0123456789abcdef' },
    });
    expect(sim.cluster.options.admin.password).toBeUndefined();
    const ok = await sim.post('/api/v1/login', { username: 'root', password: 'Hash-only-pw' }, { peer: REMOTE });
    expect(ok.status).toBe(200);
    const token: string = ok.json.data.token;
    sim.advance(25);
    const list = await sim.get('/api/cluster/tenant/list', { peer: REMOTE, headers: { authorization: `Bearer ${token}` } });
    expect(list.status).toBe(200);
    for (const password of ['hash-only-pw', 'admin', '']) {
      sim.advance(25);
      const wrong = await sim.post('/api/v1/login', { username: 'root', password }, { peer: REMOTE });
      expect(wrong.status, password).toBe(401);
    }
  });
});
