import { runReplicaInvariants } from '../conform/checks/consistency-checks.ts';
import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { FamilySuite } from './family-suite.ts';
import { dataOf, readList, type Row } from './helpers.ts';

/**
 * Storage engine (spec: Storage segment and replica; Storage engine — segment detail and
 * replica-state are in the spec's Index; shard and segment lists are path only, INFO). The replica
 * states agree with each other and with the segment; the local replica-state agrees with detail.
 */

const STABLE = ['node_id', 'replica_seq', 'is_leader', 'role', 'leader_epoch', 'segment_epoch', 'fold'];

export const storageEngine: FamilySuite = {
  family: 'storage-engine',
  tags: ['storage-engine'],
  scenarios: [
    {
      endpoint: 'POST /api/storage-engine/segment/detail',
      checks: ['segment.replica-invariants'],
      assertion: 'endpoints.segment.detail.response',
      run: (ctx, e, env) => runReplicaInvariants(ctx, e, env.resources),
    },
    {
      endpoint: 'POST /api/storage-engine/segment/detail',
      checks: ['segment.detail-unknown-shard'],
      assertion: 'decision.segment.unknown',
      async run(ctx, e) {
        await ctx.check(e, 'segment.detail-unknown-shard', 'decision.segment.unknown', async () => {
          const ex = await ctx.call(e, { shard_name: `conform-no-such-shard-${ctx.seed}`, segment_seq: 0 });
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          return succeeded(ex) ? fail(`the detail of a shard that does not exist was answered: ${describeAnswer(ex)}`, ex) : pass(`refused: ${describeAnswer(ex)}`);
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/segment/replica-state',
      checks: ['replica-state.matches-detail'],
      assertion: 'endpoints.replica-state.response',
      async run(ctx, e, env) {
        const detailEndpoint = ctx.endpoint('POST', '/api/storage-engine/segment/detail');
        await ctx.check(e, 'replica-state.matches-detail', 'endpoints.replica-state.response', async () => {
          if (!detailEndpoint || !env.happy || !succeeded(env.happy)) return skip('no local replica state to compare');
          const local = dataOf(env.happy)!;
          const detail = await ctx.call(detailEndpoint, env.params);
          if (!succeeded(detail)) return fail(`segment detail of the same segment was refused: ${describeAnswer(detail)}`, detail);
          const replicas = (dataOf(detail)?.replicas ?? []) as Row[];
          const same = replicas.find((r) => Number(r.node_id) === Number(local.node_id));
          if (local.available === false) return pass('the answering node holds no replica of the segment (available false)', undefined, true);
          if (!same) return fail(`replica-state is of node ${String(local.node_id)}, which segment detail does not list among ${JSON.stringify(replicas.map((r) => r.node_id))}`, detail);
          const differ = STABLE.filter((k) => k in local && JSON.stringify(local[k]) !== JSON.stringify(same[k]));
          if (differ.length > 0) return fail(`replica-state and segment detail disagree on ${differ.map((k) => `${k} (${JSON.stringify(local[k])} vs ${JSON.stringify(same[k])})`).join(', ')}`, detail);
          // Agreement on zeros and empty values only is what two placeholder answers would show too.
          const specific = STABLE.filter((k) => k in local && local[k] !== 0 && local[k] !== '' && local[k] !== null && local[k] !== false);
          return pass(`node ${String(local.node_id)}'s replica state agrees with segment detail`, undefined, specific.length === 0 || Number(local.node_id) < 1);
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/shard/list',
      checks: ['shard.created-listed'],
      assertion: 'notes.shape.shard-list',
      async run(ctx, e, env) {
        const shard = env.resources.fixtures.get('shard');
        await ctx.check(e, 'shard.created-listed', 'notes.shape.shard-list', async () => {
          if (!shard) return skip('the run has no shard of its own');
          const got = await readList(ctx, e.path, { shard_name: shard.shard_name });
          if (!got || !succeeded(got.ex)) return fail(`the shard list was refused: ${got ? describeAnswer(got.ex) : 'no endpoint'}`, got?.ex);
          return JSON.stringify(got.rows).includes(String(shard.shard_name)) ? pass(`the shard ${String(shard.shard_name)} is listed`) : fail(`the shard ${String(shard.shard_name)} created by the run is not listed`, got.ex);
        });
      },
    },
  ],
};
