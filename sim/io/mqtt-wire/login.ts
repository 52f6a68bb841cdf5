import { createHash } from 'node:crypto';
import type { Users } from '../../model/broker/users.ts';
import { MQTT_RUNTIME_DEFAULTS } from '../../model/nodes/static-node-config.ts';
import { LOGIN_REFUSAL_CODES, type ConnackRefusal } from './reason-codes.ts';

/**
 * Who a CONNECT logs in as: its tenant and user, and whether its credentials hold.
 *
 * Tenant, as the real server's tests use it: the MQTT 5 user property `tenant`, else the prefix of a
 * user name `tenant@user` when it names an existing tenant, else `default`.
 *
 * Credentials (decisions, documented in docs/mqtt.md):
 * - A client giving a user name must give that user's password (the tenant's users, checked with
 *   `Users.authenticate`), or be the built-in `mqtt_runtime.default_user` with `default_password`
 *   (admin/robustmq, as the real server creates). Anything else: "bad user name or password".
 *   This holds even with secret-free login on (the real server then skips every check): a client
 *   that names a user is that user for ACL and blacklist rules, so it must prove it.
 * - A client without a user name gets in only when `mqtt_runtime.secret_free_login` is true (what
 *   `mqsim serve --mqtt-port` sets unless `--mqtt-login required`); otherwise "not authorized".
 */

export interface LoginRequest {
  username?: string;
  password?: Buffer;
  /** MQTT 5 user property `tenant`, when given. */
  tenantProperty?: string;
}

export type LoginOutcome = { ok: true; tenant: string; username: string } | { ok: false; codes: ConnackRefusal; reason: string };

/** Positive password checks remembered, so a reconnect storm does not pay scrypt every time. */
const CACHE_LIMIT = 10_000;

/** What a login reads: the tenants, the users' stored credentials and whether anonymous login is on. */
export interface LoginSources {
  tenants: { has(name: string): boolean };
  users: Pick<Users, 'get' | 'authenticate'>;
  options: { readonly secretFreeLogin: boolean };
}

export class Login {
  /** Digests of (tenant, user, password, stored hash) that verified; a changed or recreated user has another stored hash. */
  private readonly verified = new Set<string>();

  constructor(private readonly cluster: LoginSources) {}

  check(req: LoginRequest): LoginOutcome {
    const tenants = this.cluster.tenants;
    let tenant = 'default';
    let username = req.username;
    if (req.tenantProperty !== undefined) {
      if (!tenants.has(req.tenantProperty))
        return {
          ok: false,
          codes: LOGIN_REFUSAL_CODES.notAuthorized,
          reason: `tenant ${JSON.stringify(req.tenantProperty)} (user property) does not exist`,
        };
      tenant = req.tenantProperty;
      if (username?.startsWith(`${tenant}@`)) username = username.slice(tenant.length + 1);
    } else if (username !== undefined) {
      const at = username.indexOf('@');
      if (at > 0 && tenants.has(username.slice(0, at))) {
        tenant = username.slice(0, at);
        username = username.slice(at + 1);
      }
    }
    if (username === undefined || username === '') {
      if (this.cluster.options.secretFreeLogin) return { ok: true, tenant, username: '' };
      return {
        ok: false,
        codes: LOGIN_REFUSAL_CODES.notAuthorized,
        reason: 'a user name is required (mqtt_runtime.secret_free_login is off)',
      };
    }
    if (req.password === undefined)
      return { ok: false, codes: LOGIN_REFUSAL_CODES.badCredentials, reason: `no password for user ${username}` };
    const password = req.password.toString('utf8');
    if (this.passwordHolds(tenant, username, password)) return { ok: true, tenant, username };
    return {
      ok: false,
      codes: LOGIN_REFUSAL_CODES.badCredentials,
      reason: `bad user name or password for user ${username} of tenant ${tenant}`,
    };
  }

  private passwordHolds(tenant: string, username: string, password: string): boolean {
    const user = this.cluster.users.get(tenant, username);
    if (!user) return username === MQTT_RUNTIME_DEFAULTS.default_user && password === MQTT_RUNTIME_DEFAULTS.default_password;
    const key = createHash('sha256')
      .update(`${tenant}\u0000${username}\u0000${password}\u0000${user.password.salt}\u0000${user.password.hash}`)
      .digest('base64');
    if (this.verified.has(key)) return true;
    if (!this.cluster.users.authenticate(tenant, username, password)) return false;
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.add(key);
    return true;
  }
}
