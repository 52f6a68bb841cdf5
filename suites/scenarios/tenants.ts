import { TENANT_QUOTA_FIELDS } from '../../contract/endpoints/tenants.ts';
import { runErrorCaseChecks, runUpdateVisible } from '../conform/checks/behaviour-checks.ts';
import { runTenantDefaults } from '../conform/checks/consistency-checks.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, inconclusive, pass, skip, succeeded } from '../conform/conform-context.ts';
import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { readList, type Row, rowsOf, totalOf } from '../conform/check-helpers.ts';
import type { Exchange } from '../conform/exchange.ts';
import { duplicateCreate, unknownDelete } from './duplicates.ts';

/**
 * Tenants (spec: Tenant; Tenants; Limits). Beyond the generic checks (lengths 1-128 and 500, the
 * fuzzy tenant_name filter, sorting, paging, create → list → delete): the default quota, update
 * with and without a config, the not-found text, and the default page of 100.
 */

const TENANT = familyByKey('tenant');

async function tenantRow(ctx: ConformContext, name: string): Promise<{ row?: Row; ex?: Exchange }> {
  const got = await readList(ctx, '/api/cluster/tenant/list', { tenant_name: name });
  if (!got) return {};
  return { row: got.rows.find((r) => r.tenant_name === name), ex: got.ex };
}

const quotaOf = (row: Row | undefined): Row => (row?.config ?? {}) as Row;

