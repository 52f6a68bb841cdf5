import { unixSeconds } from '../api/time-format.ts';
import {
  activeSegment,
  highWatermark,
  leaderReplica,
  logEndOffset,
  maxSegmentBytes,
  segmentEnd,
  statusOf,
  type Replica,
  type Segment,
  type Shard,
} from './shard-model.ts';
import type {
  AdapterShardDetailRecord,
  EngineShardRecord,
  ReplicaStateRecord,
  SegmentMetaRecord,
  SegmentRecord,
} from '../../../contract/records.ts';

/**
 * The API shapes of shards, segments and replicas. The spec leaves most of them "not shown"; these
 * follow the real server's structures (reference notes §7), with the spec's `config` on segments.
 */

function engineShardView(shard: Shard): EngineShardRecord {
  return {
    shard_uid: shard.uid,
    shard_name: shard.name,
    topic_name: shard.topicName,
    start_segment_seq: shard.segments[0].seq,
    active_segment_seq: activeSegment(shard).seq,
    last_segment_seq: activeSegment(shard).seq,
    status: shard.status,
    config: { ...shard.config },
    desc: shard.desc,
    create_time: unixSeconds(shard.createdAt),
  };
}

export function shardDetailView(shard: Shard): AdapterShardDetailRecord {
  return {
    shard_name: shard.name,
    topic_name: shard.topicName,
    config: { ...shard.config },
    shard: engineShardView(shard),
    offset: { start_offset: shard.logStartOffset, end_offset: logEndOffset(shard), high_watermark: highWatermark(shard) },
    desc: shard.desc,
  };
}

export function segmentView(shard: Shard, seg: Segment): SegmentRecord {
  return {
    shard_name: shard.name,
    segment_seq: seg.seq,
    leader: seg.leaderNodeId,
    replicas: seg.replicas.map((r) => ({ replica_seq: r.replicaSeq, node_id: r.nodeId, fold: r.fold })),
    isr: [...seg.isr],
    last_known_isr: [...seg.lastKnownIsr],
    leader_epoch: seg.leaderEpoch,
    segment_epoch: seg.segmentEpoch,
    leader_broker_epoch: seg.leaderBrokerEpoch,
    status: statusOf(seg),
    config: { max_segment_size: maxSegmentBytes(shard.config) },
  };
}

export function segmentMetaView(shard: Shard, seg: Segment): SegmentMetaRecord {
  const end = segmentEnd(seg);
  const empty = end === seg.startOffset;
  return {
    shard_name: shard.name,
    segment_seq: seg.seq,
    start_offset: seg.startOffset,
    end_offset: empty ? seg.startOffset : end - 1,
    start_timestamp: seg.firstTimestampMs === null ? -1 : unixSeconds(seg.firstTimestampMs),
    end_timestamp: seg.lastTimestampMs === null ? -1 : unixSeconds(seg.lastTimestampMs),
  };
}

/**
 * A replica that could not be read: the placement fields come from the segment's metadata, the
 * rest are zero, `available` is false and `error` says why.
 */
export function unavailableReplicaView(seg: Segment | undefined, nodeId: number, error: string): ReplicaStateRecord {
  const r = seg?.replicas.find((x) => x.nodeId === nodeId);
  return {
    node_id: nodeId,
    replica_seq: r?.replicaSeq ?? 0,
    fold: r?.fold ?? '',
    is_leader: seg?.leaderNodeId === nodeId,
    in_isr: seg?.isr.includes(nodeId) ?? false,
    role: 'Unknown',
    leader_epoch: seg?.leaderEpoch ?? 0,
    segment_epoch: seg?.segmentEpoch ?? 0,
    leo: 0,
    high_watermark: 0,
    log_start_offset: 0,
    follower_progress: [],
    fetch: null,
    available: false,
    error,
  };
}

/** What the replica state view reads beside the segment: the node's liveness and the fetchers' figures. */
export interface ReplicaStateSources {
  replicaFetchMaxBytes: number;
  isOnline(nodeId: number): boolean;
  lastCaughtUpMs(seg: Segment, replica: Replica): number;
  fetcherIndex(follower: number, leader: number): number;
}

/** The replica of `seg` held by `nodeId`, as that node reads it from its local log. */
export function replicaStateView(
  shard: Shard,
  seg: Segment,
  replica: Replica,
  nodeId: number,
  sources: ReplicaStateSources,
): ReplicaStateRecord {
  const isLeader = seg.leaderNodeId === nodeId;
  const leaderLeo = leaderReplica(seg).log.nextOffset;
  const deleting = seg.phase === 'PreDelete' || seg.phase === 'Deleting';
  return {
    node_id: nodeId,
    replica_seq: replica.replicaSeq,
    fold: replica.fold,
    is_leader: isLeader,
    in_isr: seg.isr.includes(nodeId),
    role: isLeader ? 'Leader' : 'Follower',
    leader_epoch: seg.leaderEpoch,
    segment_epoch: seg.segmentEpoch,
    leo: replica.log.nextOffset,
    high_watermark: highWatermark(shard),
    log_start_offset: shard.logStartOffset,
    follower_progress: isLeader
      ? seg.replicas
          .filter((r) => r.nodeId !== nodeId)
          .map((r) => ({
            node_id: r.nodeId,
            leo: r.progressLeo,
            last_caught_up_ts: unixSeconds(sources.lastCaughtUpMs(seg, r)),
            lag: leaderLeo - r.progressLeo,
          }))
      : [],
    fetch: isLeader
      ? null
      : {
          leader_node_id: seg.leaderNodeId,
          current_leader_epoch: seg.leaderEpoch,
          max_bytes: sources.replicaFetchMaxBytes,
          fetcher_index: sources.fetcherIndex(nodeId, seg.leaderNodeId),
          thread_running: !deleting && seg.available && replica.fetcher !== null && sources.isOnline(nodeId),
        },
    available: true,
    error: null,
  };
}
