import { describeAnswer, envelopeOf, fail, inconclusive, pass, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { buildParams } from '../../contract/minimal-params.ts';
import { listingEndpointId, recordIdentity } from '../../contract/family-rules.ts';
import { endpointById, familyByKey } from '../../contract/index.ts';
import type { ResourceFamilyContract } from '../../contract/core/types.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { Scenario } from './scenario-suite.ts';
import { readList } from '../conform/check-helpers.ts';

/**
 * The project's decisions where the spec is silent on a create of a name that exists and a delete
 * of one that does not (INFO): both fail as a generic failure (code 1, or 100) with a text saying so.
 * The duplicate is the run's fixture sent again (an upsert leaves it as it was); the unknown name is
 * one the run never creates, so a server answering success deletes nothing.
 */

const GENERIC_FAILURE: readonly number[] = [1, 100];

function expectFailure(ex: Exchange, what: string, text: RegExp): Verdict {
  if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
  if (succeeded(ex)) return fail(`${what} was answered as a success: ${describeAnswer(ex)}`, ex);
  const env = envelopeOf(ex);
  if (!env || !GENERIC_FAILURE.includes(env.code) || !text.test(env.text ?? ''))
    return fail(`${what}: expected code 1 with a text matching ${text}, got ${describeAnswer(ex)}`, ex);
  return pass(`${what}: refused (${describeAnswer(ex)})`);
}

/** `POST /path` of the family's endpoint in `role` (the scenarios of the built-in families). */
const endpointOf = (family: ResourceFamilyContract, role: 'create' | 'delete'): string =>
  `POST ${endpointById(family.endpoints[role]).path}`;

/** A create of the family's fixture, which exists: refused with a text that it already exists. */
export function duplicateCreate(familyKey: string, assertion: string, checkId = `${familyKey}.create-duplicate`): Scenario {
  const family = familyByKey(familyKey);
  return {
    endpoint: endpointOf(family, 'create'),
    checks: [checkId],
    assertion,
    async run(ctx, e, env) {
      const fixture = env.resources.fixtures.get(familyKey);
      await ctx.check(e, checkId, assertion, async () => {
        if (!fixture)
          return inconclusive(
            `the run's ${familyKey} fixture could not be created (${env.resources.fixtureProblems.get(familyKey) ?? 'no create was answered'}), so there is none to create again`,
          );
        // Sent directly, not tracked: an accepted duplicate is the fixture itself, deleted once at cleanup.
        const ex = await ctx.call(e, buildParams(e, fixture));
        return expectFailure(
          ex,
          `a create of the ${familyKey} ${JSON.stringify(recordIdentity(family, fixture) ?? {})}, which exists`,
          /already exist/i,
        );
      });
    },
  };
}

/** A delete of a name the run never creates: refused with a text that it does not exist. */
export function unknownDelete(familyKey: string, assertion: string, checkId = `${familyKey}.delete-unknown`): Scenario {
  const family = familyByKey(familyKey);
  return {
    endpoint: endpointOf(family, 'delete'),
    checks: [checkId],
    assertion,
    async run(ctx, e) {
      await ctx.check(e, checkId, assertion, async () => {
        const fields = fixtureFields(ctx, family, '-never-created');
        const ex = await ctx.call(e, buildParams(e, fields));
        return expectFailure(
          ex,
          `a delete of the ${familyKey} ${JSON.stringify(recordIdentity(family, fields) ?? {})}, which does not exist`,
          /does not exist|not (been )?found/i,
        );
      });
    },
  };
}

/**
 * A create naming a tenant that was never created is accepted (decision: users, ACL rules and
 * connectors may name such a tenant; the spec does not say it must exist). Deleted again at once.
 */
export function implicitTenant(familyKey: string, assertion: string, checkId = `${familyKey}.tenant-never-created`): Scenario {
  const family = familyByKey(familyKey);
  return {
    endpoint: endpointOf(family, 'create'),
    checks: [checkId],
    assertion,
    async run(ctx, e, env) {
      const fields: Record<string, unknown> = { ...fixtureFields(ctx, family, '-ti'), tenant: `${ctx.names.tenant}-implicit` };
      const ex = (await env.resources.create(family, fields, 'check'))!;
      // Accepted and applied: the instance is listed under that tenant (a server acknowledging anything shows nothing).
      const identity = recordIdentity(family, fields) ?? {};
      const listId = listingEndpointId(family);
      const listPath = listId !== undefined ? endpointById(listId).path : undefined;
      const listed =
        succeeded(ex) && listPath
          ? (await readList(ctx, listPath, { tenant: fields.tenant }))?.rows.some((r) =>
              Object.entries(identity).every(([k, v]) => r[k] === v),
            )
          : undefined;
      if (succeeded(ex)) await env.resources.delete(family, fields, 'cleanup');
      await ctx.check(e, checkId, assertion, () => {
        if (!succeeded(ex)) return fail(`a ${familyKey} naming a tenant that was never created was refused: ${describeAnswer(ex)}`, ex);
        if (!listed)
          return inconclusive(
            `a ${familyKey} in the tenant ${String(fields.tenant)}, never created, was acknowledged but is not listed, so the acceptance shows nothing`,
            ex,
          );
        return pass(`a ${familyKey} in the tenant ${String(fields.tenant)}, never created, was accepted and is listed`);
      });
    },
  };
}

/**
 * Topic create past the tenant's max_topics fails (decision.topic-create.duplicate, second clause): a
 * tenant of the run with max_topics 1 takes one topic and refuses a second. Everything is deleted again.
 */
export function topicQuota(assertion: string, checkId = 'topic.create-past-max-topics'): Scenario {
  const tenantFamily = familyByKey('tenant');
  const topicFamily = familyByKey('topic');
  return {
    endpoint: endpointOf(topicFamily, 'create'),
    checks: [checkId],
    assertion,
    async run(ctx, e, env) {
      const tenant: Record<string, unknown> = { ...fixtureFields(ctx, tenantFamily, '-quota'), config: { max_topics: 1 } };
      const made = (await env.resources.create(tenantFamily, tenant, 'fixture'))!;
      const topics = [1, 2].map((n) => ({ ...fixtureFields(ctx, topicFamily, `-quota${n}`), tenant: tenant.tenant_name }));
      try {
        await ctx.check(e, checkId, assertion, async () => {
          if (!succeeded(made)) return inconclusive(`a tenant with max_topics 1 could not be created (${describeAnswer(made)})`);
          const first = (await env.resources.create(topicFamily, topics[0], 'check'))!;
          if (!succeeded(first))
            return inconclusive(`the first topic of a tenant with max_topics 1 was refused (${describeAnswer(first)})`);
          const second = (await env.resources.create(topicFamily, topics[1], 'check'))!;
          return expectFailure(second, `a second topic in the tenant ${String(tenant.tenant_name)} with max_topics 1`, /.+/);
        });
      } finally {
        for (const t of topics) if (env.resources.isTracked(topicFamily, t)) await env.resources.delete(topicFamily, t, 'cleanup');
        if (succeeded(made)) await env.resources.delete(tenantFamily, tenant, 'cleanup');
      }
    },
  };
}
