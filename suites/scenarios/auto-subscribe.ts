import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { readList, waitFor } from '../conform/check-helpers.ts';
import { duplicateCreate, unknownDelete } from './duplicates.ts';

/**
 * Auto-subscribe rules (spec: Auto-subscribe rule; Limits: name, tenant, topic 1-256). The generic
 * checks cover lengths, qos and retained_handling 0-2 (3 and -1 refused), the required booleans, the
 * fuzzy filters, sorting, paging and create → list → delete; here: the list's text labels for the
 * numbers sent, and (with an MQTT client in the rule's tenant) the rule applied on connect.
 */

const RULE = familyByKey('auto-subscribe');
const QOS = ['AtMostOnce', 'AtLeastOnce', 'ExactlyOnce'];
const RETAIN = ['OnEverySubscribe', 'OnNewSubscribe', 'Never'];

export const autoSubscribe: ScenarioSuite = {
  name: 'auto-subscribe',
  tags: ['auto-subscribe'],
  scenarios: [
    {
      endpoint: 'GET /api/mqtt/auto-subscribe/list',
      checks: ['auto-subscribe.list-labels', 'auto-subscribe.label-names'],
      assertion: 'resources.auto-subscribe.qos',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = {
          ...fixtureFields(ctx, RULE, '-lb'),
          qos: 2,
          retained_handling: 1,
          no_local: true,
          retain_as_published: true,
        };
        const ex = (await env.resources.create(RULE, fields, 'check'))!;
        const got = succeeded(ex) ? await readList(ctx, e.path, { tenant: fields.tenant, name: fields.name }) : undefined;
        const row = got?.rows.find((r) => r.name === fields.name && r.tenant === fields.tenant);
        await ctx.check(e, 'auto-subscribe.list-labels', 'resources.auto-subscribe.qos', () => {
          if (!succeeded(ex)) return skip(`the rule could not be created (${describeAnswer(ex)})`);
          if (!row) return fail(`the rule ${String(fields.name)} is not listed`, got?.ex);
          // Spec: qos and retained_handling are numbers on create and text labels in the list.
          if (typeof row.qos !== 'string' || typeof row.retained_handling !== 'string')
            return fail(
              `qos and retained_handling must be text labels in the list, got ${JSON.stringify({ qos: row.qos, retained_handling: row.retained_handling })}`,
              got?.ex,
            );
          if (row.no_local !== true || row.retain_as_published !== true)
            return fail(
              `no_local and retain_as_published were created true, listed ${JSON.stringify({ no_local: row.no_local, retain_as_published: row.retain_as_published })}`,
              got?.ex,
            );
          return pass(`qos 2 listed as ${JSON.stringify(row.qos)}, retained_handling 1 as ${JSON.stringify(row.retained_handling)}`);
        });
        await ctx.check(e, 'auto-subscribe.label-names', 'decision.auto-subscribe.sort-fields', () => {
          if (!row) return skip('no listed rule to look at');
          const want = { qos: QOS[2], retained_handling: RETAIN[1] };
          return row.qos === want.qos && row.retained_handling === want.retained_handling
            ? pass(`the labels are ${want.qos} and ${want.retained_handling}`)
            : fail(
                `expected the labels ${JSON.stringify(want)} (the project's names for 2 and 1), got ${JSON.stringify({ qos: row.qos, retained_handling: row.retained_handling })}`,
                got?.ex,
              );
        });
        if (succeeded(ex)) await env.resources.delete(RULE, fields, 'cleanup');
      },
    },
    {
      endpoint: 'POST /api/mqtt/auto-subscribe/create',
      checks: ['auto-subscribe.applies-on-connect'],
      assertion: 'service.manage',
      needs: ['mqtt-client'],
      async run(ctx, e, env) {
        const mqtt = ctx.mqtt!;
        await ctx.check(e, 'auto-subscribe.applies-on-connect', 'service.manage', async () => {
          if (mqtt.tenant === undefined)
            return skip(`the MQTT client (${mqtt.via}) does not connect in a known tenant, so the rule's tenant cannot be chosen`);
          const topic = `conform/${ctx.seed}/auto/#`;
          const fields: Record<string, unknown> = { ...fixtureFields(ctx, RULE, '-ap'), tenant: mqtt.tenant, topic };
          const created = (await env.resources.create(RULE, fields, 'check'))!;
          if (!succeeded(created)) return skip(`the rule could not be created (${describeAnswer(created)})`);
          const clientId = `conform-${ctx.seed}-auto`;
          const session = await mqtt.connect(clientId);
          try {
            if ('ok' in session) return skip(`the client could not connect: ${session.reason}`);
            const found = await waitFor(ctx, 3000, 250, async () => {
              const got = await readList(ctx, '/api/mqtt/subscribe/list', { tenant: mqtt.tenant, client_id: clientId });
              return got?.rows.find((r) => r.client_id === clientId && r.path === topic);
            });
            return found
              ? pass(`a client connecting in ${mqtt.tenant} is subscribed to ${topic} by the rule`)
              : fail(`client ${clientId} connected in tenant ${mqtt.tenant} but has no subscription to the rule's topic ${topic}`);
          } finally {
            if (!('ok' in session)) await session.close();
            await env.resources.delete(RULE, fields, 'cleanup');
          }
        });
      },
    },
    duplicateCreate('auto-subscribe', 'decision.rules.duplicates'),
    unknownDelete('auto-subscribe', 'decision.rules.duplicates'),
  ],
};
