import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import { messageTopic } from '../conform/scenarios.ts';
import type { FamilySuite } from './family-suite.ts';
import { dataOf, type Row } from './helpers.ts';

/**
 * Offsets and messages (spec: path only; shapes from the reference notes, INFO): a message sent to a
 * topic is read back from the offset the send answered; a committed offset shows in its group.
 */

export const offsetsMessages: FamilySuite = {
  family: 'offsets-messages',
  tags: ['offsets-messages'],
  scenarios: [
    {
      endpoint: 'POST /api/mqtt/message/send',
      checks: ['message.send-read-roundtrip'],
      assertion: 'notes.message-read.response',
      async run(ctx, e) {
        const read = ctx.endpoint('POST', '/api/mqtt/message/read');
        const t = await messageTopic(ctx);
        await ctx.check(e, 'message.send-read-roundtrip', 'notes.message-read.response', async () => {
          if (!read || !t) return skip('no message read endpoint or no topic');
          const payload = `mqsim conform round trip ${ctx.seed}`;
          const sent = await ctx.call(e, { tenant: t.tenant, topic: t.topic_name, payload });
          const offset = (dataOf(sent)?.offsets as unknown[] | undefined)?.[0];
          if (!succeeded(sent) || typeof offset !== 'number') return fail(`the send answered no offset: ${describeAnswer(sent)}`, sent);
          const got = await ctx.call(read, { tenant: t.tenant, topic: t.topic_name, offset });
          const messages = (dataOf(got)?.messages ?? []) as Row[];
          const found = messages.find((m) => m.offset === offset);
          if (!found) return fail(`reading from offset ${offset} did not return the record at ${offset}: ${describeAnswer(got)}`, got);
          return found.content === payload ? pass(`the message sent at offset ${offset} is read back`) : fail(`offset ${offset} holds ${JSON.stringify(found.content)}, sent ${JSON.stringify(payload)}`, got);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/offset/commit',
      checks: ['offset.commit-visible'],
      assertion: 'notes.offset-group.response',
      async run(ctx, e, env) {
        const group = ctx.endpoint('POST', '/api/cluster/offset/group');
        await ctx.check(e, 'offset.commit-visible', 'notes.offset-group.response', async () => {
          const sent = env.happy?.sent.body as Row | undefined;
          if (!group || !env.happy || !succeeded(env.happy) || !sent) return skip('no successful commit to read back');
          const got = await ctx.call(group, { tenant: sent.tenant, group_name: sent.group_name });
          const offsets = (dataOf(got)?.offsets ?? []) as Row[];
          const want = (sent.offsets as Row[])[0];
          const row = offsets.find((o) => o.shard_name === want.shard_name);
          if (!row) return fail(`the committed offset of ${String(want.shard_name)} is not in the group's offsets: ${JSON.stringify(offsets).slice(0, 160)}`, got);
          return row.offset === want.offset ? pass(`offset ${String(want.offset)} of ${String(want.shard_name)} read back`) : fail(`committed ${String(want.offset)}, the group shows ${String(row.offset)}`, got);
        });
      },
    },
  ],
};
