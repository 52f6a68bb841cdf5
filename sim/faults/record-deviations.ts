/** Bugs in the records an endpoint returns: missing fields, wrong types, wrong time units. */
import { localTimeString } from '../model/api/time-format.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, rowsOn } from '../admin-api/hooks/hook-helpers.ts';

export const RECORD_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'user-list-is-superuser-missing',
    spec: 'breaks',
    endpoint: 'cluster.user.list',
    description: 'user list: records lack is_superuser',
    checks: ['data-schema'],
    caught: true,
    hooks: {
      around: rowsOn('cluster.user.list', ({ is_superuser: _dropped, ...rest }) => rest),
    },
  },
  {
    id: 'user-list-create-time-as-text',
    spec: 'breaks',
    endpoint: 'cluster.user.list',
    description: 'user list: create_time is a local-time string instead of Unix seconds',
    checks: ['data-schema'],
    caught: true,
    hooks: { around: rowsOn('cluster.user.list', (r) => ({ ...r, create_time: localTimeString(Number(r.create_time) * 1000) })) },
  },
  {
    id: 'tenant-list-create-time-in-ms',
    spec: 'breaks',
    endpoint: 'cluster.tenant.list',
    description: 'tenant list: create_time in Unix milliseconds instead of seconds',
    checks: ['data-schema'],
    caught: true,
    hooks: { around: rowsOn('cluster.tenant.list', (r) => ({ ...r, create_time: Number(r.create_time) * 1000 })) },
  },
  {
    id: 'mq9-mail-list-create-time-in-seconds',
    spec: 'breaks',
    notes: 'notes §11.17, §4.10',
    rule: 'Resources, mq9 mailbox: "| create_time | u64 | Unix milliseconds |"',
    endpoint: 'mq9.mail.list',
    description: 'mq9 mail list: create_time in Unix seconds instead of milliseconds',
    finding: 'conventions.output-time',
    checks: ['data-schema'],
    caught: true,
    hooks: { around: rowsOn('mq9.mail.list', (r) => ({ ...r, create_time: Math.floor(Number(r.create_time) / 1000) })) },
  },
  {
    id: 'blacklist-list-type-lower-case',
    spec: 'breaks',
    endpoint: 'cluster.blacklist.list',
    description: "blacklist list: blacklist_type in lower case (clientid) instead of the spec's ClientId",
    checks: ['data-schema'],
    caught: true,
    hooks: { around: rowsOn('cluster.blacklist.list', (r) => ({ ...r, blacklist_type: String(r.blacklist_type).toLowerCase() })) },
  },
  {
    id: 'connector-list-running-without-broker',
    spec: 'breaks',
    endpoint: 'cluster.connector.list',
    description: 'connector list: a Running connector shows broker_id null (the assignment is not reported)',
    checks: ['connector.state-and-broker'],
    caught: true,
    hooks: { around: rowsOn('cluster.connector.list', (r) => ({ ...r, broker_id: null })) },
  },
  {
    id: 'config-get-leaks-admin-password',
    spec: 'breaks',
    endpoint: 'cluster.config.get',
    description: 'config get: admin.password is shown in clear text instead of redacted',
    checks: ['config.secrets-not-shown'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.config.get', async (params, next, cx) => {
        const data = (await next(params)) as Record<string, unknown>;
        const admin = data.admin as Record<string, unknown> | undefined;
        // A run that keeps only the hash (mqsim serve) leaks that instead.
        const { password, passwordHash } = cx.cluster.options.admin;
        return admin ? { ...data, admin: { ...admin, password: password ?? passwordHash?.hash } } : data;
      }),
    },
  },
  {
    id: 'login-expires-in-ms',
    spec: 'breaks',
    endpoint: 'auth.login',
    description: 'login: expires_in is given in milliseconds instead of seconds',
    checks: ['login.expires-in-matches-ttl'],
    tags: ['config'],
    caught: true,
    hooks: {
      around: aroundOn('auth.login', async (params, next) => {
        const out = await next(params);
        const issued = out as { token?: unknown; expires_in?: unknown };
        return typeof issued?.expires_in === 'number' ? { ...issued, expires_in: issued.expires_in * 1000 } : out;
      }),
    },
  },
];
