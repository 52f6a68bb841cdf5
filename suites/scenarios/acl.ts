import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { readList } from '../conform/check-helpers.ts';
import { duplicateCreate, implicitTenant, unknownDelete } from './duplicates.ts';

/**
 * ACL rules (spec: ACL rule; Users and ACL; Limits). The generic checks cover the lengths, the three
 * enums (a bad value refused, every value accepted), the fuzzy tenant, name and resource_name
 * filters, sorting, paging and create → list → delete; here: the optional fields round trip.
 */

const ACL = familyByKey('acl');

export const acl: ScenarioSuite = {
  name: 'acl',
  tags: ['acl'],
  scenarios: [
    {
      endpoint: 'POST /api/cluster/acl/create',
      checks: ['acl.optional-fields-listed'],
      assertion: 'service.manage',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = {
          ...fixtureFields(ctx, ACL, '-of'),
          desc: 'optional fields',
          topic: 'conform/acl/optional/+',
          ip: '192.0.2.0/24',
          action: 'Subscribe',
          permission: 'Allow',
        };
        const ex = (await env.resources.create(ACL, fields, 'check'))!;
        await ctx.check(e, 'acl.optional-fields-listed', 'service.manage', async () => {
          if (!succeeded(ex)) return fail(`a rule with desc, topic and ip was refused: ${describeAnswer(ex)}`, ex);
          const got = await readList(ctx, '/api/cluster/acl/list', { tenant: fields.tenant, name: fields.name });
          if (!got) return skip('the contract has no ACL list');
          const row = got.rows.find((r) => r.name === fields.name && r.tenant === fields.tenant);
          if (!row) return fail(`the rule ${fields.name} is not listed`, got.ex);
          const wrong = (['desc', 'topic', 'ip', 'action', 'permission'] as const).filter((k) => row[k] !== fields[k]);
          return wrong.length > 0
            ? fail(`listed ${wrong.map((k) => `${k} ${JSON.stringify(row[k])} (sent ${JSON.stringify(fields[k])})`).join(', ')}`, got.ex)
            : pass('desc, topic, ip, action and permission listed as created');
        });
        if (succeeded(ex)) await env.resources.delete(ACL, fields, 'cleanup');
      },
    },
    implicitTenant('acl', 'decision.user.tenant-implicit'),
    duplicateCreate('acl', 'decision.acl.duplicate'),
    unknownDelete('acl', 'decision.acl.delete-unknown'),
  ],
};
