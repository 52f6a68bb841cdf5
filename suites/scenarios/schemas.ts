import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { expectRefused, readList } from '../conform/check-helpers.ts';

/**
 * Schemas and schema bindings (spec: path only; shapes from the reference notes, so INFO). The
 * generic checks cover lengths, schema_type values (each with a schema of its language), the
 * filters, sorting, paging and create → list → delete; here: a binding shows in the binding list,
 * and a schema text that is not of its type is refused.
 */

const SCHEMA = familyByKey('schema');

export const schemas: ScenarioSuite = {
  name: 'schemas',
  tags: ['schemas'],
  scenarios: [
    {
      endpoint: 'GET /api/cluster/schema-bind/list',
      checks: ['schema-bind.listed'],
      assertion: 'notes.shape.schema-bind',
      async run(ctx, e, env) {
        const bind = env.resources.fixtures.get('schema-bind');
        await ctx.check(e, 'schema-bind.listed', 'notes.shape.schema-bind', async () => {
          if (!bind) return skip('the run has no schema binding');
          const got = await readList(ctx, e.path, { tenant: bind.tenant, schema_name: bind.schema_name });
          if (!got || !succeeded(got.ex)) return fail('the binding list was refused', got?.ex);
          const text = JSON.stringify(got.rows);
          return text.includes(String(bind.resource_name))
            ? pass(`the binding of ${String(bind.schema_name)} to ${String(bind.resource_name)} is listed`)
            : fail(`the binding of ${String(bind.schema_name)} to ${String(bind.resource_name)} is missing: ${text.slice(0, 200)}`, got.ex);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/schema/create',
      checks: ['schema.invalid-text'],
      assertion: 'decision.schema.rules',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = { ...fixtureFields(ctx, SCHEMA, '-it'), schema_type: 'json', schema: 'this is not JSON' };
        const ex = (await env.resources.create(SCHEMA, fields, 'check'))!;
        if (succeeded(ex)) await env.resources.delete(SCHEMA, fields, 'cleanup');
        await ctx.check(e, 'schema.invalid-text', 'decision.schema.rules', () => expectRefused(ex, 'a json schema whose text is not JSON'));
      },
    },
    {
      endpoint: 'GET /api/cluster/schema-bind/list',
      checks: ['schema-bind.list-all'],
      assertion: 'decision.schema-bind.list-all',
      async run(ctx, e, env) {
        const bind = env.resources.fixtures.get('schema-bind');
        // Decision: without resource_name and schema_name, one row per bound resource, carrying tenant and name.
        await ctx.check(e, 'schema-bind.list-all', 'decision.schema-bind.list-all', async () => {
          if (!bind) return skip('the run has no schema binding');
          const got = await readList(ctx, e.path, { tenant: bind.tenant });
          if (!got || !succeeded(got.ex))
            return fail(`the binding list with only tenant was refused: ${got ? describeAnswer(got.ex) : 'no endpoint'}`, got?.ex);
          // A resource row names the resource (its `name`), with the schemas bound to it.
          const rows = got.rows.filter((r) => (r.name ?? r.resource_name) === bind.resource_name);
          if (rows.length !== 1)
            return fail(
              `without resource_name and schema_name the list must hold one row for the bound resource ${String(bind.resource_name)}, it holds ${rows.length}: ${JSON.stringify(got.rows).slice(0, 200)}`,
              got.ex,
            );
          const missing = ['tenant', 'name'].filter((k) => !(k in rows[0]));
          if (missing.length > 0)
            return fail(
              `the row of ${String(bind.resource_name)} lacks ${missing.join(' and ')}: ${JSON.stringify(rows[0]).slice(0, 160)}`,
              got.ex,
            );
          return pass(
            `one row for the bound resource ${String(bind.resource_name)}, with tenant and name (${got.rows.length} rows in the tenant)`,
          );
        });
      },
    },
  ],
};
