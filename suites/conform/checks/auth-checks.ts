import { SignJWT } from 'jose';
import type { EndpointContract } from '../../../contract/core/types.ts';
import { A } from '../cite.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip, type Verdict } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Tokens a server must refuse, each with why. None is signed with the server's secret. */
export interface BadTokens {
  invalid: string;
  algNone: string;
  /** HS256, well-formed, signed with a key the server does not have, expired an hour ago. */
  expiredWrongKey: string;
  /** The run's own token with its payload changed (signature no longer matches); when logged in. */
  tampered?: string;
}

export async function badTokens(username: string, realToken?: string): Promise<BadTokens> {
  const now = Math.floor(Date.now() / 1000);
  const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: username, iat: now, exp: now + 3600 })}.`;
  const expiredWrongKey = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(username)
    .setIssuedAt(now - 7200)
    .setExpirationTime(now - 3600)
    .sign(new TextEncoder().encode('mqsim-conform-not-the-server-secret-0123456789'));
  let tampered: string | undefined;
  if (realToken && realToken.split('.').length === 3) {
    const [header, payload, signature] = realToken.split('.');
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      tampered = `${header}.${b64url({ ...claims, exp: Number(claims.exp ?? now) + 86_400, mqsim: 'tampered' })}.${signature}`;
    } catch {
      tampered = undefined;
    }
  }
  return { invalid: 'not-a-jwt', algNone, expiredWrongKey, ...(tampered ? { tampered } : {}) };
}

/** `peer`: the address a loopback target sees the request from (127.0.0.2 or `--peer-address`). */
function expect401(ex: Exchange, what: string, peer?: string): Verdict {
  if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
  const env = envelopeOf(ex);
  const from = peer ? `a non-loopback peer (sent from ${peer}: the spec exempts only 127.0.0.1 and ::1)` : 'a non-loopback peer';
  if (ex.response.status !== 401) return fail(`${what} from ${from} must get HTTP 401, got ${describeAnswer(ex)}`, ex);
  // The code the answer carries is the Errors row "| 401 | unauthorized |" too.
  if (env?.code !== 401)
    return {
      ...fail(`${what}: HTTP 401 but envelope code ${env ? env.code : '(no envelope)'}; the spec gives code 401`, ex),
      also: ['errors.code.401'],
    };
  return { ...pass(`${what} refused with 401`), also: ['errors.code.401'] };
}

const signedExpired = new WeakMap<ConformContext, Promise<string | undefined>>();

/**
 * A token signed with the server's own secret (when the run knows it) whose expiry lies an hour
 * before the server's clock, read from the `iat` of the run's own token: only an expiry check
 * refuses it. Undefined without the secret or a token of the server.
 */
function expiredSignedToken(ctx: ConformContext): Promise<string | undefined> {
  let token = signedExpired.get(ctx);
  if (!token) {
    token = (async () => {
      const secret = ctx.target.signingSecret;
      const own = ctx.target.token;
      if (!secret || !own) return undefined;
      let claims: Record<string, unknown>;
      try {
        claims = JSON.parse(Buffer.from(own.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      } catch {
        return undefined;
      }
      const serverNow = Number(claims.iat);
      if (!Number.isFinite(serverNow)) return undefined;
      return new SignJWT({ ...claims, iat: serverNow - 7200, exp: serverNow - 3600 })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(new TextEncoder().encode(secret));
    })();
    signedExpired.set(ctx, token);
  }
  return token;
}

/** A body that is invalid for every endpoint: if the auth layer lets it through, nothing is changed. */
const HARMLESS_BODY = {};

/**
 * Authentication (spec: Authentication), from a peer the server must treat as remote: no token,
 * a malformed token, an `alg: none` token, an expired token signed with another key and a tampered
 * token are all refused with 401 on every token endpoint; open endpoints answer without a token.
 */
export async function runAuthChecks(ctx: ConformContext, e: EndpointContract, tokens: BadTokens | undefined): Promise<void> {
  const remote = ctx.target.capabilities.remotePeer;
  const detected = ctx.capabilities?.authChecks;
  const unavailable = !remote.available
    ? `no non-loopback peer: ${remote.reason ?? 'unavailable'}`
    : detected && !detected.available
      ? (detected.reason ?? 'auth checks unavailable')
      : undefined;
  const lo = ctx.target.capabilities.loopback ? (ctx.target.capabilities.remoteVia?.address ?? '127.0.0.2') : undefined;
  const send = (headers: Record<string, string>) =>
    ctx.send(
      {
        method: e.method,
        path: e.path,
        ...(e.method === 'POST' ? { body: HARMLESS_BODY } : {}),
        headers,
        asRemotePeer: true,
        auth: 'none',
      },
      'auth',
      e.id,
    );

  if (e.auth === 'open') return checkOpenWithoutToken(ctx, e, unavailable, send);

  await ctx.check(e, 'auth.no-token', A.auth401, async () =>
    unavailable ? skip(unavailable) : expect401(await send({}), 'a request without a token', lo),
  );
  if (!tokens) return;
  await ctx.check(e, 'auth.invalid-token', A.auth401, async () =>
    unavailable ? skip(unavailable) : expect401(await send({ authorization: `Bearer ${tokens.invalid}` }), 'a malformed token', lo),
  );
  await ctx.check(e, 'auth.alg-none-token', A.auth401, async () =>
    unavailable ? skip(unavailable) : expect401(await send({ authorization: `Bearer ${tokens.algNone}` }), 'an alg:none token', lo),
  );
  await ctx.check(e, 'auth.expired-token', A.auth401, async () =>
    unavailable
      ? skip(unavailable)
      : expect401(await send({ authorization: `Bearer ${tokens.expiredWrongKey}` }), 'an expired token signed with another key', lo),
  );
  await ctx.check(e, 'auth.expired-signed-token', A.auth401, async () => {
    if (unavailable) return skip(unavailable);
    if (!ctx.target.signingSecret)
      return skip(
        "the server's token signing secret is not known to the run, so no correctly signed expired token can be made: give it with --jwt-secret (config admin.jwt_secret)",
      );
    const token = await expiredSignedToken(ctx);
    if (!token)
      return skip(
        'no token of the server to read its clock from, so no correctly signed expired token can be made: log in with --username/--password',
      );
    return expect401(await send({ authorization: `Bearer ${token}` }), 'a correctly signed token that expired an hour ago', lo);
  });
  await ctx.check(e, 'auth.tampered-token', A.auth401, async () => {
    if (unavailable) return skip(unavailable);
    if (!tokens.tampered) return skip('no token of the server to tamper with (log in with --username/--password)');
    return expect401(await send({ authorization: `Bearer ${tokens.tampered}` }), 'a tampered token', lo);
  });
}

/** An open endpoint answers a request without a token from a non-loopback peer (the login: its own answer). */
async function checkOpenWithoutToken(
  ctx: ConformContext,
  e: EndpointContract,
  unavailable: string | undefined,
  send: (headers: Record<string, string>) => Promise<Exchange>,
): Promise<void> {
  await ctx.check(e, 'auth.open-without-token', A.authOpenPaths, async () => {
    if (unavailable) return skip(unavailable);
    if (e.path === '/api/v1/login') {
      const creds = ctx.target.credentials ?? { username: 'mqsim-conform-nobody', password: 'wrong' };
      const ex = await ctx.send(
        { method: 'POST', path: e.path, body: creds, asRemotePeer: true, auth: 'none' },
        ctx.target.credentials ? 'check' : 'auth',
        e.id,
      );
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (ctx.target.credentials)
        return ex.response.status === 200
          ? pass('login works from a non-loopback peer without a token')
          : fail(`login from a non-loopback peer failed: ${describeAnswer(ex)}`, ex);
      const text = envelopeOf(ex)?.text ?? '';
      return text.includes('Invalid username or password')
        ? pass('reachable without a token (answered the wrong credentials)')
        : fail(`expected the login's own answer to wrong credentials, got ${describeAnswer(ex)}`, ex);
    }
    const ex = await send({});
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (ex.response.status === 401) return fail(`${e.path} must be reachable without a token, got ${describeAnswer(ex)}`, ex);
    return pass(`reachable without a token (${describeAnswer(ex)})`);
  });
}
