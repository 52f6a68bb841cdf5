import type { EndpointContract } from '../../contract/core/types.ts';
import { runTokenLifetime } from '../conform/checks/behaviour-checks.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, skip } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { ScenarioSuite } from './scenario-suite.ts';

/**
 * Login and authentication (spec: Authentication; Login and status; Errors). The per-endpoint token
 * checks (`auth.*`: no, malformed, alg:none, expired, tampered token → 401) run on every endpoint
 * from checks/auth-checks.ts; this family checks the login endpoint itself.
 */

const WRONG_TEXT = 'Invalid username or password';

/** The spec's login failure: HTTP 401, code 401, the exact message, data null. */
function loginFailure(ex: Exchange, what: string) {
  if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
  const env = envelopeOf(ex);
  if (ex.response.status !== 401 || env?.code !== 401)
    return fail(`${what} must get HTTP 401 with code 401, got ${describeAnswer(ex)}`, ex);
  if (!env.text?.includes(WRONG_TEXT)) return fail(`the message must be "${WRONG_TEXT}", got ${JSON.stringify(env.text)}`, ex);
  return pass(`${what}: HTTP 401, code 401, "${WRONG_TEXT}"`);
}

function decodeHeader(token: string, part = 0): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[part] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A token endpoint without required parameters, to show a fresh token opens the API. */
function probeOf(ctx: ConformContext): EndpointContract | undefined {
  return ctx.contract.find(
    (x) =>
      x.method === 'GET' &&
      x.auth === 'token' &&
      x.path.startsWith('/api/') &&
      x.response.kind === 'envelope' &&
      !x.params.some((p) => p.required),
  );
}

async function freshLogin(ctx: ConformContext, login: EndpointContract, asRemotePeer: boolean): Promise<Exchange | undefined> {
  const creds = ctx.target.credentials;
  if (!creds) return undefined;
  return ctx.send(
    { method: 'POST', path: login.path, body: creds, auth: 'none', ...(asRemotePeer ? { asRemotePeer: true } : {}) },
    'check',
    login.id,
  );
}

