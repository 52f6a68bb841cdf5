import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashAdminPassword, verifyAdminPassword } from '../../sim/model/auth/admin-password.ts';
import { DEVELOPMENT_JWT_SECRET } from '../../sim/model/nodes/cluster-options.ts';
import { ADMIN_PASSWORD, adminPassword, checkDefaults, givenSecret, isLoopbackHost, JWT_SECRET, serveSecrets } from './serve-secrets.ts';
import { UsageError } from './usage-error.ts';

const dir = mkdtempSync(join(tmpdir(), 'mqsim-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('where a secret comes from', () => {
  it('takes the flag, else the file (one trailing newline dropped), else the environment, else nothing', () => {
    const env = { MQSIM_ADMIN_PASSWORD: 'from-env' };
    const f = file('pw', 'from-file\n');
    expect(givenSecret(ADMIN_PASSWORD, 'from-flag', undefined, env)).toEqual({ value: 'from-flag', from: '--admin-password' });
    expect(givenSecret(ADMIN_PASSWORD, undefined, f, env)).toEqual({ value: 'from-file', from: `--admin-password-file ${f}` });
    expect(givenSecret(ADMIN_PASSWORD, undefined, undefined, env)).toEqual({ value: 'from-env', from: 'MQSIM_ADMIN_PASSWORD' });
    expect(givenSecret(ADMIN_PASSWORD, undefined, undefined, {})).toBeUndefined();
    expect(givenSecret(JWT_SECRET, undefined, file('crlf', 'jwt\r\n'), {})?.value).toBe('jwt');
    // Only one newline: inner ones and other whitespace are the secret's.
    expect(givenSecret(JWT_SECRET, undefined, file('two', ' a b\n\n'), {})?.value).toBe(' a b\n');
  });

  it.each([
    [
      'both the flag and its file',
      () => givenSecret(ADMIN_PASSWORD, 'x', file('both', 'y'), {}),
      /give the admin password once: --admin-password or --admin-password-file, not both/,
    ],
    [
      'a missing file',
      () => givenSecret(JWT_SECRET, undefined, join(dir, 'none'), {}),
      /--jwt-secret-file .*none cannot be read \(ENOENT\)/,
    ],
    ['a directory', () => givenSecret(JWT_SECRET, undefined, dir, {}), /--jwt-secret-file .* cannot be read \(EISDIR\)/],
    ['an empty file', () => givenSecret(ADMIN_PASSWORD, undefined, file('empty', '\n'), {}), /--admin-password-file .*empty is empty/],
    [
      'an empty variable',
      () => givenSecret(JWT_SECRET, undefined, undefined, { MQSIM_JWT_SECRET: '' }),
      /MQSIM_JWT_SECRET is set but empty/,
    ],
    ['an empty flag', () => givenSecret(ADMIN_PASSWORD, '', undefined, {}), /--admin-password is empty/],
  ])('refuses %s with a usage error', (_name, run, message) => {
    expect(run).toThrow(UsageError);
    expect(run).toThrow(message);
  });
});

describe('loopback hosts', () => {
  it('counts localhost, 127.x.y.z and ::1 as loopback, and the wildcards and anything else as not', () => {
    for (const h of ['127.0.0.1', '127.3.2.1', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', 'myhost', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('built-in secrets beyond loopback', () => {
  const check = (host: string, adminDefault: boolean, jwtDefault: boolean, insecure = false) =>
    checkDefaults({ host, adminDefault, jwtDefault, insecure });

  it('refuses with one sentence naming the default in use and how to set it', () => {
    expect(() => check('0.0.0.0', true, false)).toThrow(
      '--host 0.0.0.0 listens beyond loopback while the admin password is the built-in default "admin"; set MQSIM_ADMIN_PASSWORD or --admin-password-file PATH, or pass --insecure-defaults to start anyway',
    );
    expect(() => check('::', false, true)).toThrow(
      "--host :: listens beyond loopback while the token signing secret is the development one from mqsim's source; set MQSIM_JWT_SECRET or --jwt-secret-file PATH, or pass --insecure-defaults to start anyway",
    );
    expect(() => check('10.0.0.5', true, true)).toThrow(
      /admin" and the token signing secret .*; set MQSIM_ADMIN_PASSWORD .*, and MQSIM_JWT_SECRET/,
    );
  });

  it('warns instead with --insecure-defaults, and says nothing on loopback or with both secrets set', () => {
    expect(check('::', true, true, true)).toMatch(
      /^WARNING \(--insecure-defaults\): listening on ::, beyond loopback, while the admin password/,
    );
    expect(check('127.0.0.1', true, true)).toBeUndefined();
    expect(check('0.0.0.0', false, false)).toBeUndefined();
  });
});

describe('the admin password of a start', () => {
  const salt = Buffer.alloc(16, 3);

  it('hashes the given one or the default on a fresh start', async () => {
    const given = await adminPassword({ value: 'Given-1', from: 'x' }, undefined);
    expect(given).toMatchObject({ isDefault: false, changed: false, clear: 'Given-1' });
    expect(await verifyAdminPassword('Given-1', given.hash)).toBe(true);
    expect(await adminPassword(undefined, undefined)).toMatchObject({ isDefault: true });
  });

  it('resuming: keeps the recorded hash unless another password is given, which replaces it', async () => {
    const recorded = { username: 'admin', passwordHash: hashAdminPassword('Kept-pw', salt), tokenTtlHours: 8 };
    // Not given: the hash is all this start knows.
    expect(await adminPassword(undefined, recorded)).toEqual({ hash: recorded.passwordHash, isDefault: false, changed: false });
    expect(await adminPassword({ value: 'Kept-pw', from: 'x' }, recorded)).toEqual({
      hash: recorded.passwordHash,
      isDefault: false,
      changed: false,
      clear: 'Kept-pw',
    });
    const other = await adminPassword({ value: 'New-pw', from: 'x' }, recorded);
    expect(other.changed).toBe(true);
    expect(await verifyAdminPassword('New-pw', other.hash)).toBe(true);
    // A recorded default is still the default, known only by its hash.
    const recordedDefault = { ...recorded, passwordHash: hashAdminPassword('admin', salt) };
    expect(await adminPassword(undefined, recordedDefault)).toMatchObject({ isDefault: true, changed: false });
  });

  it('resuming an older file: its clear password is hashed, its signing secret dropped (with a note each)', async () => {
    const recorded = { username: 'admin', password: 'Old-clear', jwtSecret: 'old-secret', tokenTtlHours: 8 };
    const s = await serveSecrets({ host: '127.0.0.1', state: 'old.state' }, recorded, {});
    expect(await verifyAdminPassword('Old-clear', s.passwordHash)).toBe(true);
    expect(s.jwtSecret).toBe(DEVELOPMENT_JWT_SECRET);
    expect(s.rewrite).toBe(true);
    expect(s.notes).toEqual([
      'old.state held the admin password in clear; it now keeps a salted hash of it',
      'old.state held the token signing secret, which state files no longer keep: it is dropped, and this start signs with the built-in development secret',
    ]);
  });
});
