import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { defaultShardConfig } from './storage-engine.ts';
import type { EngineShardConfig } from './shard-model.ts';

/** Record deletion in the storage model (reference notes §4.11; the real tests read_key_test.rs, delete_offset_test.rs). */

function clusterWith(storageType: EngineShardConfig['storage_type'] = 'EngineMemory'): Cluster {
  const cluster = new Cluster({ seed: 4, nodes: 1, workload: 'none' });
  cluster.start();
  cluster.storage.createShard({ shard_name: 's', config: defaultShardConfig(1, storageType) });
  for (let i = 0; i < 5; i++) cluster.storage.appendToShard('s', { key: `key-${i}`, payload: `data-${i}` });
  cluster.engine.advance(1_000);
  return cluster;
}

const offsets = (cluster: Cluster, from = 0) => cluster.storage.read('s', from, 100).map((r) => r.offset);

describe('record delete', () => {
  it('by offsets: the deleted offsets are skipped by reads, the others stay (delete_offset_test)', () => {
    const cluster = clusterWith();
    expect(offsets(cluster)).toEqual([0, 1, 2, 3, 4]);
    expect(cluster.storage.deleteByOffsets('s', [1, 3])).toBe(2);
    expect(offsets(cluster)).toEqual([0, 2, 4]);
    // A read from a deleted offset starts at the next held record; a batch is filled past the holes.
    expect(offsets(cluster, 1)).toEqual([2, 4]);
    expect(cluster.storage.read('s', 0, 2).map((r) => r.offset)).toEqual([0, 2]);
    // Offsets are positions: the log end and the high watermark do not move, nothing is reused.
    expect(cluster.storage.logEndOffset('s')).toBe(5);
    expect(cluster.storage.appendToShard('s', { payload: 'next' })).toBe(5);
    // Unknown, repeated and already deleted offsets are ignored, and change nothing.
    const trace = cluster.engine.trace.length;
    expect(cluster.storage.deleteByOffsets('s', [3, 99, -1])).toBe(0);
    expect(cluster.engine.trace.length).toBe(trace);
  });

  it('by keys: the newest record of the key goes; the key is then forgotten (read_key_test)', () => {
    const cluster = clusterWith();
    cluster.storage.appendToShard('s', { key: 'key-3', payload: 'data-3 again' });
    cluster.engine.advance(1_000);
    expect(cluster.storage.deleteByKeys('s', ['key-3', 'no-such-key'])).toBe(1);
    expect(offsets(cluster)).toEqual([0, 1, 2, 3, 4]);
    // The key index pointed at the newest write; once it is gone the key is no more in the index.
    expect(cluster.storage.deleteByKeys('s', ['key-3'])).toBe(0);
    expect(cluster.storage.deleteByKeys('s', ['key-1', 'key-1'])).toBe(1);
    expect(cluster.storage.read('s', 0, 100).map((r) => r.payload)).toEqual(['data-0', 'data-2', 'data-3', 'data-4']);
  });

  it('is refused on EngineSegment shards and unknown shards, with the real texts', () => {
    const cluster = clusterWith('EngineSegment');
    expect(() => cluster.storage.deleteByOffsets('s', [0])).toThrow(/^delete_by_offset operation is not supported$/);
    expect(() => cluster.storage.deleteByKeys('s', ['key-0'])).toThrow(/^delete_by_key operation is not supported$/);
    expect(() => cluster.storage.deleteByKeys('nope', ['k'])).toThrow(/^Shard nope does not exist$/);
    expect(offsets(cluster)).toEqual([0, 1, 2, 3, 4]);
  });

  it('forgets deletions that retention trimmed away', () => {
    const cluster = new Cluster({ seed: 4, nodes: 1, workload: 'none' });
    cluster.start();
    cluster.storage.createShard({ shard_name: 's', config: { ...defaultShardConfig(1), max_record_num: 3 } });
    for (let i = 0; i < 3; i++) cluster.storage.appendToShard('s', { payload: `p${i}` });
    cluster.engine.advance(1_000);
    cluster.storage.deleteByOffsets('s', [0, 2]);
    for (let i = 3; i < 6; i++) cluster.storage.appendToShard('s', { payload: `p${i}` });
    cluster.engine.advance(1_000);
    const shard = cluster.storage.get('s')!;
    expect(shard.logStartOffset).toBeGreaterThan(0);
    expect([...shard.deleted].every((o) => o >= shard.logStartOffset)).toBe(true);
  });
});
