import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { Login } from './login.ts';
import { LOGIN_REFUSAL_CODES } from './reason-codes.ts';

function cluster(secretFreeLogin: boolean): Cluster {
  const c = new Cluster({ seed: 1, workload: 'none', secretFreeLogin }).start();
  c.tenants.create({ tenant_name: 'acme' });
  c.users.create({ tenant: 'acme', username: 'bob', password: 'pw', is_superuser: false });
  c.users.create({ tenant: 'default', username: 'a@b', password: 'mail', is_superuser: false });
  return c;
}
const pw = (s: string) => Buffer.from(s);

describe('Login', () => {
  it('takes the tenant from the user property, else from tenant@user when it names a tenant, else default', () => {
    const login = new Login(cluster(false));
    expect(login.check({ username: 'acme@bob', password: pw('pw') })).toEqual({ ok: true, tenant: 'acme', username: 'bob' });
    expect(login.check({ username: 'bob', password: pw('pw'), tenantProperty: 'acme' })).toEqual({
      ok: true,
      tenant: 'acme',
      username: 'bob',
    });
    expect(login.check({ username: 'acme@bob', password: pw('pw'), tenantProperty: 'acme' })).toEqual({
      ok: true,
      tenant: 'acme',
      username: 'bob',
    });
    // "a" is no tenant: the whole name is the user of the default tenant.
    expect(login.check({ username: 'a@b', password: pw('mail') })).toEqual({ ok: true, tenant: 'default', username: 'a@b' });
    expect(login.check({ username: 'bob', password: pw('pw'), tenantProperty: 'nope' })).toMatchObject({
      ok: false,
      codes: LOGIN_REFUSAL_CODES.notAuthorized,
    });
  });

  it('refuses wrong or missing passwords, and admits the built-in default user in any tenant', () => {
    const login = new Login(cluster(true));
    expect(login.check({ username: 'acme@bob', password: pw('nope') })).toMatchObject({
      ok: false,
      codes: LOGIN_REFUSAL_CODES.badCredentials,
    });
    expect(login.check({ username: 'acme@bob' })).toMatchObject({ ok: false, codes: LOGIN_REFUSAL_CODES.badCredentials });
    expect(login.check({ username: 'ghost', password: pw('x') })).toMatchObject({ ok: false, codes: LOGIN_REFUSAL_CODES.badCredentials });
    expect(login.check({ username: 'admin', password: pw('robustmq') })).toEqual({ ok: true, tenant: 'default', username: 'admin' });
    expect(login.check({ username: 'acme@admin', password: pw('robustmq') })).toEqual({ ok: true, tenant: 'acme', username: 'admin' });
    expect(login.check({ username: 'admin', password: pw('wrong') })).toMatchObject({ ok: false });
  });

  it('lets clients without a user name in only with secret_free_login', () => {
    expect(new Login(cluster(true)).check({})).toEqual({ ok: true, tenant: 'default', username: '' });
    expect(new Login(cluster(true)).check({ tenantProperty: 'acme' })).toEqual({ ok: true, tenant: 'acme', username: '' });
    expect(new Login(cluster(false)).check({})).toMatchObject({ ok: false, codes: LOGIN_REFUSAL_CODES.notAuthorized });
  });

  it('pays scrypt once per (user, password, stored hash): a recreated user with another password is checked again', () => {
    const c = cluster(false);
    const login = new Login(c);
    const spy = vi.spyOn(c.users, 'authenticate');
    for (let i = 0; i < 5; i++) expect(login.check({ username: 'acme@bob', password: pw('pw') }).ok).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(login.check({ username: 'acme@bob', password: pw('bad') }).ok).toBe(false);
    expect(login.check({ username: 'acme@bob', password: pw('bad') }).ok).toBe(false);
    expect(spy).toHaveBeenCalledTimes(3); // failures are never cached
    c.users.delete('acme', 'bob');
    c.users.create({ tenant: 'acme', username: 'bob', password: 'new', is_superuser: false });
    expect(login.check({ username: 'acme@bob', password: pw('pw') }).ok).toBe(false);
    expect(login.check({ username: 'acme@bob', password: pw('new') }).ok).toBe(true);
  });
});
