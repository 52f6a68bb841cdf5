import { jwtVerify, SignJWT } from 'jose';
import { ok, refusal, type Answer } from './answers.ts';
import { need, text, validate, type Body } from './rules.ts';

/**
 * Authentication as the spec states it: the IPv4 loopback 127.0.0.1 and the IPv6 loopback ::1 need
 * no token (no other address of 127.0.0.0/8); any other peer sends `Authorization: Bearer <token>`,
 * an HS256 JWT from POST /api/v1/login valid for token_ttl_hours; otherwise HTTP 401, code 401.
 */

export interface AdminConfig {
  username: string;
  password: string;
  jwtSecret: string;
  tokenTtlHours: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const isExemptPeer = (address: string | undefined): boolean => address !== undefined && LOOPBACK.has(address);

export class Auth {
  private readonly key: Uint8Array;

  constructor(private readonly admin: AdminConfig) {
    this.key = new TextEncoder().encode(admin.jwtSecret);
  }

  /** POST /api/v1/login, answered in form A as the spec shows it. */
  async login(raw: Body): Promise<Answer> {
    const body = validate(raw, { username: need(text()), password: need(text()) });
    if (body.username !== this.admin.username || body.password !== this.admin.password)
      return { ...refusal(401, 401, 'Invalid username or password'), formA: true };
    const expiresIn = Math.round(this.admin.tokenTtlHours * 3600);
    const token = await new SignJWT({ sub: this.admin.username })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${expiresIn}s`)
      .sign(this.key);
    return { ...ok({ token, expires_in: expiresIn }), formA: true };
  }

  /** Undefined when the request may pass, else the 401 answer. */
  async refuses(peer: string | undefined, authorization: string | undefined): Promise<Answer | undefined> {
    if (isExemptPeer(peer)) return undefined;
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (!token) return refusal(401, 401, 'Missing Authorization header: send Bearer <token> from POST /api/v1/login');
    try {
      await jwtVerify(token, this.key, { algorithms: ['HS256'], requiredClaims: ['exp'] });
      return undefined;
    } catch {
      return refusal(401, 401, 'Invalid or expired token: log in again at POST /api/v1/login');
    }
  }
}
