import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { readList, rowsOf } from '../conform/check-helpers.ts';
import { duplicateCreate, implicitTenant, unknownDelete } from './duplicates.ts';

/**
 * Users (spec: User; Users and ACL; Limits: tenant 1-64, username 1-64, password 1-128). The generic
 * checks cover lengths, required fields, the exact tenant and fuzzy user_name filters, sorting by
 * username, paging and create → list → delete; here: the superuser flag round trip and the record
 * holding no password.
 */

const USER = familyByKey('user');

export const users: ScenarioSuite = {
  name: 'users',
  tags: ['users'],
  scenarios: [
    {
      endpoint: 'POST /api/cluster/user/create',
      checks: ['user.superuser-listed'],
      assertion: 'resources.user.record',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = { ...fixtureFields(ctx, USER, '-su'), is_superuser: true };
        const ex = (await env.resources.create(USER, fields, 'check'))!;
        await ctx.check(e, 'user.superuser-listed', 'resources.user.record', async () => {
          if (!succeeded(ex)) return fail(`a superuser could not be created: ${describeAnswer(ex)}`, ex);
          const got = await readList(ctx, '/api/cluster/user/list', { tenant: fields.tenant, user_name: fields.username });
          if (!got) return skip('the contract has no user list');
          const row = got.rows.find((r) => r.username === fields.username && r.tenant === fields.tenant);
          if (!row) return fail(`the user ${String(fields.username)} is not listed`, got.ex);
          return row.is_superuser === true
            ? pass('is_superuser true is listed as true')
            : fail(`created with is_superuser true, listed with ${JSON.stringify(row.is_superuser)}`, got.ex);
        });
        if (succeeded(ex)) await env.resources.delete(USER, fields, 'cleanup');
      },
    },
    {
      endpoint: 'GET /api/cluster/user/list',
      checks: ['user.no-password-listed'],
      assertion: 'decision.secrets-hidden',
      async run(ctx, e, env) {
        await ctx.check(e, 'user.no-password-listed', 'decision.secrets-hidden', () => {
          const rows = env.happy ? rowsOf(env.happy) : [];
          if (rows.length === 0) return skip('no user record to look at');
          const leaking = rows.filter((r) => Object.keys(r).some((k) => /pass(word)?|secret/i.test(k)));
          return leaking.length > 0
            ? fail(
                `${leaking.length} user records carry a password field (the spec's User has tenant, username, is_superuser, create_time)`,
                env.happy,
              )
            : pass(`${rows.length} user records, none with a password field`);
        });
      },
    },
    implicitTenant('user', 'decision.user.tenant-implicit'),
    duplicateCreate('user', 'decision.user.exists'),
    unknownDelete('user', 'decision.user.delete-unknown'),
  ],
};
