import type { IndexedList } from '../api/indexed-list.ts';
import { failed, unavailable } from '../errors/operation-error.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import type { InvariantRegistry } from '../invariants/invariant-registry.ts';
import { fnv1a } from '../engine/fnv1a.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { StoredRecord } from './record-log.ts';
import { deleteByKeys, deleteByOffsets, type RecordDeleteParts } from './record-delete.ts';
import { ReplicaFetchers } from './replica-fetcher.ts';
import { ReplicaLoss } from './replica-loss.ts';
import { Retention } from './retention.ts';
import { Segments } from './segments.ts';
import {
  activeSegment,
  DEFAULT_MAX_SEGMENT_SIZE,
  DEFAULT_RETENTION_SEC,
  highWatermark,
  leaderReplica,
  logEndOffset,
  maxRecordsHeld,
  maxSegmentBytes,
  replicaOn,
  segmentEnd,
  type EngineShardConfig,
  type Replica,
  type Segment,
  type Shard,
} from './shard-model.ts';
import { StorageController } from './storage-controller.ts';
import type { StoragePeers } from './storage-peers.ts';
import { SegmentJournal, StorageInvariants } from './storage-invariants.ts';
import { DEFAULT_STORAGE_SETTINGS, type StorageBugs, type StorageSettings } from './storage-settings.ts';
import { replicaStateView, segmentMetaView, segmentView, shardDetailView, unavailableReplicaView } from './storage-views.ts';
import type { AdapterShardDetailRecord, ReplicaStateRecord, SegmentMetaRecord, SegmentRecord } from '../../../contract/records.ts';

export interface ShardCreateInput {
  shard_name: string;
  topic_name?: string;
  desc?: string;
  config: EngineShardConfig;
  /** Set when the shard stores a partition of a topic (created by `Topics`). */
  topic?: { tenant: string; topicName: string; partition: number };
}

