import { failed } from '../api/operation-error.ts';
import { unixSeconds } from '../api/time-format.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { fnv1a } from '../cluster/raft-groups.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import { RecordLog, type StoredRecord } from './record-log.ts';
import {
  activeSegment,
  DEFAULT_MAX_SEGMENT_SIZE,
  DEFAULT_RETENTION_SEC,
  highWatermark,
  maxRecordsHeld,
  maxSegmentBytes,
  type EngineShardConfig,
  type Replica,
  type Segment,
  type Shard,
} from './shard-model.ts';
import {
  FETCH_MAX_BYTES,
  FETCHER_THREADS,
  segmentMetaView,
  segmentView,
  shardDetailView,
  unavailableReplicaView,
  type AdapterShardDetail,
  type ReplicaStateView,
  type SegmentMetaView,
  type SegmentView,
} from './storage-views.ts';

/** Retention is enforced by a sweep at this period of virtual time. */
export const RETENTION_SWEEP_MS = 60_000;

export interface ShardCreateInput {
  shard_name: string;
  topic_name?: string;
  desc?: string;
  config: EngineShardConfig;
  /** Set when the shard stores a partition of a topic (created by `Topics`). */
  topic?: { tenant: string; topicName: string; partition: number };
}

/** A record as a producer hands it over. */
export interface AppendInput {
  key?: string;
  payload: string;
  /** Virtual Unix ms; defaults to now. */
  timestamp?: number;
}

export type OffsetStrategy = 'earliest' | 'latest';

/** A default shard config for `replicaNum` copies. */
export function defaultShardConfig(replicaNum = 1, storageType: EngineShardConfig['storage_type'] = 'EngineMemory'): EngineShardConfig {
  return {
    replica_num: replicaNum,
    storage_type: storageType,
    max_segment_size: DEFAULT_MAX_SEGMENT_SIZE,
    max_record_num: null,
    retention_sec: DEFAULT_RETENTION_SEC,
    min_in_sync_replicas: 1,
    is_inner_topic: false,
  };
}

/**
 * The storage engine: shards (one per topic partition, or standalone), their segments placed on
 * replicas across the online nodes, and the records. Replication is steady for now: every replica of
 * the active segment stores each record as it is written, so all replicas stay in the ISR and the
 * high watermark equals the LEO. The per-replica LEO, ISR and epochs are kept so ISR dynamics can
 * later change them without changing the views.
 */
export class StorageEngine {
  private readonly shards = new Map<string, Shard>();
  /** Next partition of a keyless record per topic (round-robin). */
  private readonly roundRobin = new Map<string, number>();
  private rng!: SeededRandom;

  constructor(private readonly cluster: Cluster) {}

  start(): void {
    this.rng = this.cluster.engine.random.fork('storage');
    this.cluster.engine.every(RETENTION_SWEEP_MS, 'storage.retention', () => this.sweepRetention());
  }

  seedDemo(): void {
    const replicas = Math.min(3, this.placeableNodes().length);
    const shard = this.createShard({ shard_name: 'audit-log', desc: 'standalone shard of the demo workload', config: { ...defaultShardConfig(replicas, 'EngineSegment'), max_segment_size: 1024 } });
    for (let i = 0; i < 40; i++) this.appendToShard(shard.name, { key: `audit-${i % 5}`, payload: JSON.stringify({ event: 'login', seq: i }) });
  }

  // ---- shards -------------------------------------------------------------------------------

  get(name: string): Shard | undefined {
    return this.shards.get(name);
  }

