import { failed } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { GroupOffsetRecord } from '../../../contract/records.ts';

/** One committed position, as `offset/commit` carries it (`AdapterCommitOffset`). */
export interface CommitOffset {
  shard_name: string;
  topic_name: string;
  partition: number;
  offset: number;
}

interface StoredOffset extends CommitOffset {
  /** Virtual Unix ms of the last commit. */
  committedAt: number;
}

const groupKey = (tenant: string, group: string): string => `${tenant}\u0000${group}`;

export interface ConsumerOffsetsDeps {
  engine: Pick<SimEngine, 'now' | 'record'>;
  /** The offset consensus groups a commit is written to. */
  raft: { offsetGroupFor(key: string): string; write(groupName: string, kind: string): unknown };
  /** The demo commits on the demo topic's partitions. */
  topics: {
    get(tenant: string, topicName: string): { readonly topic_name: string; readonly storage_name_list: readonly string[] } | undefined;
  };
  storage: { segmentSeqOf(shardName: string, offset: number): number | null };
}

/**
 * Committed offsets of consumer groups, per tenant and group, one position per shard; a commit
 * overwrites. Each group's commits are written to the offset consensus group its name hashes to.
 */
export class ConsumerOffsets {
  private readonly groups = new Map<string, { tenant: string; group: string; byShard: Map<string, StoredOffset> }>();

  constructor(private readonly deps: ConsumerOffsetsDeps) {}

  seedDemo(): void {
    const topic = this.deps.topics.get('default', 'sensors/temperature');
    if (!topic) return;
    this.commit(
      'default',
      'analytics',
      topic.storage_name_list.map((shard, partition) => ({ shard_name: shard, topic_name: topic.topic_name, partition, offset: 3 })),
    );
  }

  commit(tenant: string, group: string, offsets: readonly CommitOffset[]): void {
    if (offsets.length === 0) throw failed('offsets cannot be empty');
    this.deps.raft.write(this.deps.raft.offsetGroupFor(groupKey(tenant, group)), 'offset.commit');
    const key = groupKey(tenant, group);
    const entry = this.groups.get(key) ?? { tenant, group, byShard: new Map<string, StoredOffset>() };
    const now = this.deps.engine.now();
    for (const o of offsets) {
      entry.byShard.set(o.shard_name, {
        shard_name: o.shard_name,
        topic_name: o.topic_name,
        partition: o.partition,
        offset: o.offset,
        committedAt: now,
      });
    }
    this.groups.set(key, entry);
    this.deps.engine.record('offset.commit', { tenant, group, offsets: offsets.map((o) => [o.shard_name, o.offset]) });
  }

  /** The group's positions, by shard name; an unknown group has none. */
  groupOffsets(tenant: string, group: string): GroupOffsetRecord[] {
    const entry = this.groups.get(groupKey(tenant, group));
    if (!entry) return [];
    return [...entry.byShard.values()]
      .sort((a, b) => (a.shard_name < b.shard_name ? -1 : a.shard_name > b.shard_name ? 1 : 0))
      .map((o) => ({
        group,
        shard_name: o.shard_name,
        segment_no: this.deps.storage.segmentSeqOf(o.shard_name, o.offset) ?? 0,
        topic_name: o.topic_name,
        partition: o.partition,
        offset: o.offset,
      }));
  }

  /** Drops every position on these shards (their shard or topic was deleted). */
  forgetShards(shardNames: readonly string[]): void {
    let dropped = 0;
    for (const [key, entry] of this.groups) {
      for (const name of shardNames) if (entry.byShard.delete(name)) dropped++;
      if (entry.byShard.size === 0) this.groups.delete(key);
    }
    if (dropped > 0) this.deps.engine.record('offset.forget', { shards: [...shardNames], dropped });
  }
}
