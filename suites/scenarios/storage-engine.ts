import { runReplicaInvariants } from '../conform/checks/consistency-checks.ts';
import { describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { dataOf, readList, type Row } from '../conform/check-helpers.ts';

/**
 * Storage engine (spec: Storage segment and replica; Storage engine — segment detail and
 * replica-state are in the spec's Index; shard and segment lists are path only, INFO). The replica
 * states agree with each other and with the segment; the local replica-state agrees with detail.
 */

const STABLE = ['node_id', 'replica_seq', 'is_leader', 'role', 'leader_epoch', 'segment_epoch', 'fold'];

/** A segment's statuses and segment_meta's fields (notes §7). */
const SEGMENT_STATUSES = ['Write', 'PreSealUp', 'SealUp', 'PreDelete', 'Deleting', 'Unavailable'];
const SEGMENT_META_KEYS = ['shard_name', 'segment_seq', 'start_offset', 'end_offset', 'start_timestamp', 'end_timestamp'];

export const storageEngine: ScenarioSuite = {
  name: 'storage-engine',
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
          return succeeded(ex)
            ? fail(`the detail of a shard that does not exist was answered: ${describeAnswer(ex)}`, ex)
            : pass(`refused: ${describeAnswer(ex)}`);
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
          if (local.available === false)
            return pass('the answering node holds no replica of the segment (available false)', undefined, true);
          if (!same)
            return fail(
              `replica-state is of node ${String(local.node_id)}, which segment detail does not list among ${JSON.stringify(replicas.map((r) => r.node_id))}`,
              detail,
            );
          const differ = STABLE.filter((k) => k in local && JSON.stringify(local[k]) !== JSON.stringify(same[k]));
          if (differ.length > 0)
            return fail(
              `replica-state and segment detail disagree on ${differ.map((k) => `${k} (${JSON.stringify(local[k])} vs ${JSON.stringify(same[k])})`).join(', ')}`,
              detail,
            );
          // Agreement on zeros and empty values only is what two placeholder answers would show too.
          const specific = STABLE.filter((k) => k in local && local[k] !== 0 && local[k] !== '' && local[k] !== null && local[k] !== false);
          return pass(
            `node ${String(local.node_id)}'s replica state agrees with segment detail`,
            undefined,
            specific.length === 0 || Number(local.node_id) < 1,
          );
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/segment/replica-state',
      checks: ['replica-state.no-replica'],
      assertion: 'decision.replica-state.no-replica',
      async run(ctx, e, env) {
        const detailEndpoint = ctx.endpoint('POST', '/api/storage-engine/segment/detail');
        const config = ctx.endpoint('GET', '/api/cluster/config/get');
        await ctx.check(e, 'replica-state.no-replica', 'decision.replica-state.no-replica', async () => {
          if (!detailEndpoint || !config || !env.happy || !succeeded(env.happy))
            return skip('no replica state, segment detail or config get to compare');
          const local = Number(dataOf(await ctx.call(config, {}, 'fixture'))?.broker_id);
          const detail = await ctx.call(detailEndpoint, env.params, 'fixture');
          const holders = ((dataOf(detail)?.segment as Row | undefined)?.replicas ?? []) as Row[];
          if (!succeeded(detail) || !Number.isInteger(local))
            return skip(`the segment's replicas or the answering node are not known (${describeAnswer(detail)})`);
          if (holders.some((r) => Number(r.node_id) === local)) return skip(`the answering node ${local} holds a replica of the segment`);
          const state = dataOf(env.happy)!;
          return state.available === false && typeof state.error === 'string' && state.error.length > 0
            ? pass(
                `node ${local} holds no replica (they are on ${JSON.stringify(holders.map((r) => r.node_id))}): available false, error ${JSON.stringify(state.error)}`,
              )
            : fail(
                `node ${local} holds no replica of the segment, but replica-state answered available ${JSON.stringify(state.available)}, error ${JSON.stringify(state.error)}`,
                env.happy,
              );
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/shard/list',
      checks: ['shard.created-listed', 'shard.list-row-names'],
      assertion: 'notes.shape.shard-list',
      async run(ctx, e, env) {
        const shard = env.resources.fixtures.get('shard');
        const got = shard ? await readList(ctx, e.path, { shard_name: shard.shard_name }) : undefined;
        await ctx.check(e, 'shard.created-listed', 'notes.shape.shard-list', async () => {
          if (!shard) return skip('the run has no shard of its own');
          if (!got || !succeeded(got.ex))
            return fail(`the shard list was refused: ${got ? describeAnswer(got.ex) : 'no endpoint'}`, got?.ex);
          return JSON.stringify(got.rows).includes(String(shard.shard_name))
            ? pass(`the shard ${String(shard.shard_name)} is listed`)
            : fail(`the shard ${String(shard.shard_name)} created by the run is not listed`, got.ex);
        });
        // decision.shard.list-row: shard_name and topic_name beside shard_info, so the common filter and sort reach them.
        await ctx.check(e, 'shard.list-row-names', 'decision.shard.list-row', () => {
          if (!got || !succeeded(got.ex) || got.rows.length === 0) return skip('no shard record to look at');
          // Only the run's own shard tells: a placeholder row repeats placeholders.
          const own = got.rows.some((r) => r.shard_name === shard!.shard_name);
          for (const row of got.rows) {
            const info = (row.shard_info ?? {}) as Row;
            if (row.shard_name !== info.shard_name || row.topic_name !== info.topic_name)
              return fail(
                `a shard list row has shard_name ${JSON.stringify(row.shard_name)} and topic_name ${JSON.stringify(row.topic_name)} beside shard_info's ${JSON.stringify(info.shard_name)} and ${JSON.stringify(info.topic_name)}`,
                got.ex,
              );
          }
          return pass(`${got.rows.length} rows repeat shard_info's shard_name and topic_name`, undefined, !own);
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/shard/create',
      checks: ['shard.create-refusals'],
      assertion: 'decision.shard.rules',
      async run(ctx, e, env) {
        const shard = env.resources.fixtures.get('shard');
        await ctx.check(e, 'shard.create-refusals', 'decision.shard.rules', async () => {
          if (!shard) return skip('the run has no shard of its own');
          const again = await ctx.call(e, shard);
          if (succeeded(again)) return fail(`shard ${String(shard.shard_name)} exists, but a second create of it was accepted`, again);
          const nodes = (ctx.state.onlineNodeIds ?? []).length;
          if (nodes === 0) return pass(`a create of an existing shard is refused (${describeAnswer(again)})`);
          const fields = {
            ...shard,
            shard_name: `${String(shard.shard_name)}-wide`,
            config: JSON.stringify({ replica_num: nodes + 1, storage_type: 'EngineSegment', retention_sec: 86_400 }),
          };
          const wide = await ctx.call(e, fields);
          if (succeeded(wide)) {
            const del = ctx.endpoint('POST', '/api/storage-engine/shard/delete');
            if (del) await ctx.call(del, { shard_name: fields.shard_name }, 'cleanup');
            return fail(`a shard of ${nodes + 1} replicas was accepted with ${nodes} online nodes`, wide);
          }
          return pass(
            `refused: an existing name (${describeAnswer(again)}); replica_num ${nodes + 1} above the ${nodes} online nodes (${describeAnswer(wide)})`,
          );
        });
      },
    },
    {
      endpoint: 'POST /api/storage-engine/segment/list',
      checks: ['segment.list-note-shape'],
      assertion: 'notes.shape.segment',
      async run(ctx, e, env) {
        await ctx.check(e, 'segment.list-note-shape', 'notes.shape.segment', () => {
          const list = env.happy && succeeded(env.happy) ? ((dataOf(env.happy)?.segment_list ?? []) as Row[]) : undefined;
          if (!list || list.length === 0) return skip('no segment to look at');
          for (const r of list) {
            const seg = (r.segment ?? {}) as Row;
            if (!SEGMENT_STATUSES.includes(String(seg.status)))
              return fail(
                `segment ${String(seg.shard_name)}/${String(seg.segment_seq)} has status ${JSON.stringify(seg.status)}, none of ${SEGMENT_STATUSES.join(', ')}`,
                env.happy,
              );
            const meta = r.segment_meta as Row | null | undefined;
            if (meta === null) continue;
            const missing = SEGMENT_META_KEYS.filter((k) => !(meta && k in meta));
            if (missing.length > 0)
              return fail(`segment_meta of ${String(seg.shard_name)}/${String(seg.segment_seq)} lacks ${missing.join(', ')}`, env.happy);
          }
          return pass(`${list.length} segments: status one of the six, segment_meta {${SEGMENT_META_KEYS.join(', ')}}`);
        });
      },
    },
  ],
};
