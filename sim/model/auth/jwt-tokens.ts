import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

/** Claims the simulator puts in a token: the admin name, issue and expiry times (Unix seconds). */
interface AdminClaims {
  sub: string;
  iat: number;
  exp: number;
}

export type TokenCheck = { ok: true; claims: AdminClaims } | { ok: false; reason: string };

const encoder = new TextEncoder();

/**
 * HS256 tokens, issued and checked against virtual time (`nowSeconds`), so a token's expiry follows
 * the simulated clock. Only HS256 is accepted: `alg: none`, RS/ES tokens and any other algorithm are
 * refused before the signature is looked at (no algorithm confusion).
 */
export class JwtTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    if (secret.length === 0) throw new Error('jwt secret must not be empty');
    this.key = encoder.encode(secret);
  }

  async issue(subject: string, nowSeconds: number, ttlSeconds: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + ttlSeconds)
      .sign(this.key);
  }

  async verify(token: string, nowSeconds: number): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(nowSeconds * 1000),
        requiredClaims: ['exp', 'sub'],
        clockTolerance: 0,
      });
      return { ok: true, claims: { sub: String(payload.sub), iat: Number(payload.iat ?? 0), exp: Number(payload.exp) } };
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) return { ok: false, reason: 'token expired' };
      if (e instanceof joseErrors.JOSEAlgNotAllowed) return { ok: false, reason: 'token algorithm not allowed' };
      if (e instanceof joseErrors.JWSSignatureVerificationFailed) return { ok: false, reason: 'token signature invalid' };
      return { ok: false, reason: 'token malformed' };
    }
  }
}