export const auth: ScenarioSuite = {
  name: 'auth',
  tags: ['auth'],
  scenarios: [
    {
      endpoint: 'POST /api/v1/login',
      checks: ['login.wrong-credentials', 'login.failure-body', 'login.wrong-password'],
      assertion: 'endpoints.login.failure',
      async run(ctx, login) {
        const ex = await ctx.send(
          { method: 'POST', path: login.path, body: { username: 'mqsim-conform-nobody', password: 'definitely-wrong' }, auth: 'none' },
          'auth',
          login.id,
        );
        await ctx.check(login, 'login.wrong-credentials', 'endpoints.login.failure', () => loginFailure(ex, 'wrong credentials'));
        await ctx.check(login, 'login.failure-body', 'endpoints.login.failure', () => {
          const env = envelopeOf(ex);
          if (!env || env.code !== 401)
            return skip(`the refusal was not a code-401 envelope (${describeAnswer(ex)}); see login.wrong-credentials`);
          if (env.form !== 'A') return fail(`the spec shows the login failure as {code, message, data}; got form ${env.form}`, ex);
          return env.data === null ? pass('data is null') : fail(`a failed login must have data null, got ${JSON.stringify(env.data)}`, ex);
        });
        await ctx.check(login, 'login.wrong-password', 'endpoints.login.failure', async () => {
          const creds = ctx.target.credentials;
          if (!creds) return skip('the administrator name is not known: pass --username and --password');
          const wrong = await ctx.send(
            { method: 'POST', path: login.path, body: { username: creds.username, password: `${creds.password}-not` }, auth: 'none' },
            'auth',
            login.id,
          );
          return loginFailure(wrong, 'the right user name with a wrong password');
        });
      },
    },
    {
      endpoint: 'POST /api/v1/login',
      checks: ['login.token-hs256'],
      assertion: 'auth.rule-6-hs256',
      async run(ctx, login, env) {
        await ctx.check(login, 'login.token-hs256', 'auth.rule-6-hs256', () => {
          const token = (envelopeOf(env.happy ?? ({} as Exchange))?.data as { token?: unknown } | undefined)?.token;
          if (typeof token !== 'string') return skip('no token to look at (log in with --username/--password)');
          const header = decodeHeader(token);
          // A JSON header naming a signing algorithm is also the "signed JSON Web Tokens" of the Authentication intro.
          const jwt = ['auth.jwt'];
          if (!header) return { ...fail(`the token is not a JWT (no JSON header): ${token.slice(0, 24)}…`, env.happy), also: jwt };
          return {
            ...(header.alg === 'HS256'
              ? pass('the token header says alg HS256 (HMAC-SHA256)')
              : fail(`the spec signs tokens with HMAC-SHA256, the token header says alg ${JSON.stringify(header.alg)}`, env.happy)),
            also: jwt,
          };
        });
      },
    },
    {
      endpoint: 'POST /api/v1/login',
      checks: ['login.token-opens-api'],
      assertion: 'auth.rule-4-login',
      needs: ['auth-peer'],
      async run(ctx, login) {
        const probe = probeOf(ctx);
        if (!probe) return;
        await ctx.check(login, 'login.token-opens-api', 'auth.rule-4-login', async () => {
          const ex = await freshLogin(ctx, login, true);
          if (!ex) return skip('no credentials for this target: pass --username and --password');
          const data = envelopeOf(ex)?.data as { token?: unknown; expires_in?: unknown } | undefined;
          if (typeof data?.token !== 'string') return fail(`login with the given credentials gave no token: ${describeAnswer(ex)}`, ex);
          if (typeof data.expires_in !== 'number' || data.expires_in <= 0)
            return fail(`expires_in must be a positive number of seconds, got ${JSON.stringify(data.expires_in)}`, ex);
          const use = await ctx.send(
            {
              method: probe.method,
              path: probe.path,
              headers: { authorization: `Bearer ${data.token}` },
              asRemotePeer: true,
              auth: 'none',
            },
            'check',
            probe.id,
            true,
          );
          if (use.response?.status !== 200 || envelopeOf(use)?.code !== 0)
            return fail(`a fresh token did not open ${probe.path} to a non-loopback peer: ${describeAnswer(use)}`, use);
          return pass(`a fresh token (expires_in ${data.expires_in}) opens ${probe.path} to a non-loopback peer`);
        });
      },
    },
    {
      endpoint: 'POST /api/v1/login',
      checks: ['login.expires-in-matches-ttl'],
      assertion: 'auth.admin.token_ttl_hours',
      run: (ctx, login, env) => runTokenLifetime(ctx, login, env.happy),
    },
    {
      endpoint: 'POST /api/v1/login',
      checks: ['login.token-claims', 'login.admin-username'],
      assertion: 'notes.auth.token-claims',
      async run(ctx, login, env) {
        const data = env.happy ? (envelopeOf(env.happy)?.data as { token?: unknown; expires_in?: unknown } | undefined) : undefined;
        const token = typeof data?.token === 'string' ? data.token : undefined;
        const creds = ctx.target.credentials;
        // Notes §5: claims sub (the administrator name), iat, exp = iat + token_ttl_hours × 3600 (= expires_in).
        await ctx.check(login, 'login.token-claims', 'notes.auth.token-claims', () => {
          if (!token || !creds) return skip('no token to look at (log in with --username/--password)');
          const claims = decodeHeader(token, 1);
          if (!claims) return fail(`the token has no JSON claims part: ${token.slice(0, 24)}…`, env.happy);
          const problems: string[] = [];
          if (claims.sub !== creds.username)
            problems.push(`sub is ${JSON.stringify(claims.sub)}, not the administrator name ${JSON.stringify(creds.username)}`);
          if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
            problems.push(`iat and exp must be numbers of seconds, got ${JSON.stringify({ iat: claims.iat, exp: claims.exp })}`);
          else if (typeof data?.expires_in === 'number' && claims.exp - claims.iat !== data.expires_in)
            problems.push(`exp - iat is ${claims.exp - claims.iat} s, but expires_in is ${data.expires_in}`);
          return problems.length > 0
            ? fail(`token claims: ${problems.join('; ')}`, env.happy)
            : pass(`claims sub ${JSON.stringify(creds.username)}, exp = iat + ${String(data?.expires_in)} s`);
        });
        // Authentication, admin: "| username | string | administrator name; default `admin` |": the name login accepts is the configured one.
        await ctx.check(login, 'login.admin-username', 'auth.admin.username', async () => {
          if (!token || !creds) return skip('the run did not log in (pass --username and --password)');
          const get = ctx.endpoint('GET', '/api/cluster/config/get');
          if (!get) return skip('the contract has no config get to read admin.username from');
          const config = await ctx.call(get, {}, 'fixture');
          const name = ((envelopeOf(config)?.data as Record<string, unknown> | undefined)?.admin as Record<string, unknown> | undefined)
            ?.username;
          if (typeof name !== 'string') return skip(`config get shows no admin.username (${describeAnswer(config)})`);
          return name === creds.username
            ? pass(`the login as ${JSON.stringify(name)} is the administrator name config get shows (admin.username)`)
            : fail(
                `a login as ${JSON.stringify(creds.username)} was accepted, but the administrator name (config get admin.username) is ${JSON.stringify(name)}`,
                config,
              );
        });
      },
    },
  ],
};