export const tenants: ScenarioSuite = {
  name: 'tenants',
  tags: ['tenants'],
  scenarios: [
    {
      endpoint: 'POST /api/cluster/tenant/create',
      checks: ['tenant.default-quota'],
      assertion: 'endpoints.tenant.create',
      run: (ctx, e, env) => runTenantDefaults(ctx, e, env.resources),
    },
    {
      endpoint: 'POST /api/cluster/tenant/create',
      checks: ['tenant.partial-config'],
      assertion: 'decision.tenant.update-partial',
      async run(ctx, e, env) {
        // The spec: "defaults apply when omitted" — for single omitted fields of a given config, a decision.
        const fields: Record<string, unknown> = { ...fixtureFields(ctx, TENANT, '-pq'), config: { max_topics: 777 } };
        const ex = (await env.resources.create(TENANT, fields, 'check'))!;
        await ctx.check(e, 'tenant.partial-config', 'decision.tenant.update-partial', async () => {
          if (!succeeded(ex)) return skip(`a tenant with a partial config was refused (${describeAnswer(ex)})`);
          const { row, ex: list } = await tenantRow(ctx, String(fields.tenant_name));
          if (!row) return fail(`the tenant ${String(fields.tenant_name)} is not listed`, list);
          const q = quotaOf(row);
          const wrong = TENANT_QUOTA_FIELDS.filter((f) => q[f.name] !== (f.name === 'max_topics' ? 777 : f.default));
          return wrong.length > 0
            ? fail(`config {max_topics: 777} gave ${JSON.stringify(q)}: the given field as sent, the others at their defaults`, list)
            : pass('max_topics 777 as given, the other quota fields at their defaults');
        });
        if (succeeded(ex)) await env.resources.delete(TENANT, fields, 'cleanup');
      },
    },
    {
      endpoint: 'POST /api/cluster/tenant/update',
      checks: ['update.visible-in-list', 'error.tenant-not-found'],
      assertion: 'endpoints.tenant.update',
      async run(ctx, e, env) {
        await runUpdateVisible(ctx, e, env.happy);
        await runErrorCaseChecks(ctx, e);
      },
    },
    {
      endpoint: 'POST /api/cluster/tenant/update',
      checks: ['tenant.update-config-visible', 'tenant.update-keeps-desc', 'tenant.update-keeps-quota'],
      assertion: 'endpoints.tenant.update',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = { ...fixtureFields(ctx, TENANT, '-up'), config: { max_topics: 1234, max_sessions: 4321 } };
        const created = (await env.resources.create(TENANT, fields, 'check'))!;
        if (!succeeded(created)) {
          for (const id of ['tenant.update-config-visible', 'tenant.update-keeps-desc', 'tenant.update-keeps-quota'])
            await ctx.check(e, id, id === 'tenant.update-keeps-desc' ? 'decision.tenant.update-partial' : 'endpoints.tenant.update', () =>
              skip(`the tenant to update could not be created (${describeAnswer(created)})`),
            );
          return;
        }
        const name = String(fields.tenant_name);
        await ctx.check(e, 'tenant.update-config-visible', 'endpoints.tenant.update', async () => {
          const ex = await ctx.call(e, {
            tenant_name: name,
            desc: 'quota raised by mqsim conform',
            config: { max_topics: 2468, max_sessions: 4321 },
          });
          if (!succeeded(ex)) return fail(`updating the quota was refused: ${describeAnswer(ex)}`, ex);
          const { row, ex: list } = await tenantRow(ctx, name);
          const got = quotaOf(row).max_topics;
          return got === 2468
            ? pass('the new max_topics is listed')
            : fail(`config.max_topics was updated to 2468, the list shows ${JSON.stringify(got)}`, list);
        });
        await ctx.check(e, 'tenant.update-keeps-desc', 'decision.tenant.update-partial', async () => {
          const { row: before } = await tenantRow(ctx, name);
          const ex = await ctx.call(e, { tenant_name: name, config: { max_topics: 2468, max_sessions: 4321 } });
          if (!succeeded(ex)) return skip(`an update without desc was refused (${describeAnswer(ex)})`);
          const { row: after, ex: list } = await tenantRow(ctx, name);
          if (!before || !after) return fail(`the tenant ${name} is not listed`, list);
          // The spec says an omitted config keeps the quota, and nothing of an omitted desc: keeping it is the project's reading.
          return after.desc === before.desc
            ? pass(`an update without desc kept ${JSON.stringify(after.desc)}`, undefined, !before.desc)
            : fail(`an update without desc changed it from ${JSON.stringify(before.desc)} to ${JSON.stringify(after.desc)}`, list);
        });
        await ctx.check(e, 'tenant.update-keeps-quota', 'endpoints.tenant.update', async () => {
          const { row: before } = await tenantRow(ctx, name);
          const ex = await ctx.call(e, { tenant_name: name, desc: 'description only' });
          if (!succeeded(ex)) return fail(`an update without config was refused: ${describeAnswer(ex)}`, ex);
          const { row: after, ex: list } = await tenantRow(ctx, name);
          if (!before || !after) return fail(`the tenant ${name} is not listed`, list);
          // Spec: "config (optional; when omitted the existing quota stays)".
          return JSON.stringify(quotaOf(after)) === JSON.stringify(quotaOf(before))
            ? pass('an update without config kept the quota')
            : fail(
                `an update without config changed the quota from ${JSON.stringify(quotaOf(before))} to ${JSON.stringify(quotaOf(after))}`,
                list,
              );
        });
        await env.resources.delete(TENANT, fields, 'cleanup');
      },
    },
    {
      endpoint: 'GET /api/cluster/tenant/list',
      checks: ['tenant.default-limit-100'],
      assertion: 'limits.list-limit-default',
      async run(ctx, e, env) {
        await ctx.check(e, 'tenant.default-limit-100', 'limits.list-limit-default', async () => {
          const probe = await ctx.call(e, { limit: 1 });
          const total = totalOf(probe);
          if (total === undefined) return inconclusive(`the list gave no total_count (${describeAnswer(probe)})`);
          // Enough tenants of the run to pass the default page size of 100, deleted again at once.
          const made: Row[] = [];
          try {
            for (let i = 0; total + made.length <= 100 && i < 101; i++) {
              const fields = fixtureFields(ctx, TENANT, `-dl${i}`);
              if (succeeded((await env.resources.create(TENANT, fields, 'fixture'))!)) made.push(fields);
              else break;
            }
            const page = await ctx.call(e, {});
            const rows = rowsOf(page);
            const now = totalOf(page) ?? 0;
            // With 100 or fewer, a page of every tenant looks the same as the default page.
            if (now <= 100) return inconclusive(`only ${now} tenants: could not create enough to pass 100`);
            return rows.length === 100
              ? pass(`${now} tenants, the default page holds 100`)
              : fail(`${now} tenants: without limit the page must hold 100 (the tenant list's default), got ${rows.length}`, page);
          } finally {
            for (const fields of made) await env.resources.delete(TENANT, fields, 'cleanup');
          }
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/tenant/create',
      checks: ['tenant.non-ascii-name', 'tenant.body-too-large'],
      assertion: 'decision.non-ascii-text',
      async run(ctx, e, env) {
        // Decision: names outside ASCII are accepted, and a length counts code points: 128 of them (245 UTF-16
        // units, 479 UTF-8 bytes) is within tenant_name's 1-128.
        const stem = `${ctx.names.tenant}-u`;
        const fields: Record<string, unknown> = {
          tenant_name: `${stem}${'\u{1F600}'.repeat(128 - [...stem].length)}`,
          desc: 'Mandant für mqsim — 測試',
        };
        const ex = (await env.resources.create(TENANT, fields, 'check'))!;
        await ctx.check(e, 'tenant.non-ascii-name', 'decision.non-ascii-text', async () => {
          if (!succeeded(ex))
            return fail(
              `a tenant_name of 128 code points outside ASCII (and a desc with accents and CJK) was refused: ${describeAnswer(ex)}`,
              ex,
            );
          const { row, ex: list } = await tenantRow(ctx, String(fields.tenant_name));
          if (!row) return fail('the tenant with a non-ASCII name was accepted but is not listed under that name', list);
          return row.desc === fields.desc
            ? pass('a 128-code-point non-ASCII tenant_name was accepted and listed as sent, desc too')
            : fail(`desc was sent as ${JSON.stringify(fields.desc)}, listed as ${JSON.stringify(row.desc)}`, list);
        });
        if (succeeded(ex)) await env.resources.delete(TENANT, fields, 'cleanup');
        // Decision: a body over 2 MiB is refused with HTTP 413 and code 400 (the spec states no size limit).
        const big: Record<string, unknown> = { ...fixtureFields(ctx, TENANT, '-big'), desc: 'x'.repeat(2 * 1024 * 1024 + 1024) };
        const tooLarge = (await env.resources.create(TENANT, big, 'check'))!;
        if (succeeded(tooLarge)) await env.resources.delete(TENANT, big, 'cleanup');
        await ctx.check(e, 'tenant.body-too-large', 'decision.body-too-large', () => {
          if (!tooLarge.response) return fail(`no answer: ${tooLarge.error}`, tooLarge);
          const code = envelopeOf(tooLarge)?.code;
          if (tooLarge.response.status !== 413 || code !== 400)
            return fail(
              `a body of more than 2 MiB must be refused with HTTP 413 and code 400, got HTTP ${tooLarge.response.status}${code === undefined ? ' without an envelope' : `, code ${code}`}`,
              tooLarge,
            );
          return pass(`a body of more than 2 MiB: ${describeAnswer(tooLarge)}`);
        });
      },
    },
    duplicateCreate('tenant', 'decision.tenant.exists'),
    unknownDelete('tenant', 'decision.tenant.delete-unknown'),
  ],
};
