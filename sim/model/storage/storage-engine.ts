import type { IndexedList } from '../api/indexed-list.ts';
import { failed, unavailable } from '../errors/operation-error.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { unixSeconds } from '../api/time-format.ts';
import type { InvariantRegistry } from '../invariants/invariant-registry.ts';
import { fnv1a } from '../engine/fnv1a.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import { RecordLog, type StoredRecord } from './record-log.ts';
import { ReplicaFetchers } from './replica-fetcher.ts';
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
  type SegmentPhase,
  type Shard,
} from './shard-model.ts';
import { StorageController } from './storage-controller.ts';
import type { StoragePeers } from './storage-peers.ts';
import { SegmentJournal, StorageInvariants } from './storage-invariants.ts';
import { DEFAULT_STORAGE_SETTINGS, type StorageBugs, type StorageSettings } from './storage-settings.ts';
import { segmentMetaView, segmentView, shardDetailView, unavailableReplicaView } from './storage-views.ts';
import type { AdapterShardDetailRecord, ReplicaStateRecord, SegmentMetaRecord, SegmentRecord } from '../../../contract/records.ts';

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
  /** Live segments by node holding a replica, for the controller's failover. */
  private readonly byNode = new Map<number, Set<Segment>>();
  /** Next partition of a keyless record per topic (round-robin). */
  private readonly roundRobin = new Map<string, number>();
  private rng!: SeededRandom;

  constructor(private readonly deps: StorageEngineDeps) {
    const touched = (seg: Segment): void => this.touch(seg);
    this.replication = new ReplicaFetchers({
      peers: deps,
      settings: () => this.settings,
      bugs: () => this.bugs,
      canAlterIsr: (nodeId) => this.controller.canAlterIsr(nodeId),
      isFenced: (nodeId) => this.controller.isFenced(nodeId),
      touched,
      onHighWatermark: (seg) => this.maybeSeal(seg),
    });
    this.controller = new StorageController({
      peers: deps,
      replication: this.replication,
      settings: () => this.settings,
      bugs: () => this.bugs,
      segmentsOn: (nodeId) => this.byNode.get(nodeId) ?? [],
      touched,
      onLeadershipChanged: (seg) => this.maybeSeal(seg),
      onNodeWiped: (nodeId) => this.onNodeWiped(nodeId),
    });
    this.invariants = new StorageInvariants(this.journal);
  }

  start(): void {
    this.rng = this.deps.engine.random.fork('storage');
    this.deps.nodes.onLifecycle((e) => {
      if (e.kind === 'leave') this.onNodeLeft(e.nodeId);
    });
    this.replication.start(this.deps.engine.random.fork('storage-fetch'));
    this.controller.start();
    this.invariants.register(this.deps.invariants);
    this.deps.engine.every(RETENTION_SWEEP_MS, 'storage.retention', () => this.sweepRetention());
  }

  seedDemo(): void {
    const replicas = Math.min(3, this.placeableNodes().length);
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

  /** Nodes that can hold a new replica: online, still members, with the engine role, not fenced. */
  private placeableNodes(): number[] {
    return this.deps.nodes
      .online()
      .filter((n) => !n.removed && n.roles.includes('engine') && !this.controller.isFenced(n.id))
      .map((n) => n.id);
  }

  /** Refuses a replica count the online nodes cannot hold. */
  checkPlacement(replicaNum: number, what: string): void {
    const nodes = this.placeableNodes();
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
    const seg = this.newSegment(shard, 0, 0);
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
      this.setPhase(seg, 'PreDelete');
    }
    this.deps.offsets.forgetShards([name]);
    this.deps.engine.record('storage.shard.delete', { name });
    const step = this.settings.delete_step_ms;
    this.deps.engine.after(step, 'storage.shard.deleting', () => {
      shard.status = 'Deleting';
      this.changes++;
      for (const seg of shard.segments) this.setPhase(seg, 'Deleting');
      this.deps.engine.record('storage.shard.deleting', { name });
      this.deps.engine.after(step, 'storage.shard.deleted', () => {
        if (this.shards.get(name) === shard) this.shards.delete(name);
        this.changes++;
        for (const seg of shard.segments) this.forgetSegment(seg);
        this.deps.engine.record('storage.shard.deleted', { name });
      });
    });
  }

  /** Places a new segment on `replica_num` distinct placeable nodes, seeded; the first is the leader. */
  private newSegment(shard: Shard, seq: number, startOffset: number): Segment {
    const nodes = this.rng.shuffle(this.placeableNodes()).slice(0, shard.config.replica_num);
    const replicas: Replica[] = nodes.map((nodeId, i) => {
      const folds = this.deps.nodes.get(nodeId)?.storageFold ?? [];
      const fold = folds.length > 0 ? folds[fnv1a(`${shard.name}/${seq}`) % folds.length] : '';
      // Every replica of a new segment starts empty in epoch 0: nothing to reconcile.
      return {
        replicaSeq: i,
        nodeId,
        fold,
        log: new RecordLog(startOffset),
        syncedEpoch: 0,
        progressLeo: startOffset,
        progressEpoch: 0,
        lastCaughtUpMs: this.deps.nodes.localNow(nodes[0]),
        fetcher: null,
      };
    });
    const seg: Segment = {
      shard,
      seq,
      replicas,
      leaderNodeId: nodes[0],
      isr: [...nodes],
      lastKnownIsr: [...nodes],
      leaderEpoch: 0,
      segmentEpoch: 0,
      leaderBrokerEpoch: this.controller.brokerEpoch(nodes[0]),
      phase: 'Write',
      available: true,
      startOffset,
      hw: startOffset,
      firstTimestampMs: null,
      lastTimestampMs: null,
      bytes: 0,
      gone: false,
    };
    replicas[0].log.assignEpoch(0);
    shard.segments.push(seg);
    for (const nodeId of nodes) {
      let set = this.byNode.get(nodeId);
      if (!set) this.byNode.set(nodeId, (set = new Set()));
      set.add(seg);
    }
    this.replication.attach(seg);
    this.touch(seg);
    return seg;
  }

  /** A segment leaves the model (trimmed away or its shard deleted). */
  private forgetSegment(seg: Segment): void {
    seg.gone = true;
    this.replication.detach(seg);
    for (const r of seg.replicas) this.byNode.get(r.nodeId)?.delete(seg);
    this.journal.forget(seg);
  }

  /**
   * A node came back on a wiped data directory: its replicas are empty, must reconcile like a new
   * follower, and leave any ISR they were still counted in (an Unavailable segment whose last ISR
   * member was wiped has lost its data for good).
   */
  private onNodeWiped(nodeId: number): void {
    for (const seg of this.byNode.get(nodeId) ?? []) {
      // A segment being deleted neither replicates nor serves, and goes with all its records at the
      // end of its delete steps: its frozen state stays as it is (shrinking its ISR here would leave
      // a leader outside its ISR with no controller to re-elect one, as chaos seed 5 found).
      if (seg.phase === 'PreDelete' || seg.phase === 'Deleting') continue;
      const r = replicaOn(seg, nodeId)!;
      r.log.clear(Math.max(seg.startOffset, seg.shard.logStartOffset));
      r.syncedEpoch = -1;
      r.progressEpoch = -1;
      if (seg.isr.includes(nodeId)) {
        seg.lastKnownIsr = seg.isr;
        seg.isr = seg.isr.filter((n) => n !== nodeId);
        seg.segmentEpoch++;
        this.deps.engine.record('storage.isr.shrink', { shard: seg.shard.name, seq: seg.seq, node: nodeId, isr: seg.isr, wiped: true });
      }
      // A leader that left, was never replaced (no controller at the time) and came back wiped.
      if (seg.leaderNodeId === nodeId) this.controller.leaderWiped(seg);
      r.fetcher?.pending.add(seg);
      r.fetcher?.dirty.add(seg);
      this.touch(seg);
    }
  }

  /**
   * Live segments whose acknowledged records only `nodeId` holds: it is in the ISR and no other ISR
   * member is a live cluster member the storage controller hears (a crashed or cut-off member is
   * about to leave the ISR; without a controller no other copy counts).
   */
  soleCopiesOn(nodeId: number): Segment[] {
    const out: Segment[] = [];
    for (const seg of this.byNode.get(nodeId) ?? []) {
      if (seg.gone || seg.phase === 'PreDelete' || seg.phase === 'Deleting' || !seg.isr.includes(nodeId)) continue;
      if (!seg.isr.some((n) => n !== nodeId && this.controller.hears(n))) out.push(seg);
    }
    return out;
  }

  /**
   * Node leave succeeded (spec, node removal: rules 1-3 are the only refusals, as the real server
   * has it). A removed node rejoins only wiped (rule 4), so records only it held are lost by the
   * operator's removal: they are recorded as such (`storage.leave.data-lost`) and relinquished by
   * the acknowledged-write check, which keeps checking every other record. Replicas that have
   * another in-sync copy need nothing: the controller fences the removed node and elects from the
   * copies left. (Decision; see the notes of `cluster.node.leave`.)
   */
  private onNodeLeft(nodeId: number): void {
    for (const seg of this.soleCopiesOn(nodeId)) {
      const to = Math.max(seg.hw, seg.startOffset);
      this.deps.engine.record('storage.leave.data-lost', {
        node: nodeId,
        shard: seg.shard.name,
        seq: seg.seq,
        from: seg.startOffset,
        to,
        isr: seg.isr,
      });
      this.invariants.relinquish(seg.shard, seg.startOffset, to);
      this.lostByLeave++;
    }
  }

  /** Segments whose records a node leave gave up (their only in-sync copy left the cluster). */
  lostByLeave = 0;

  private setPhase(seg: Segment, phase: SegmentPhase): void {
    if (seg.phase === phase) return;
    seg.phase = phase;
    seg.segmentEpoch++;
    this.deps.engine.record('storage.segment.status', { shard: seg.shard.name, seq: seg.seq, status: phase });
    this.touch(seg);
  }

  /** A sealing segment is sealed once its whole content is committed (every ISR member holds it). */
  private maybeSeal(seg: Segment): void {
    if (seg.phase === 'PreSealUp' && seg.available && seg.hw >= segmentEnd(seg)) this.setPhase(seg, 'SealUp');
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
    this.deps.engine.record('storage.append', { shard: name, offset: record.offset, bytes });
    this.touch(seg);
    this.replication.onAppend(seg, leoBefore);
    const excess = logEndOffset(shard) - shard.logStartOffset - maxRecordsHeld(shard.config);
    if (excess > 0) this.trim(shard, shard.logStartOffset + excess);
    if (seg.bytes >= maxSegmentBytes(shard.config)) this.roll(shard);
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

  /**
   * Seals the active segment (`PreSealUp` until its followers hold all of it, then `SealUp`) and
   * opens the next one where it ended, on freshly placed nodes. Without a placeable node the active
   * segment keeps taking writes.
   */
  private roll(shard: Shard): void {
    if (this.placeableNodes().length === 0) return;
    const old = activeSegment(shard);
    this.setPhase(old, 'PreSealUp');
    const next = this.newSegment(shard, old.seq + 1, segmentEnd(old));
    this.deps.raft.tryWrite(this.deps.raft.dataGroupFor(shard.name), 'segment.create');
    this.deps.engine.record('storage.segment.roll', {
      shard: shard.name,
      sealed: old.seq,
      active: next.seq,
      startOffset: next.startOffset,
      replicas: next.replicas.map((r) => r.nodeId),
    });
    this.maybeSeal(old);
  }

  /**
   * Moves the log start to `cut` (never past the high watermark: only committed records go) on every
   * replica, then drops sealed segments left with no records.
   */
  private trim(shard: Shard, cut: number): void {
    const to = Math.min(cut, highWatermark(shard));
    if (to <= shard.logStartOffset) return;
    shard.logStartOffset = to;
    this.changes++;
    let dropped = 0;
    for (const seg of shard.segments) {
      if (seg.startOffset >= to) break;
      for (const r of seg.replicas) {
        const leo = r.log.nextOffset;
        const n = r.log.trimBefore(to);
        if (r.nodeId === seg.leaderNodeId) dropped += n;
        // A follower whose LEO jumped to the new log start reports it.
        if (r.log.nextOffset !== leo) r.fetcher?.pending.add(seg);
      }
      this.touch(seg);
    }
    while (shard.segments.length > 1 && segmentEnd(shard.segments[0]) <= to) this.forgetSegment(shard.segments.shift()!);
    for (const o of shard.deleted) if (o < to) shard.deleted.delete(o);
    this.deps.engine.record('storage.trim', { shard: shard.name, logStartOffset: to, dropped });
  }

  private sweepRetention(): void {
    const cutoff = this.deps.engine.now();
    for (const shard of this.shards) {
      if (shard.status !== 'Run') continue;
      const before = cutoff - shard.config.retention_sec * 1000;
      // Most shards hold nothing that old: their oldest record says so at once.
      const first = leaderReplica(shard.segments[0]).log;
      const oldest = first.get(first.startOffset);
      if (oldest && oldest.timestampMs >= before) continue;
      let cut = shard.logStartOffset;
      for (const seg of shard.segments) {
        const hit = leaderReplica(seg).log.firstAtOrAfter(before);
        if (hit) {
          cut = hit.offset;
          break;
        }
        cut = segmentEnd(seg);
      }
      this.trim(shard, cut);
    }
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

  /**
   * Deletes the records at these offsets (delete-by-offsets). Offsets outside the held log, or already
   * deleted, are ignored as the real memory and RocksDB engines ignore them. Returns how many went.
   */
  deleteByOffsets(name: string, offsets: readonly number[]): number {
    const shard = this.deletableShard(name, 'delete_by_offset');
    const end = logEndOffset(shard);
    const gone = [...new Set(offsets)].filter((o) => Number.isInteger(o) && o >= shard.logStartOffset && o < end && !shard.deleted.has(o));
    return this.markDeleted(shard, gone, 'offsets');
  }

  /**
   * Deletes, for each key, the record the key index points at: the newest held record written with
   * that key (the real engines index a key to its latest write, and forget it once that record is
   * deleted; an older record of the same key stays readable by offset). Returns how many went.
   */
  deleteByKeys(name: string, keys: readonly string[]): number {
    const shard = this.deletableShard(name, 'delete_by_key');
    const gone: number[] = [];
    for (const key of new Set(keys)) {
      const newest = this.newestWithKey(shard, key);
      if (newest !== undefined && !shard.deleted.has(newest) && !gone.includes(newest)) gone.push(newest);
    }
    return this.markDeleted(shard, gone, 'keys');
  }

  /**
   * The shard a record delete may act on. The real EngineSegment cannot delete single records
   * (`delete_by_… operation is not supported`); memory and RocksDB shards keep their records on the
   * active segment's leader, so a delete needs that leader up.
   */
  private deletableShard(name: string, operation: 'delete_by_key' | 'delete_by_offset'): Shard {
    const shard = this.require(name);
    if (shard.config.storage_type === 'EngineSegment') throw failed(`${operation} operation is not supported`);
    const seg = activeSegment(shard);
    if (this.deps.nodes.get(seg.leaderNodeId)?.online !== true) {
      throw unavailable(
        `Shard ${name}: the leader of segment ${seg.seq} (node ${seg.leaderNodeId}) is down and no new leader is elected yet; the delete was refused, retry shortly`,
      );
    }
    return shard;
  }

  /** Offset of the newest record held with this key, if any. */
  private newestWithKey(shard: Shard, key: string): number | undefined {
    for (let i = shard.segments.length - 1; i >= 0; i--) {
      const log = leaderReplica(shard.segments[i]).log;
      for (let o = log.nextOffset - 1; o >= Math.max(log.startOffset, shard.logStartOffset); o--) {
        if (log.get(o)?.key === key) return o;
      }
    }
    return undefined;
  }

  private markDeleted(shard: Shard, offsets: readonly number[], by: 'keys' | 'offsets'): number {
    if (offsets.length === 0) return 0;
    const sorted = [...offsets].sort((a, b) => a - b);
    for (const o of sorted) shard.deleted.add(o);
    this.deps.engine.record('storage.record.delete', { shard: shard.name, by, offsets: sorted });
    return sorted.length;
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
              last_caught_up_ts: unixSeconds(this.replication.lastCaughtUpMs(seg, r)),
              lag: leaderLeo - r.progressLeo,
            }))
        : [],
      fetch: isLeader
        ? null
        : {
            leader_node_id: seg.leaderNodeId,
            current_leader_epoch: seg.leaderEpoch,
            max_bytes: this.settings.replica_fetch_max_bytes,
            fetcher_index: this.replication.fetcherIndex(nodeId, seg.leaderNodeId),
            thread_running: !deleting && seg.available && replica.fetcher !== null && this.deps.nodes.get(nodeId)?.online === true,
          },
      available: true,
      error: null,
    };
  }

  /** A replica whose node could not be asked (offline, unregistered): available false with the error. */
  unreachableReplica(name: string, seq: number, nodeId: number, error: string): ReplicaStateRecord {
    return unavailableReplicaView(this.segment(name, seq), nodeId, error);
  }
}