  /** Every shard, by name. */
  all(): Shard[] {
    return [...this.shards.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private require(name: string): Shard {
    const shard = this.shards.get(name);
    if (!shard) throw failed(`Shard ${name} does not exist`);
    return shard;
  }

  /** Nodes that can hold a replica now: online, still members, with the engine role. */
  private placeableNodes(): number[] {
    return this.cluster.nodes
      .online()
      .filter((n) => !n.removed && n.roles.includes('engine'))
      .map((n) => n.id);
  }

  /** Refuses a replica count the online nodes cannot hold. */
  checkPlacement(replicaNum: number, what: string): void {
    const nodes = this.placeableNodes();
    if (replicaNum > nodes.length) {
      throw failed(`${what}: ${replicaNum} replicas need ${replicaNum} online storage nodes, but only ${nodes.length} are online (${nodes.join(', ') || 'none'})`);
    }
  }

  createShard(input: ShardCreateInput): Shard {
    if (this.shards.has(input.shard_name)) throw failed(`Shard ${input.shard_name} already exists`);
    const config = input.config;
    if (config.min_in_sync_replicas > config.replica_num) {
      throw failed(`Shard ${input.shard_name}: min_in_sync_replicas ${config.min_in_sync_replicas} exceeds replica_num ${config.replica_num}`);
    }
    this.checkPlacement(config.replica_num, `Shard ${input.shard_name}`);
    this.cluster.raft.write(this.cluster.raft.dataGroupFor(input.shard_name), 'shard.create');
    const shard: Shard = {
      uid: this.rng.id(),
      name: input.shard_name,
      topicName: input.topic?.topicName ?? input.topic_name ?? '',
      topic: input.topic ?? null,
      desc: input.desc ?? '',
      config: { ...config },
      status: 'Run',
      createdAt: this.cluster.now(),
      segments: [],
      log: new RecordLog(0),
    };
    shard.segments.push(this.newSegment(shard, 0, 0));
    this.shards.set(shard.name, shard);
    this.cluster.engine.record('storage.shard.create', { name: shard.name, topic: shard.topicName, replicas: shard.segments[0].replicas.map((r) => r.nodeId) });
    return shard;
  }

  /**
   * Deletes a shard with its segments and records, at once (the real server deletes asynchronously).
   * A topic's partition shard goes with its topic only: deleting it alone would break the topic.
   */
  deleteShard(name: string, options: { byTopic?: boolean } = {}): void {
    const shard = this.require(name);
    if (shard.topic && !options.byTopic) {
      throw failed(`Shard ${name} stores partition ${shard.topic.partition} of topic ${shard.topic.topicName} (tenant ${shard.topic.tenant}); delete the topic instead`);
    }
    this.cluster.raft.write(this.cluster.raft.dataGroupFor(name), 'shard.delete');
    this.shards.delete(name);
    this.cluster.offsets.forgetShards([name]);
    this.cluster.engine.record('storage.shard.delete', { name });
  }

  /** Places a new segment on `replica_num` distinct online nodes, seeded; the first is the leader. */
  private newSegment(shard: Shard, seq: number, startOffset: number): Segment {
    const nodes = this.rng.shuffle(this.placeableNodes()).slice(0, shard.config.replica_num);
    const now = this.cluster.now();
    const replicas: Replica[] = nodes.map((nodeId, i) => {
      const folds = this.cluster.nodes.get(nodeId)?.storageFold ?? [];
      const fold = folds.length > 0 ? folds[fnv1a(`${shard.name}/${seq}`) % folds.length] : '';
      return { replicaSeq: i, nodeId, fold, leo: startOffset, lastCaughtUpMs: now };
    });
    return {
      shardName: shard.name,
      seq,
      replicas,
      leaderNodeId: nodes[0],
      isr: [...nodes],
      lastKnownIsr: [...nodes],
      leaderEpoch: 0,
      segmentEpoch: 0,
      leaderBrokerEpoch: 0,
      status: 'Write',
      startOffset,
      nextOffset: startOffset,
      firstTimestampMs: null,
      lastTimestampMs: null,
      bytes: 0,
    };
  }

  // ---- records ------------------------------------------------------------------------------

  /** Appends one record to a shard's active segment; returns its offset. */
  appendToShard(name: string, input: AppendInput): number {
    const shard = this.require(name);
    const timestampMs = input.timestamp ?? this.cluster.now();
    const key = input.key ?? null;
    const bytes = Buffer.byteLength(input.payload, 'utf8') + (key === null ? 0 : Buffer.byteLength(key, 'utf8'));
    const record = shard.log.append({ key, payload: input.payload, timestampMs, bytes });
    const seg = activeSegment(shard);
    seg.nextOffset = record.offset + 1;
    seg.firstTimestampMs ??= timestampMs;
    seg.lastTimestampMs = timestampMs;
    seg.bytes += bytes;
    this.replicate(seg);
    this.cluster.engine.record('storage.append', { shard: name, offset: record.offset, bytes });
    this.trim(shard, () => shard.log.trimToSize(maxRecordsHeld(shard.config)));
    if (seg.bytes >= maxSegmentBytes(shard.config)) this.roll(shard);
    return record.offset;
  }

  /**
   * Appends to a topic (created with defaults when absent, through `topics.ensure`): a keyed record
   * goes to the partition of its key's hash, a keyless one round-robin over the partitions.
   */
  appendToTopic(tenant: string, topicName: string, input: AppendInput): number {
    const topic = this.cluster.topics.ensure(tenant, topicName);
    const partitions = topic.storage_name_list.length;
    let p = 0;
    if (input.key !== undefined && input.key !== '') p = fnv1a(input.key) % partitions;
    else if (partitions > 1) {
      const k = `${tenant}\u0000${topicName}`;
      p = (this.roundRobin.get(k) ?? 0) % partitions;
      this.roundRobin.set(k, p + 1);
    }
    return this.appendToShard(topic.storage_name_list[p], input);
  }

  /**
   * Steady replication: each replica of the segment stores the record as it is written. ISR
   * dynamics replace this with followers fetching from the leader.
   */
  private replicate(seg: Segment): void {
    const now = this.cluster.now();
    for (const r of seg.replicas) {
      r.leo = seg.nextOffset;
      r.lastCaughtUpMs = now;
    }
  }

  /** Seals the active segment and opens the next one where the last ended. */
  private roll(shard: Shard): void {
    const old = activeSegment(shard);
    old.status = 'SealUp';
    const next = this.newSegment(shard, old.seq + 1, old.nextOffset);
    shard.segments.push(next);
    this.cluster.raft.tryWrite(this.cluster.raft.dataGroupFor(shard.name), 'segment.create');
    this.cluster.engine.record('storage.segment.roll', { shard: shard.name, sealed: old.seq, active: next.seq, startOffset: next.startOffset });
  }

  /** Runs a trim of the record window, then drops sealed segments left with no records. */
  private trim(shard: Shard, trimRecords: () => number): void {
    const dropped = trimRecords();
    if (dropped === 0) return;
    const start = shard.log.startOffset;
    while (shard.segments.length > 1 && shard.segments[0].nextOffset <= start) shard.segments.shift();
    this.cluster.engine.record('storage.trim', { shard: shard.name, logStartOffset: start, dropped });
  }

  private sweepRetention(): void {
    const now = this.cluster.now();
    for (const shard of this.shards.values()) {
      this.trim(shard, () => shard.log.trimOlderThan(now - shard.config.retention_sec * 1000));
    }
  }

  /** Up to `max` committed records (below the high watermark) from `fromOffset`, clamped into the log. */
  read(name: string, fromOffset: number, max: number): StoredRecord[] {
    const shard = this.require(name);
    return shard.log.read(fromOffset, max, highWatermark(shard));
  }

  /**
   * The first offset whose record was written at or after `timestampSec`. When no record is that
   * recent: `earliest` falls back to the log start offset, `latest` to the next offset to be written.
   */
  offsetForTimestamp(name: string, timestampSec: number, strategy: OffsetStrategy): number {
    const shard = this.require(name);
    const hit = shard.log.firstAtOrAfter(timestampSec * 1000);
    if (hit) return hit.offset;
    return strategy === 'earliest' ? shard.log.startOffset : shard.log.nextOffset;
  }

  /** Sequence number of the live segment holding `offset`, or null. */
  segmentSeqOf(name: string, offset: number): number | null {
    const shard = this.shards.get(name);
    if (!shard) return null;
    const seg = shard.segments.find((s, i) => offset >= s.startOffset && (offset < s.nextOffset || i === shard.segments.length - 1));
    return seg ? seg.seq : null;
  }

  segment(name: string, seq: number): Segment | undefined {
    return this.shards.get(name)?.segments.find((s) => s.seq === seq);
  }

  // ---- views --------------------------------------------------------------------------------

  shardDetail(shard: Shard): AdapterShardDetail {
    return shardDetailView(shard);
  }

  /** `{segment, segment_meta}` of every live segment of a shard; empty for an unknown shard. */
  segmentList(name: string): { segment: SegmentView; segment_meta: SegmentMetaView }[] {
    const shard = this.shards.get(name);
    if (!shard) return [];
    return shard.segments.map((seg) => ({ segment: segmentView(shard, seg), segment_meta: segmentMetaView(shard, seg) }));
  }

  /** `{segment, segment_meta}` of one segment, or undefined. */
  segmentDetail(name: string, seq: number): { segment: SegmentView; segment_meta: SegmentMetaView } | undefined {
    const shard = this.shards.get(name);
    const seg = shard?.segments.find((s) => s.seq === seq);
    return shard && seg ? { segment: segmentView(shard, seg), segment_meta: segmentMetaView(shard, seg) } : undefined;
  }

  /**
   * The replica of segment `name/seq` held by `nodeId`, as that node reads it from its local log.
   * A node holding no such replica answers with `available` false and a text saying so.
   */
  replicaState(name: string, seq: number, nodeId: number): ReplicaStateView {
    const shard = this.shards.get(name);
    const seg = shard?.segments.find((s) => s.seq === seq);
    if (!shard || !seg) return unavailableReplicaView(undefined, nodeId, `segment ${name}/${seq} does not exist on node ${nodeId}`);
    const replica = seg.replicas.find((r) => r.nodeId === nodeId);
    if (!replica) return unavailableReplicaView(seg, nodeId, `node ${nodeId} holds no replica of segment ${name}/${seq}`);
    const isLeader = seg.leaderNodeId === nodeId;
    const leaderOnline = this.cluster.nodes.get(seg.leaderNodeId)?.online === true;
    return {
      node_id: nodeId,
      replica_seq: replica.replicaSeq,
      fold: replica.fold,
      is_leader: isLeader,
      in_isr: seg.isr.includes(nodeId),
      role: isLeader ? 'Leader' : 'Follower',
      leader_epoch: seg.leaderEpoch,
      segment_epoch: seg.segmentEpoch,
      leo: replica.leo,
      high_watermark: highWatermark(shard),
      log_start_offset: shard.log.startOffset,
      follower_progress: isLeader
        ? seg.replicas
            .filter((r) => r.nodeId !== nodeId)
            .map((r) => ({ node_id: r.nodeId, leo: r.leo, last_caught_up_ts: unixSeconds(r.lastCaughtUpMs), lag: replica.leo - r.leo }))
        : [],
      fetch: isLeader
        ? null
        : {
            leader_node_id: seg.leaderNodeId,
            current_leader_epoch: seg.leaderEpoch,
            max_bytes: FETCH_MAX_BYTES,
            fetcher_index: fnv1a(name) % FETCHER_THREADS,
            thread_running: seg.status === 'Write' && leaderOnline,
          },
      available: true,
      error: null,
    };
  }

  /** A replica whose node could not be asked (offline, unregistered): available false with the error. */
  unreachableReplica(name: string, seq: number, nodeId: number, error: string): ReplicaStateView {
    return unavailableReplicaView(this.segment(name, seq), nodeId, error);
  }
}