/** A shard as the shard list shows it. */
export interface ShardListRow {
  shard_info: AdapterShardDetailRecord;
  shard_name: string;
  topic_name: string;
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

export interface StorageEngineDeps extends StoragePeers {
  invariants: InvariantRegistry;
  /** A record appended to a topic that does not exist yet creates it with defaults. */
  topics: { ensure(tenant: string, topicName: string): { readonly storage_name_list: readonly string[] } };
  /** Built after the storage engine: read at call time (a deleted shard's committed offsets go). */
  readonly offsets: { forgetShards(shardNames: readonly string[]): void };
}

/**
 * The storage engine: shards (one per topic partition, or standalone) made of segments, each placed
 * on `replica_num` nodes with one leader. The active segment's leader takes the writes; followers
 * fetch from it through the simulated network (`ReplicaFetchers`); the ISR, the high watermark and
 * the acknowledgement of writes follow from what they fetched; the controller (`StorageController`)
 * moves leadership when nodes die or become unreachable. The views of the API are computed from it.
 * This class keeps the shard catalog, writes and reads, and composes the parts: `Segments`
 * (placement, phases, roll), `Retention` (log start by age and record count), `ReplicaLoss` (wiped
 * and departed nodes' replicas) and the record deletes of record-delete.ts.
 */
export class StorageEngine {
  /** Replication tuning; see `StorageSettings` for each value and its default. */
  readonly settings: StorageSettings = { ...DEFAULT_STORAGE_SETTINGS };
  /** Deliberate replication bugs, all off; tests switch one on to see a checker catch it. */
  bugs: StorageBugs = {};
  readonly replication: ReplicaFetchers;
  readonly controller: StorageController;
  readonly invariants: StorageInvariants;
  private readonly journal = new SegmentJournal();
  /**
   * Changes of anything the shard list shows (shards created and deleted, their status and log start,
   * and every segment change, which all go through touch): the list's version.
   */
  private changes = 0;
  /** By name (the list's base order); pages are read from its sorted indexes. */
  private readonly shards = new RecordIndex<Shard>({
    order: (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    viewFields: { shard_info: (s) => shardDetailView(s), shard_name: (s) => s.name, topic_name: (s) => s.topicName },
  });
  private readonly segments: Segments;
  private readonly retention: Retention;
  private readonly replicaLoss: ReplicaLoss;
  private readonly recordDelete: RecordDeleteParts;
  /** Next partition of a keyless record per topic (round-robin). */
  private readonly roundRobin = new Map<string, number>();
  private rng!: SeededRandom;

  constructor(private readonly deps: StorageEngineDeps) {
    const touched = (seg: Segment): void => this.touch(seg);
    this.segments = new Segments({
      deps,
      replication: { attach: (seg) => this.replication.attach(seg), detach: (seg) => this.replication.detach(seg) },
      journal: this.journal,
      isFenced: (nodeId) => this.controller.isFenced(nodeId),
      brokerEpoch: (nodeId) => this.controller.brokerEpoch(nodeId),
      touched,
      rng: () => this.rng,
    });
    this.replication = new ReplicaFetchers({
      peers: deps,
      settings: () => this.settings,
      bugs: () => this.bugs,
      canAlterIsr: (nodeId) => this.controller.canAlterIsr(nodeId),
      isFenced: (nodeId) => this.controller.isFenced(nodeId),
      touched,
      onHighWatermark: (seg) => this.segments.maybeSeal(seg),
    });
    this.controller = new StorageController({
      peers: deps,
      replication: this.replication,
      settings: () => this.settings,
      bugs: () => this.bugs,
      segmentsOn: (nodeId) => this.segments.on(nodeId),
      touched,
      onLeadershipChanged: (seg) => this.segments.maybeSeal(seg),
      onNodeWiped: (nodeId) => this.replicaLoss.onNodeWiped(nodeId),
    });
    this.invariants = new StorageInvariants(this.journal);
    this.replicaLoss = new ReplicaLoss({
      deps,
      segments: this.segments,
      controller: this.controller,
      invariants: this.invariants,
      touched,
    });
    this.retention = new Retention({
      deps,
      segments: this.segments,
      shards: () => this.shards,
      touched,
      listChanged: () => this.changes++,
    });
    this.recordDelete = { deps, require: (name) => this.require(name) };
  }

  start(): void {
    this.rng = this.deps.engine.random.fork('storage');
    this.deps.nodes.onLifecycle((e) => {
      if (e.kind === 'leave') this.replicaLoss.onNodeLeft(e.nodeId);
    });
    this.replication.start(this.deps.engine.random.fork('storage-fetch'));
    this.controller.start();
    this.invariants.register(this.deps.invariants);
    this.retention.start();
  }

  seedDemo(): void {
    const replicas = Math.min(3, this.segments.placeableNodes().length);
    const shard = this.createShard({
      shard_name: 'audit-log',
      desc: 'standalone shard of the demo workload',
      config: { ...defaultShardConfig(replicas, 'EngineSegment'), max_segment_size: 1024 },
    });
    for (let i = 0; i < 40; i++)
      this.appendToShard(shard.name, { key: `audit-${i % 5}`, payload: JSON.stringify({ event: 'login', seq: i }) });
  }

  // ---- shards -------------------------------------------------------------------------------

  get(name: string): Shard | undefined {
    return this.shards.get(name);
  }

  /** Every shard, by name (including shards being deleted). */
  all(): Shard[] {
    return this.shards.values();
  }

  /** The shard list, served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<Shard>, ShardListRow> {
    return this.shards.listing((s) => ({ shard_info: shardDetailView(s), shard_name: s.name, topic_name: s.topicName }), {
      listVersion: { owner: this, version: this.changes },
    });
  }

  /** A segment changed: the invariants check it after this event, and the shard list is computed afresh. */
  private touch(seg: Segment): void {
    this.changes++;
    this.journal.touch(seg);
  }

  private require(name: string): Shard {
    const shard = this.shards.get(name);
    if (!shard) throw failed(`Shard ${name} does not exist`);
    return shard;
  }

  /** Refuses a replica count the online nodes cannot hold. */
  checkPlacement(replicaNum: number, what: string): void {
    const nodes = this.segments.placeableNodes();
    if (replicaNum > nodes.length) {
      throw failed(
        `${what}: ${replicaNum} replicas need ${replicaNum} online storage nodes, but only ${nodes.length} are online (${nodes.join(', ') || 'none'})`,
      );
    }
  }

  createShard(input: ShardCreateInput): Shard {
    if (this.shards.has(input.shard_name)) throw failed(`Shard ${input.shard_name} already exists`);
    const config = input.config;
    if (config.min_in_sync_replicas > config.replica_num) {
      throw failed(
        `Shard ${input.shard_name}: min_in_sync_replicas ${config.min_in_sync_replicas} exceeds replica_num ${config.replica_num}`,
      );
    }
    this.checkPlacement(config.replica_num, `Shard ${input.shard_name}`);
    this.deps.raft.write(this.deps.raft.dataGroupFor(input.shard_name), 'shard.create');
    const shard: Shard = {
      uid: this.rng.id(),
      name: input.shard_name,
      topicName: input.topic?.topicName ?? input.topic_name ?? '',
      topic: input.topic ?? null,
      desc: input.desc ?? '',
      config: { ...config },
      status: 'Run',
      createdAt: this.deps.engine.now(),
      segments: [],
      logStartOffset: 0,
      deleted: new Set(),
    };
    const seg = this.segments.open(shard, 0, 0);
    this.shards.set(shard.name, shard);
    this.changes++;
    this.deps.engine.record('storage.shard.create', {
      name: shard.name,
      topic: shard.topicName,
      replicas: seg.replicas.map((r) => r.nodeId),
    });
    return shard;
  }

  /**
   * Deletes a shard in the real server's steps: at once it takes no more writes, its replicas stop
   * fetching, its segments are `PreDelete` and the shard `PrepareDelete`; `delete_step_ms` later they
   * are `Deleting`, and one more step later the shard is gone with its records. A topic's partition
   * shard goes with its topic only: deleting it alone would break the topic.
   */
  deleteShard(name: string, options: { byTopic?: boolean } = {}): void {
    const shard = this.require(name);
    if (shard.status !== 'Run') throw failed(`Shard ${name} is already being deleted`);
    if (shard.topic && !options.byTopic) {
      throw failed(
        `Shard ${name} stores partition ${shard.topic.partition} of topic ${shard.topic.topicName} (tenant ${shard.topic.tenant}); delete the topic instead`,
      );
    }
    this.deps.raft.write(this.deps.raft.dataGroupFor(name), 'shard.delete');
    shard.status = 'PrepareDelete';
    this.changes++;
    for (const seg of shard.segments) {
      this.replication.detach(seg);
      this.segments.setPhase(seg, 'PreDelete');
    }
    this.deps.offsets.forgetShards([name]);
    this.deps.engine.record('storage.shard.delete', { name });
    const step = this.settings.delete_step_ms;
    this.deps.engine.after(step, 'storage.shard.deleting', () => {
      shard.status = 'Deleting';
      this.changes++;
      for (const seg of shard.segments) this.segments.setPhase(seg, 'Deleting');
      this.deps.engine.record('storage.shard.deleting', { name });
      this.deps.engine.after(step, 'storage.shard.deleted', () => {
        if (this.shards.get(name) === shard) this.shards.delete(name);
        this.changes++;
        for (const seg of shard.segments) this.segments.forget(seg);
        this.deps.engine.record('storage.shard.deleted', { name });
      });
    });
  }

  /** Live segments whose acknowledged records only `nodeId` holds (see `ReplicaLoss.soleCopiesOn`). */
  soleCopiesOn(nodeId: number): Segment[] {
    return this.replicaLoss.soleCopiesOn(nodeId);
  }

  /** Segments whose records a node leave gave up (their only in-sync copy left the cluster). */
  get lostByLeave(): number {
    return this.replicaLoss.lostByLeave;
  }

  // ---- records ------------------------------------------------------------------------------

  /**
   * Appends one record at the leader of the shard's active segment; returns its offset. The write is
   * acknowledged once the shard's high watermark passes it (`isAcknowledged`). Refused with
   * `unavailable` while the segment has no live leader or too small an ISR.
   */
  appendToShard(name: string, input: AppendInput): number {
    const shard = this.require(name);
    if (shard.status !== 'Run') throw failed(`Shard ${name} is being deleted; it takes no more writes`);
    const seg = activeSegment(shard);
    if (!seg.available) {
      throw unavailable(
        `Shard ${name} is unavailable: no in-sync replica of segment ${seg.seq} is alive (ISR ${JSON.stringify(seg.isr)}); the write was refused, retry when one of them is back`,
      );
    }
    if (this.deps.nodes.get(seg.leaderNodeId)?.online !== true) {
      throw unavailable(
        `Shard ${name}: the leader of segment ${seg.seq} (node ${seg.leaderNodeId}) is down and no new leader is elected yet; the write was refused, retry shortly`,
      );
    }
    if (seg.isr.length < shard.config.min_in_sync_replicas) {
      throw unavailable(
        `Shard ${name}: the ISR ${JSON.stringify(seg.isr)} of segment ${seg.seq} has fewer than min_in_sync_replicas ${shard.config.min_in_sync_replicas} members; the write was refused`,
      );
    }
    // The leader stamps the record with its own clock (log-append time): a skewed leader's records
    // carry its offset; a producer's timestamp was taken on the true clock.
    const timestampMs = (input.timestamp ?? this.deps.engine.now()) + (this.deps.nodes.get(seg.leaderNodeId)?.clockSkewMs ?? 0);
    const key = input.key ?? null;
    const bytes = Buffer.byteLength(input.payload, 'utf8') + (key === null ? 0 : Buffer.byteLength(key, 'utf8'));
    const leader = leaderReplica(seg);
    const leoBefore = leader.log.nextOffset;
    const record = leader.log.append({ key, payload: input.payload, timestampMs, bytes, leaderEpoch: seg.leaderEpoch });
    seg.firstTimestampMs ??= timestampMs;
    seg.lastTimestampMs = timestampMs;
    seg.bytes += bytes;
    // Keys in sorted order: the trace's canonical JSON of such a detail is JSON.stringify's, made natively.
    this.deps.engine.record('storage.append', { bytes, offset: record.offset, shard: name });
    this.touch(seg);
    this.replication.onAppend(seg, leoBefore);
    const excess = logEndOffset(shard) - shard.logStartOffset - maxRecordsHeld(shard.config);
    if (excess > 0) this.retention.trim(shard, shard.logStartOffset + excess);
    if (seg.bytes >= maxSegmentBytes(shard.config)) this.segments.roll(shard);
    return record.offset;
  }

  /**
   * Appends to a topic (created with defaults when absent, through `topics.ensure`): a keyed record
   * goes to the partition of its key's hash, a keyless one round-robin over the partitions.
   */
  appendToTopic(tenant: string, topicName: string, input: AppendInput): number {
    const topic = this.deps.topics.ensure(tenant, topicName);
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

  /** Whether the write at `offset` is acknowledged: committed to every ISR member. */
  isAcknowledged(name: string, offset: number): boolean {
    return offset < highWatermark(this.require(name));
  }

  /** A replica that can serve reads of a segment: its leader, or a live ISR member while the leader is down. */
  private readableReplica(seg: Segment): Replica | undefined {
    const up = (r: Replica): boolean => this.deps.nodes.get(r.nodeId)?.online === true;
    const leader = leaderReplica(seg);
    if (up(leader)) return leader;
    return seg.replicas.find((r) => seg.isr.includes(r.nodeId) && up(r) && r.log.nextOffset >= seg.hw);
  }

  /**
   * Up to `max` committed records (below the high watermark) from `fromOffset`, clamped into the log.
   * Deleted records are skipped (the next held ones fill the batch). Stops at a segment no live
   * replica can serve.
   */
  read(name: string, fromOffset: number, max: number): StoredRecord[] {
    const shard = this.require(name);
    const hw = highWatermark(shard);
    const out: StoredRecord[] = [];
    for (const seg of shard.segments) {
      if (out.length >= max) break;
      const end = Math.min(segmentEnd(seg), hw);
      if (end <= fromOffset || end <= seg.startOffset) continue;
      const source = this.readableReplica(seg);
      if (!source) break;
      let from = Math.max(fromOffset, seg.startOffset);
      while (out.length < max && from < end) {
        const batch = source.log.read(from, max - out.length, end);
        if (batch.length === 0) break;
        for (const r of batch) if (!shard.deleted.has(r.offset)) out.push(r);
        from = batch[batch.length - 1].offset + 1;
      }
    }
    return out;
  }

  // ---- record delete (reference notes §4.11) -------------------------------------------------

  /** Deletes the records at these offsets (see `deleteByOffsets` in record-delete.ts). Returns how many went. */
  deleteByOffsets(name: string, offsets: readonly number[]): number {
    return deleteByOffsets(this.recordDelete, name, offsets);
  }

  /** Deletes the newest record of each key (see `deleteByKeys` in record-delete.ts). Returns how many went. */
  deleteByKeys(name: string, keys: readonly string[]): number {
    return deleteByKeys(this.recordDelete, name, keys);
  }

  /**
   * The first offset whose record was written at or after `timestampSec`. When no record is that
   * recent: `earliest` falls back to the log start offset, `latest` to the next offset to be written.
   */
  offsetForTimestamp(name: string, timestampSec: number, strategy: OffsetStrategy): number {
    const shard = this.require(name);
    for (const seg of shard.segments) {
      const hit = leaderReplica(seg).log.firstAtOrAfter(timestampSec * 1000);
      if (hit) return hit.offset;
    }
    return strategy === 'earliest' ? shard.logStartOffset : logEndOffset(shard);
  }

  /** Sequence number of the live segment holding `offset`, or null. */
  segmentSeqOf(name: string, offset: number): number | null {
    const shard = this.shards.get(name);
    if (!shard) return null;
    const seg = shard.segments.find((s, i) => offset >= s.startOffset && (offset < segmentEnd(s) || i === shard.segments.length - 1));
    return seg ? seg.seq : null;
  }

  segment(name: string, seq: number): Segment | undefined {
    return this.shards.get(name)?.segments.find((s) => s.seq === seq);
  }

  /** Earliest offset still held. */
  logStartOffset(name: string): number {
    return this.require(name).logStartOffset;
  }

  /** Next offset a write gets. */
  logEndOffset(name: string): number {
    return logEndOffset(this.require(name));
  }

  highWatermark(name: string): number {
    return highWatermark(this.require(name));
  }

  /** Records the shard's leaders hold (between log start and log end). */
  heldRecords(name: string): number {
    return this.require(name).segments.reduce((n, seg) => n + leaderReplica(seg).log.size, 0);
  }

  /**
   * End-of-run check (after faults healed and replication settled): every replica holds the leader's
   * very records below the high watermark. One line per disagreement; empty when converged.
   */
  convergenceProblems(): string[] {
    return this.invariants.convergenceProblems(this.all().filter((s) => s.status === 'Run'));
  }

  // ---- views --------------------------------------------------------------------------------

  shardDetail(shard: Shard): AdapterShardDetailRecord {
    return shardDetailView(shard);
  }

  /** `{segment, segment_meta}` of every live segment of a shard; empty for an unknown shard. */
  segmentList(name: string): { segment: SegmentRecord; segment_meta: SegmentMetaRecord }[] {
    const shard = this.shards.get(name);
    if (!shard) return [];
    return shard.segments.map((seg) => ({ segment: segmentView(shard, seg), segment_meta: segmentMetaView(shard, seg) }));
  }

  /** `{segment, segment_meta}` of one segment, or undefined. */
  segmentDetail(name: string, seq: number): { segment: SegmentRecord; segment_meta: SegmentMetaRecord } | undefined {
    const shard = this.shards.get(name);
    const seg = shard?.segments.find((s) => s.seq === seq);
    return shard && seg ? { segment: segmentView(shard, seg), segment_meta: segmentMetaView(shard, seg) } : undefined;
  }

  /**
   * The replica of segment `name/seq` held by `nodeId`, as that node reads it from its local log.
   * A node holding no such replica answers with `available` false and a text saying so.
   */
  replicaState(name: string, seq: number, nodeId: number): ReplicaStateRecord {
    const shard = this.shards.get(name);
    const seg = shard?.segments.find((s) => s.seq === seq);
    if (!shard || !seg) return unavailableReplicaView(undefined, nodeId, `segment ${name}/${seq} does not exist on node ${nodeId}`);
    const replica = replicaOn(seg, nodeId);
    if (!replica) return unavailableReplicaView(seg, nodeId, `node ${nodeId} holds no replica of segment ${name}/${seq}`);
    return replicaStateView(shard, seg, replica, nodeId, {
      replicaFetchMaxBytes: this.settings.replica_fetch_max_bytes,
      isOnline: (id) => this.deps.nodes.get(id)?.online === true,
      lastCaughtUpMs: (segment, r) => this.replication.lastCaughtUpMs(segment, r),
      fetcherIndex: (follower, leader) => this.replication.fetcherIndex(follower, leader),
    });
  }

  /** A replica whose node could not be asked (offline, unregistered): available false with the error. */
  unreachableReplica(name: string, seq: number, nodeId: number, error: string): ReplicaStateRecord {
    return unavailableReplicaView(this.segment(name, seq), nodeId, error);
  }
}
