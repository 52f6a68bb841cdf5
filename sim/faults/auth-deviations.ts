/** Bugs in authentication and login. */
import { JwtTokens } from '../model/auth/jwt-tokens.ts';
import type { SwitchCluster } from '../admin-api/hooks/deviation.ts';
import type { ApiRequest } from '../admin-api/core/api-exchange.ts';
import { RawBody } from '../admin-api/core/handler-types.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, endpointById, responseOn, rewriteJson } from '../admin-api/hooks/hook-helpers.ts';

/** The request as if it came from the exempt loopback address: how an auth bypass shows. */
const trusted = (req: ApiRequest): ApiRequest => ({ ...req, peer: '127.0.0.1' });

function bearer(req: ApiRequest): string | undefined {
  const raw = req.headers?.authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value ? /^Bearer\s+(\S+)\s*$/i.exec(value)?.[1] : undefined;
}

/** The claims of a JWT read without checking anything: what a server that forgets to verify does. */
function decodeUnverified(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const verifiers = new WeakMap<SwitchCluster, JwtTokens>();

function verifierOf(cluster: SwitchCluster): JwtTokens {
  let v = verifiers.get(cluster);
  if (!v) {
    v = new JwtTokens(cluster.options.admin.jwtSecret);
    verifiers.set(cluster, v);
  }
  return v;
}

const userListPath = endpointById('cluster.user.list').path;

export const AUTH_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'user-list-auth-skipped',
    spec: 'breaks',
    endpoint: 'cluster.user.list',
    description: 'the user list is served without authentication: a remote peer without a token gets 200',
    checks: ['auth.no-token', 'auth.invalid-token', 'auth.alg-none-token', 'auth.expired-token', 'auth.tampered-token'],
    caught: true,
    hooks: { request: (req) => (req.url.split('?')[0] === userListPath ? trusted(req) : req) },
  },
  {
    id: 'loopback-range-exempt',
    spec: 'breaks',
    // The real server's auth middleware passes every peer whose IP `is_loopback()`; its listener is IPv4 only.
    notes: 'notes §5 (auth_middleware step 1), §11.15',
    rule: 'Authentication: "1. A request whose source address is the IPv4 loopback `127.0.0.1` or the IPv6 loopback `::1` is accepted without a token." and "2. A request from any other address must carry the header `Authorization: Bearer <ACCESS_TOKEN>`."',
    endpoint: 'cluster.status',
    description: 'every peer in 127.0.0.0/8 is exempt from the token, not only 127.0.0.1 and ::1',
    finding: 'auth.rule-2-remote-token',
    checks: ['auth.loopback-exemption'],
    caught: true,
    hooks: { request: (req) => (/^(::ffff:)?127\./.test(req.peer) ? trusted(req) : req) },
  },
  {
    id: 'token-signature-not-verified',
    spec: 'breaks',
    endpoint: 'cluster.topic.list',
    description: 'a token is decoded but neither its signature, its algorithm nor its expiry is verified',
    checks: ['auth.alg-none-token', 'auth.tampered-token', 'auth.expired-token'],
    caught: true,
    hooks: {
      request: (req, cluster) => {
        const token = bearer(req);
        const claims = token ? decodeUnverified(token) : undefined;
        return claims?.sub === cluster.options.admin.username ? trusted(req) : req;
      },
    },
  },
  {
    id: 'token-expiry-not-checked',
    spec: 'breaks',
    endpoint: 'cluster.topic.list',
    description: 'a token with a valid signature is accepted after it expired',
    checks: ['auth.expired-signed-token'],
    caught: true,
    hooks: {
      request: async (req, cluster) => {
        const token = bearer(req);
        const claims = token ? decodeUnverified(token) : undefined;
        if (!token || typeof claims?.iat !== 'number') return req;
        // Verified as of the moment it was issued: the signature counts, the expiry never does.
        const check = await verifierOf(cluster).verify(token, claims.iat);
        return check.ok && check.claims.sub === cluster.options.admin.username ? trusted(req) : req;
      },
    },
  },
  {
    id: 'login-any-credentials-accepted',
    spec: 'breaks',
    endpoint: 'auth.login',
    description: 'login with wrong credentials issues a token',
    checks: ['login.wrong-credentials'],
    caught: true,
    hooks: {
      around: aroundOn('auth.login', async (params, next, cx) => {
        const out = await next(params);
        if (!(out instanceof RawBody && out.status === 401)) return out;
        return cx.cluster.auth.issueToken();
      }),
    },
  },
  {
    id: 'login-failure-wrong-text',
    spec: 'breaks',
    endpoint: 'auth.login',
    description: 'login with wrong credentials answers 401 "Unauthorized" instead of "Invalid username or password"',
    checks: ['login.wrong-credentials'],
    caught: true,
    hooks: {
      response: responseOn('auth.login', (res) =>
        res.status === 401 ? rewriteJson(res, (body) => ({ ...body, message: 'Unauthorized' })) : res,
      ),
    },
  },
];
