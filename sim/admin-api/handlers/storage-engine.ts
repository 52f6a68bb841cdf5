import { ENGINE_SHARD_CONFIG_FIELDS, endpoints } from '../../../contract/endpoints/storage-engine.ts';
import { failed, invalidParam } from '../../model/errors/operation-error.ts';
import { validateFields } from '../../model/api/validate-params.ts';
import type { EngineShardConfig } from '../../model/storage/shard-model.ts';
import type { ReplicaStateRecord } from '../../../contract/records.ts';
import { type HandlerContext, handlersFor } from '../core/handler-types.ts';

const REPLICA_STATE_PATH = '/api/storage-engine/segment/replica-state';

/** Parses and checks the JSON text `config` of shard create; a problem is a 400 naming `config.<field>`. */
function parseShardConfig(text: string): EngineShardConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw invalidParam('config', `invalid parameter 'config': Invalid config JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalidParam('config', "invalid parameter 'config': must be the JSON text of an object");
  const v = validateFields(ENGINE_SHARD_CONFIG_FIELDS, raw as Record<string, unknown>, 'body', 'config.');
  return {
    replica_num: v.replica_num as number,
    storage_type: v.storage_type as EngineShardConfig['storage_type'],
    max_segment_size: v.max_segment_size as number,
    max_record_num: (v.max_record_num as number | undefined) ?? null,
    retention_sec: v.retention_sec as number,
    min_in_sync_replicas: v.min_in_sync_replicas as number,
    is_inner_topic: v.is_inner_topic as boolean,
  };
}

/**
 * Asks `nodeId` for its replica state; any failure becomes that replica with available false and the
 * error. A node the simulated network cuts off from the answering node is not asked at all: the
 * listeners would reach each other over the real loopback, but the model says they cannot.
 */
async function remoteReplicaState(ctx: HandlerContext, nodeId: number, shardName: string, seq: number): Promise<ReplicaStateRecord> {
  const { cluster, peers, node } = ctx;
  if (cluster.nodes.get(nodeId)?.online === true && !cluster.network.reachable(node.id, nodeId)) {
    return cluster.storage.unreachableReplica(
      shardName,
      seq,
      nodeId,
      `node ${nodeId} is unreachable from node ${node.id}: the network between them is partitioned`,
    );
  }
  let error: string;
  try {
    const reply = await peers.call(nodeId, 'POST', REPLICA_STATE_PATH, { shard_name: shardName, segment_seq: seq });
    const body = JSON.parse(reply.body) as { code?: number; data?: ReplicaStateRecord; message?: string; error?: string };
    if (reply.status === 200 && body.code === 0 && body.data && typeof body.data === 'object') return body.data;
    error = `node ${nodeId} answered HTTP ${reply.status}: ${body.message ?? body.error ?? 'no replica state'}`;
  } catch (e) {
    error = (e as Error)?.message ?? String(e);
  }
  return cluster.storage.unreachableReplica(shardName, seq, nodeId, error);
}

export const handlers = handlersFor(endpoints, {
  'storage.shard.list': ({ cluster }) => cluster.storage.listing(),
  'storage.shard.create': ({ cluster, params }) => {
    const config = parseShardConfig(params.config);
    cluster.storage.createShard({ shard_name: params.shard_name, topic_name: params.topic_name, desc: params.desc, config });
    return 'success';
  },
  'storage.shard.delete': ({ cluster, params }) => {
    cluster.storage.deleteShard(params.shard_name);
    return 'success';
  },
  'storage.segment.list': ({ cluster, params }) => ({ segment_list: cluster.storage.segmentList(params.shard_name) }),
  'storage.segment.detail': async (ctx) => {
    const { cluster, node, params } = ctx;
    const shardName = params.shard_name;
    const seq = params.segment_seq;
    const detail = cluster.storage.segmentDetail(shardName, seq);
    if (!detail) throw failed(`segment ${shardName}/${seq} does not exist`);
    const replicas: ReplicaStateRecord[] = [];
    // One at a time, in replica order, so the peer calls land in the trace in a fixed order.
    for (const r of detail.segment.replicas) {
      replicas.push(
        r.node_id === node.id
          ? cluster.storage.replicaState(shardName, seq, node.id)
          : await remoteReplicaState(ctx, r.node_id, shardName, seq),
      );
    }
    return { segment: detail.segment, segment_meta: detail.segment_meta, replicas };
  },
  'storage.segment.replica-state': ({ cluster, node, params }) =>
    cluster.storage.replicaState(params.shard_name, params.segment_seq, node.id),
});
