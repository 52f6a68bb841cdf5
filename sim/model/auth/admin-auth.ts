import { createHash, timingSafeEqual } from 'node:crypto';
import type { SimEngine } from '../engine/sim-engine.ts';
import { verifyAdminPassword, type AdminPasswordHash } from './admin-password.ts';
import { JwtTokens } from './jwt-tokens.ts';
import { isLoopbackPeer } from './loopback.ts';
import { PathRateLimiter } from './rate-limiter.ts';

/** The `admin` configuration section (spec: Authentication). */
export interface AdminSettings {
  username: string;
  /**
   * The password in clear, when the process holds it (in-process runs; `mqsim serve` when this start
   * was given it). `mqsim serve` always gives `passwordHash`, and login then checks that, so a resumed
   * run logs in with what its state file kept.
   */
  password?: string;
  /** When given, login checks against this hash (and `password` is not used for login). */
  passwordHash?: AdminPasswordHash;
  jwtSecret: string;
  tokenTtlHours: number;
}

export type AuthDecision = { ok: true } | { ok: false; message: string };

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export interface AdminAuthDeps {
  admin: AdminSettings;
  engine: Pick<SimEngine, 'record' | 'clock'>;
  /**
   * The admin request rate limit is read from `ClusterLimit` at each request (the run-time
   * configuration is one; only this field is named, so auth does not depend on the config part).
   */
  config: { current(): { ClusterLimit: { max_admin_http_uri_rate: unknown } } };
}

/** Login, token checks and the admin request rate limit, all on virtual time. */
export class AdminAuth {
  private tokens: JwtTokens;
  readonly rateLimiter: PathRateLimiter;

  constructor(private readonly deps: AdminAuthDeps) {
    this.tokens = new JwtTokens(deps.admin.jwtSecret);
    this.rateLimiter = new PathRateLimiter(() => Number(deps.config.current().ClusterLimit.max_admin_http_uri_rate));
  }

  /**
   * Replaces the administrator settings in place (the object the cluster's options hold too): a
   * model restored from a checkpoint of `mqsim serve --state` was built without this start's signing
   * secret and password, which never leave the process, and gets them now.
   */
  replaceSettings(admin: AdminSettings): void {
    const current = this.deps.admin;
    delete current.password;
    delete current.passwordHash;
    Object.assign(current, admin);
    this.tokens = new JwtTokens(admin.jwtSecret);
  }

  get ttlSeconds(): number {
    return Math.round(this.deps.admin.tokenTtlHours * 3600);
  }

  /**
   * Checks credentials in constant time (both sides are hashed to equal length first, and both
   * comparisons always run), then issues a token valid for `token_ttl_hours`.
   */
  async login(username: string, password: string): Promise<{ token: string; expires_in: number } | null> {
    const admin = this.deps.admin;
    const userOk = timingSafeEqual(digest(username), digest(admin.username));
    const passOk = admin.passwordHash
      ? await verifyAdminPassword(password, admin.passwordHash)
      : timingSafeEqual(digest(password), digest(admin.password ?? ''));
    if (!(userOk && passOk)) {
      this.deps.engine.record('auth.login-failed', { username });
      return null;
    }
    return this.issueToken();
  }

  /**
   * A token for the administrator without a password check: for the nodes' own calls to each other
   * (which hold the signing secret anyway) and for a deviation that lets any login in. Recorded as a
   * login, as these callers logged in with the password before the password was only kept hashed.
   */
  async issueToken(): Promise<{ token: string; expires_in: number }> {
    const username = this.deps.admin.username;
    const token = await this.tokens.issue(username, this.deps.engine.clock.nowSeconds(), this.ttlSeconds);
    this.deps.engine.record('auth.login', { username });
    return { token, expires_in: this.ttlSeconds };
  }

  /** Rule 1 of the spec's Authentication section: a request from this peer needs no token. */
  needsNoToken(peer: string | undefined): boolean {
    return isLoopbackPeer(peer);
  }

  /** Rules 1, 2, 5 and 6 of the spec's Authentication section for a path that needs a token. */
  async authorize(peer: string | undefined, authorization: string | undefined): Promise<AuthDecision> {
    if (this.needsNoToken(peer)) return { ok: true };
    if (!authorization)
      return { ok: false, message: 'Missing Authorization header: send Authorization: Bearer <token> from POST /api/v1/login' };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return { ok: false, message: 'Invalid Authorization header: expected "Bearer <token>"' };
    const check = await this.tokens.verify(m[1], this.deps.engine.clock.nowSeconds());
    if (!check.ok) return { ok: false, message: `Invalid or expired token (${check.reason}); log in again at POST /api/v1/login` };
    if (check.claims.sub !== this.deps.admin.username)
      return { ok: false, message: 'Invalid or expired token (unknown subject); log in again at POST /api/v1/login' };
    return { ok: true };
  }
}
