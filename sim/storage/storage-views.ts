import { unixSeconds } from '../api/time-format.ts';
import {
  activeSegment,
  highWatermark,
  logEndOffset,
  maxSegmentBytes,
  segmentEnd,
  statusOf,
  type EngineShardConfig,
  type Segment,
  type SegmentStatus,
  type Shard,
  type ShardStatus,
} from './shard-model.ts';

/**
 * The API shapes of shards, segments and replicas. The spec leaves most of them "not shown"; these
 * follow the real server's structures (reference notes §7), with the spec's `config` on segments.
 */

export interface EngineShardView {
  shard_uid: string;
  shard_name: string;
  topic_name: string;
  start_segment_seq: number;
  active_segment_seq: number;
  last_segment_seq: number;
  status: ShardStatus;
  config: EngineShardConfig;
  desc: string;
  create_time: number;
}

export interface AdapterShardDetail {
  shard_name: string;
  topic_name: string;
  config: EngineShardConfig;
  shard: EngineShardView;
  /** end_offset is the next offset to be written (the shard's log end offset). */
  offset: { start_offset: number; end_offset: number; high_watermark: number };
  desc: string;
}

export interface SegmentView {
  shard_name: string;
  segment_seq: number;
  leader: number;
  replicas: { replica_seq: number; node_id: number; fold: string }[];
  isr: number[];
  last_known_isr: number[];
  leader_epoch: number;
  segment_epoch: number;
  leader_broker_epoch: number;
  status: SegmentStatus;
  config: { max_segment_size: number };
}

export interface SegmentMetaView {
  shard_name: string;
  segment_seq: number;
  start_offset: number;
  /** Last offset in the segment (inclusive); equals start_offset while the segment is empty. */
  end_offset: number;
  /** Unix seconds of the first and last record; -1 while the segment is empty. */
  start_timestamp: number;
  end_timestamp: number;
}

export interface FollowerProgressView {
  node_id: number;
  leo: number;
  last_caught_up_ts: number;
  lag: number;
}

export interface FetchInfoView {
  leader_node_id: number;
  current_leader_epoch: number;
  max_bytes: number;
  fetcher_index: number;
  thread_running: boolean;
}

/** The spec's replica state (one element of `replicas` of the segment detail). */
export interface ReplicaStateView {
  node_id: number;
  replica_seq: number;
  fold: string;
  is_leader: boolean;
  in_isr: boolean;
  role: 'Leader' | 'Follower' | 'Unknown';
  leader_epoch: number;
  segment_epoch: number;
  leo: number;
  high_watermark: number;
  log_start_offset: number;
  follower_progress: FollowerProgressView[];
  fetch: FetchInfoView | null;
  available: boolean;
  error: string | null;
}

export function engineShardView(shard: Shard): EngineShardView {
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

export function shardDetailView(shard: Shard): AdapterShardDetail {
  return {
    shard_name: shard.name,
    topic_name: shard.topicName,
    config: { ...shard.config },
    shard: engineShardView(shard),
    offset: { start_offset: shard.logStartOffset, end_offset: logEndOffset(shard), high_watermark: highWatermark(shard) },
    desc: shard.desc,
  };
}

export function segmentView(shard: Shard, seg: Segment): SegmentView {
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

export function segmentMetaView(shard: Shard, seg: Segment): SegmentMetaView {
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
export function unavailableReplicaView(seg: Segment | undefined, nodeId: number, error: string): ReplicaStateView {
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
