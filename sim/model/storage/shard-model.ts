import { type STORAGE_TYPES } from '../../../contract/endpoints/storage-engine.ts';
import type { RecordLog } from './record-log.ts';

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

type ShardStatus = 'Run' | 'PrepareDelete' | 'Deleting';
export type SegmentStatus = 'Write' | 'PreSealUp' | 'SealUp' | 'PreDelete' | 'Deleting' | 'Unavailable';
/** Where a segment is in its life; `Unavailable` is shown on top of it while no ISR member is alive. */
export type SegmentPhase = Exclude<SegmentStatus, 'Unavailable'>;

/**
 * One copy of a segment on a node. The log is what the node holds (it survives a crash: the model
 * treats every storage type as persistent). The `progress…` fields are the leader's view of this
 * replica as a follower, learnt from its fetch requests only; they lag the log by up to one fetch.
 */
export interface Replica {
  readonly replicaSeq: number;
  readonly nodeId: number;
  readonly fold: string;
  readonly log: RecordLog;
  /** Leader epoch this replica reconciled its log with; a follower takes records only in that epoch. */
  syncedEpoch: number;
  /** The follower LEO the leader last heard of, valid when `progressEpoch` is the current leader epoch. */
  progressLeo: number;
  progressEpoch: number;
  /** Virtual ms when the leader last saw this follower at its LEO (Kafka's lastCaughtUpTimeMs). */
  lastCaughtUpMs: number;
  /** The fetcher (this node → the leader's node) replicating this replica while it follows. */
  fetcher: Fetcher | null;
}

export interface Segment {
  readonly shard: Shard;
  readonly seq: number;
  readonly replicas: Replica[];
  leaderNodeId: number;
  isr: number[];
  /** The ISR before its latest change. */
  lastKnownIsr: number[];
  leaderEpoch: number;
  /** Version of the segment's metadata: moves on every leader, ISR or status change. */
  segmentEpoch: number;
  /** Start count of the leader's node when it became leader (Kafka's broker epoch). */
  leaderBrokerEpoch: number;
  phase: SegmentPhase;
  /** False while no ISR member is alive: the segment is `Unavailable` and takes no writes. */
  available: boolean;
  /** First offset of the segment. */
  readonly startOffset: number;
  /** Segment high watermark: the smallest LEO in the ISR as the leader knows it; never decreases. */
  hw: number;
  firstTimestampMs: number | null;
  lastTimestampMs: number | null;
  /** Bytes the leaders appended; the segment rolls when they reach `max_segment_size`. */
  bytes: number;
  /** Set once the segment left the model (trimmed away or its shard deleted). */
  gone: boolean;
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
  /** Live segments, oldest first; the last one is the active segment, which takes the writes. */
  readonly segments: Segment[];
  /** Earliest offset still held (retention and the memory bound move it); never decreases. */
  logStartOffset: number;
  /**
   * Offsets removed by a record delete (by key or by offset, reference notes §4.11), at or above
   * `logStartOffset`. Offsets are positions: the records stay in the replicas' logs (replication and
   * its checkers are unchanged), every read of the shard skips them, and none is reused.
   */
  readonly deleted: Set<number>;
}

export function activeSegment(shard: Shard): Segment {
  return shard.segments[shard.segments.length - 1];
}

export function replicaOn(seg: Segment, nodeId: number): Replica | undefined {
  for (const r of seg.replicas) if (r.nodeId === nodeId) return r;
  return undefined;
}

export function leaderReplica(seg: Segment): Replica {
  return replicaOn(seg, seg.leaderNodeId)!;
}

/** End of a segment: its leader's log end offset. */
export function segmentEnd(seg: Segment): number {
  return leaderReplica(seg).log.nextOffset;
}

export function statusOf(seg: Segment): SegmentStatus {
  return seg.available || seg.phase === 'PreDelete' || seg.phase === 'Deleting' ? seg.phase : 'Unavailable';
}

/** Effective segment size limit of a shard. */
export function maxSegmentBytes(config: EngineShardConfig): number {
  return config.max_segment_size ?? DEFAULT_MAX_SEGMENT_SIZE;
}

/** Effective record window of a shard: its own `max_record_num`, within the simulator's bound. */
export function maxRecordsHeld(config: EngineShardConfig): number {
  return Math.min(config.max_record_num ?? MAX_RECORDS_PER_SHARD, MAX_RECORDS_PER_SHARD);
}

/**
 * Shard-level high watermark: every offset below it is committed. Segments commit in order, so it is
 * the high watermark of the first segment not yet committed to its end, or of the active segment.
 * A segment whose uncommitted tail was cut by a failover while it was being sealed leaves a gap of
 * offsets that never existed; the high watermark steps over it.
 */
export function highWatermark(shard: Shard): number {
  const segs = shard.segments;
  for (let i = 0; i < segs.length - 1; i++) {
    if (segs[i].hw < segmentEnd(segs[i])) return Math.max(segs[i].hw, shard.logStartOffset);
  }
  return Math.max(activeSegment(shard).hw, shard.logStartOffset);
}

/** Log end offset of the shard: the next offset a write gets. */
export function logEndOffset(shard: Shard): number {
  return segmentEnd(activeSegment(shard));
}

/**
 * One replica fetcher: the thread on a follower node that fetches, from one leader node, the records
 * of every segment that follower replicates from that leader, in one request per fetch interval.
 * Both ends' bookkeeping of the pair lives here: `pending` is the follower's (segments whose local
 * log changed since its last request), `dirty` and `lastServedMs` are the leader's.
 */
export class Fetcher {
  /** Segments led by `leader` that `follower` replicates. */
  readonly segments = new Set<Segment>();
  /** Leader side: segments where the follower may lack records, must reconcile its log, or is out of the ISR. */
  readonly dirty = new Set<Segment>();
  /** Follower side: segments to report in the next request (their LEO or epoch changed). */
  readonly pending = new Set<Segment>();
  /** Leader side: virtual ms of the last request served; a follower at the leader's LEO was caught up then. */
  lastServedMs: number;
  requests = 0;

  constructor(
    readonly follower: number,
    readonly leader: number,
    /** The spec's `fetcher_index`: the rank of the leader among the follower's peers, from 0. */
    readonly index: number,
    createdMs: number,
  ) {
    this.lastServedMs = createdMs;
  }
}
