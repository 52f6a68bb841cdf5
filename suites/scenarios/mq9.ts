import { type ConformContext, describeAnswer, envelopeOf, fail, inconclusive, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import type { Scenario, ScenarioSuite } from './scenario-suite.ts';
import { readList, totalOf } from '../conform/check-helpers.ts';

/** How far the expiry check moves a simulator's time ahead of its wall clock first (see there). */
const WALL_CLOCK_LEAD_MS = 10_000;

/**
 * mq9 mailboxes and agents (spec: mq9; Limits: mq9 lists default 20). HTTP offers queries only:
 * mailboxes and agents come from protocol commands, so the checks that need some of the run's own,
 * or the component switched off, need the simulator's control. The generic checks cover the exact
 * tenant and fuzzy filters, sorting, paging and create_time in Unix milliseconds.
 */

/** Lowercase letters, digits and dots: the mq9 address rule. */
const boxName = (ctx: ConformContext, i: number | string) => `conform.${ctx.seed}.box${i}`;

async function notRunning(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const control = ctx.target.control!;
  await ctx.check(e, 'mq9.not-running', 'errors.case.mq9-not-running', async () => {
    control.setMq9Running(false);
    try {
      const ex = await ctx.call(e, {});
      const env = envelopeOf(ex);
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      if (succeeded(ex)) return fail('the mq9 component is not running, but the list was answered as usual', ex);
      if (!env?.text || !/not running/i.test(env.text))
        return fail(`the error must state that the component is not running, got ${describeAnswer(ex)}`, ex);
      return pass(`"${env.text}"`);
    } finally {
      control.setMq9Running(true);
    }
  });
}

/** More records than the mq9 lists' default page of 20: a page of every record shows only past it. */
const PAST_DEFAULT = 21;

/**
 * The mq9 lists' default page size (Limits: "| list `limit` default | … 20 for mq9 lists |"; the mq9
 * paragraphs repeat it). Decided only with more than 20 records: then the page without limit holds
 * exactly 20. The run makes them in its tenant through the simulator's control (mailboxes and agents
 * come from protocol commands, not HTTP); on a target without one it counts the records already there,
 * and with 20 or fewer the check is inconclusive, never a pass.
 */
function defaultLimit(list: 'mail' | 'agent'): Scenario {
  const what = list === 'mail' ? 'mailboxes' : 'agents';
  return {
    endpoint: `GET /api/mq9/${list}/list`,
    checks: ['mq9.default-limit-20'],
    assertion: 'limits.list-limit-default',
    async run(ctx, e) {
      await ctx.check(e, 'mq9.default-limit-20', 'limits.list-limit-default', async () => {
        const control = ctx.target.control;
        const tenant = ctx.names.tenant;
        if (control)
          for (let i = 1; i <= PAST_DEFAULT; i++) {
            if (list === 'mail') control.createMailbox({ tenant, name: boxName(ctx, i), ttl: 3600, desc: '' });
            else {
              // Names that do not contain mq9.agent-listed's agent name, so its fuzzy read finds that one alone.
              const name = `conform-${ctx.seed}-bulk-agent-${i}`;
              control.registerAgent({
                tenant,
                name,
                agent_info: JSON.stringify({ name, description: 'agent of mqsim conform', skills: [] }),
              });
            }
          }
        // Without control, every record of the target counts: the run cannot add any.
        const ex = await ctx.call(e, control ? { tenant } : {});
        if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
        if (!succeeded(ex)) return inconclusive(`the list without limit was not answered with a page (${describeAnswer(ex)})`, ex);
        const rows = (envelopeOf(ex)?.data as { data?: unknown[] } | undefined)?.data ?? [];
        const total = totalOf(ex);
        if (total === undefined)
          return inconclusive(`the page has no total_count to count the ${what} by (data-schema judges its shape)`, ex);
        if (total <= 20)
          return inconclusive(
            control
              ? `only ${total} ${what} in ${tenant} after the run made ${PAST_DEFAULT}: a page of every record would look the same as 20`
              : `${total} ${what} on the target, and the run cannot make more (they are created by mq9 protocol commands, not HTTP, and the target has no simulator control): a page of every record would look the same as 20`,
          );
        return rows.length === 20
          ? pass(`${total} ${what}, the default page holds 20`)
          : fail(`${total} ${what}: without limit the page must hold 20 (the mq9 lists' default), got ${rows.length}`, ex);
      });
    },
  };
}

export const mq9: ScenarioSuite = {
  name: 'mq9',
  tags: ['mq9'],
  scenarios: [
    {
      endpoint: 'GET /api/mq9/mail/list',
      checks: ['mq9.not-running'],
      assertion: 'errors.case.mq9-not-running',
      needs: ['control'],
      run: notRunning,
    },
    {
      endpoint: 'GET /api/mq9/agent/list',
      checks: ['mq9.not-running'],
      assertion: 'errors.case.mq9-not-running',
      needs: ['control'],
      run: notRunning,
    },
    {
      endpoint: 'GET /api/mq9/mail/list',
      checks: ['mq9.mailbox-listed'],
      assertion: 'endpoints.mq9.protocol-create',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        const tenant = ctx.names.tenant;
        await ctx.check(e, 'mq9.mailbox-listed', 'endpoints.mq9.protocol-create', async () => {
          control.createMailbox({ tenant, name: boxName(ctx, 0), ttl: 3600, desc: 'mailbox of mqsim conform' });
          const got = await readList(ctx, e.path, { tenant, mail_address: boxName(ctx, 0) });
          const row = got?.rows.find((r) => r.mail_address === boxName(ctx, 0));
          if (!row)
            return {
              ...fail(`the mailbox ${boxName(ctx, 0)} created by AGENT.MAILBOX.CREATE is not listed`, got?.ex),
              also: ['service.mq9'],
            };
          if (row.tenant !== tenant || row.ttl !== 3600 || row.desc !== 'mailbox of mqsim conform')
            return { ...fail(`listed as ${JSON.stringify(row)}, created in ${tenant} with ttl 3600`, got?.ex), also: ['service.mq9'] };
          return { ...pass(`listed with tenant, ttl and desc as created, create_time ${String(row.create_time)}`), also: ['service.mq9'] };
        });
      },
    },
    {
      endpoint: 'GET /api/mq9/mail/list',
      checks: ['mq9.mailbox-expiry'],
      assertion: 'decision.mq9.mailbox-expiry',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        const tenant = ctx.names.tenant;
        const name = boxName(ctx, 'ttl');
        await ctx.check(e, 'mq9.mailbox-expiry', 'decision.mq9.mailbox-expiry', async () => {
          const listed = async () =>
            (await readList(ctx, e.path, { tenant, mail_address: name }))?.rows.some((r) => r.mail_address === name);
          // A simulator served on a wall clock moves its time on with every request; moved ahead of the
          // wall clock first, its time moves only by the advances below while the sequence takes less
          // wall time than the lead, so "2.999 s" is exact however slow the machine.
          const started = performance.now();
          await control.advance(WALL_CLOCK_LEAD_MS);
          control.createMailbox({ tenant, name, ttl: 3, desc: 'expiring mailbox of mqsim conform' });
          if (!(await listed())) return skip(`the mailbox ${name} just created is not listed (mq9.mailbox-listed judges that)`);
          await control.advance(2999);
          const listedBefore = await listed();
          await control.advance(1);
          const listedAfter = await listed();
          const tookMs = performance.now() - started;
          if (tookMs >= WALL_CLOCK_LEAD_MS)
            return inconclusive(`the sequence took ${Math.round(tookMs)} ms of wall time, longer than the ${WALL_CLOCK_LEAD_MS} ms lead`);
          if (!listedBefore) return fail(`the mailbox ${name} with ttl 3 left the list before 3 seconds had passed (2.999 s)`);
          return listedAfter
            ? fail(`the mailbox ${name} with ttl 3 is still listed 3 seconds after its create_time`)
            : pass('a mailbox with ttl 3 is listed at 2.999 s and gone at 3 s');
        });
      },
    },
    {
      endpoint: 'GET /api/mq9/agent/list',
      checks: ['mq9.agent-listed'],
      assertion: 'endpoints.mq9.protocol-create',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        const tenant = ctx.names.tenant;
        const name = `conform-agent-${ctx.seed}`;
        const card = JSON.stringify({ name, description: 'agent of mqsim conform', skills: [] });
        await ctx.check(e, 'mq9.agent-listed', 'endpoints.mq9.protocol-create', async () => {
          control.registerAgent({ tenant, name, agent_info: card });
          const got = await readList(ctx, e.path, { tenant, name });
          const row = got?.rows.find((r) => r.name === name);
          // "list mq9 mailboxes and agents" (service.mq9): the mailbox and the agent checks show both lists.
          if (!row) return { ...fail(`the agent ${name} registered by AGENT.REGISTER is not listed`, got?.ex), also: ['service.mq9'] };
          return {
            ...(row.agent_info === card && row.tenant === tenant
              ? pass('listed with its agent card')
              : fail(`listed as ${JSON.stringify(row).slice(0, 200)}`, got?.ex)),
            also: ['service.mq9'],
          };
        });
      },
    },
    // Last: the records they make must not crowd the lists the checks above read.
    defaultLimit('mail'),
    defaultLimit('agent'),
  ],
};
