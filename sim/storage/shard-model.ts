import { STORAGE_TYPES } from '../../fixtures/contract/endpoints/storage-engine.ts';
import type { RecordLog } from './record-log.ts';

export { STORAGE_TYPES };
/** Storage kinds a topic or shard may use (the engine kinds the real server accepts on create). */
export type StorageType = (typeof STORAGE_TYPES)[number];

/** Default segment size: 1 GiB, as the real server's `EngineShardConfig`. */
export const DEFAULT_MAX_SEGMENT_SIZE = 1_073_741_824;
/** Default retention: 7 days. */
export const DEFAULT_RETENTION_SEC = 604_800;
/**
 * The simulator holds at most this many records per shard in memory; older ones are trimmed and
 * `log_start_offset` moves past them, as retention would.
 */
export const MAX_RECORDS_PER_SHARD = 5_000;

/** The real server's `EngineShardConfig`. */
export interface EngineShardConfig {
  replica_num: number;
  storage_type: StorageType;
  max_segment_size: number | null;
  max_record_num: number | null;
  retention_sec: number;
  min_in_sync_replicas: number;
  is_inner_topic: boolean;
}

export type ShardStatus = 'Run' | 'PrepareDelete' | 'Deleting';
export type SegmentStatus = 'Write' | 'PreSealUp' | 'SealUp' | 'PreDelete' | 'Deleting' | 'Unavailable';

/** One copy of a segment on a node. */
export interface Replica {
  readonly replicaSeq: number;
  readonly nodeId: number;
  readonly fold: string;
  /** Log end offset of the segment on this replica (next offset it would store). */
  leo: number;
  /** Virtual ms when this replica last matched the leader's LEO. */
  lastCaughtUpMs: number;
}

export interface Segment {
  readonly shardName: string;
  readonly seq: number;
  readonly replicas: Replica[];
  leaderNodeId: number;
  isr: number[];
  lastKnownIsr: number[];
  leaderEpoch: number;
  segmentEpoch: number;
  leaderBrokerEpoch: number;
  status: SegmentStatus;
  /** First offset of the segment. */
  readonly startOffset: number;
  /** Offset the next record of this segment gets; equals `startOffset` while empty. */
  nextOffset: number;
  firstTimestampMs: number | null;
  lastTimestampMs: number | null;
  bytes: number;
}

export interface Shard {
  readonly uid: string;
  readonly name: string;
  /** Topic the shard stores a partition of; '' for a standalone shard without one. */
  readonly topicName: string;
  /** Owning topic, when the shard is a topic partition. */
  readonly topic: { tenant: string; topicName: string; partition: number } | null;
  readonly desc: string;
  readonly config: EngineShardConfig;
  status: ShardStatus;
  readonly createdAt: number;
  /** Live segments, oldest first; the last one is the active (`Write`) segment. */
  readonly segments: Segment[];
  readonly log: RecordLog;
}

export function activeSegment(shard: Shard): Segment {
  return shard.segments[shard.segments.length - 1];
}

/** Effective segment size limit of a shard. */
export function maxSegmentBytes(config: EngineShardConfig): number {
  return config.max_segment_size ?? DEFAULT_MAX_SEGMENT_SIZE;
}

/** Effective record window of a shard: its own `max_record_num`, within the simulator's bound. */
export function maxRecordsHeld(config: EngineShardConfig): number {
  return Math.min(config.max_record_num ?? MAX_RECORDS_PER_SHARD, MAX_RECORDS_PER_SHARD);
}

/** Shard-level high watermark: the lowest LEO among the in-sync replicas of the active segment. */
export function highWatermark(shard: Shard): number {
  const seg = activeSegment(shard);
  const leos = seg.replicas.filter((r) => seg.isr.includes(r.nodeId)).map((r) => r.leo);
  return leos.length > 0 ? Math.min(...leos) : seg.startOffset;
}
