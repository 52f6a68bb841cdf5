import { failed, unavailable } from '../errors/operation-error.ts';
import { activeSegment, leaderReplica, logEndOffset, type Shard } from './shard-model.ts';
import type { StoragePeers } from './storage-peers.ts';

// Record delete (reference notes §4.11): by offsets, or by keys through the key index.

/** What a record delete uses: the shard by name, the nodes (its leader must be up) and the trace. */
export interface RecordDeleteParts {
  deps: Pick<StoragePeers, 'engine' | 'nodes'>;
  /** The shard, or a `failed` error when it does not exist. */
  require(name: string): Shard;
}

/**
 * Deletes the records at these offsets (delete-by-offsets). Offsets outside the held log, or already
 * deleted, are ignored as the real memory and RocksDB engines ignore them. Returns how many went.
 */
export function deleteByOffsets(parts: RecordDeleteParts, name: string, offsets: readonly number[]): number {
  const shard = deletableShard(parts, name, 'delete_by_offset');
  const end = logEndOffset(shard);
  const gone = [...new Set(offsets)].filter((o) => Number.isInteger(o) && o >= shard.logStartOffset && o < end && !shard.deleted.has(o));
  return markDeleted(parts, shard, gone, 'offsets');
}

/**
 * Deletes, for each key, the record the key index points at: the newest held record written with
 * that key (the real engines index a key to its latest write, and forget it once that record is
 * deleted; an older record of the same key stays readable by offset). Returns how many went.
 */
export function deleteByKeys(parts: RecordDeleteParts, name: string, keys: readonly string[]): number {
  const shard = deletableShard(parts, name, 'delete_by_key');
  const gone: number[] = [];
  for (const key of new Set(keys)) {
    const newest = newestWithKey(shard, key);
    if (newest !== undefined && !shard.deleted.has(newest) && !gone.includes(newest)) gone.push(newest);
  }
  return markDeleted(parts, shard, gone, 'keys');
}

/**
 * The shard a record delete may act on. The real EngineSegment cannot delete single records
 * (`delete_by_… operation is not supported`); memory and RocksDB shards keep their records on the
 * active segment's leader, so a delete needs that leader up.
 */
function deletableShard(parts: RecordDeleteParts, name: string, operation: 'delete_by_key' | 'delete_by_offset'): Shard {
  const shard = parts.require(name);
  if (shard.config.storage_type === 'EngineSegment') throw failed(`${operation} operation is not supported`);
  const seg = activeSegment(shard);
  if (parts.deps.nodes.get(seg.leaderNodeId)?.online !== true) {
    throw unavailable(
      `Shard ${name}: the leader of segment ${seg.seq} (node ${seg.leaderNodeId}) is down and no new leader is elected yet; the delete was refused, retry shortly`,
    );
  }
  return shard;
}

/** Offset of the newest record held with this key, if any. */
function newestWithKey(shard: Shard, key: string): number | undefined {
  for (let i = shard.segments.length - 1; i >= 0; i--) {
    const log = leaderReplica(shard.segments[i]).log;
    for (let o = log.nextOffset - 1; o >= Math.max(log.startOffset, shard.logStartOffset); o--) {
      if (log.get(o)?.key === key) return o;
    }
  }
  return undefined;
}

function markDeleted(parts: RecordDeleteParts, shard: Shard, offsets: readonly number[], by: 'keys' | 'offsets'): number {
  if (offsets.length === 0) return 0;
  const sorted = [...offsets].sort((a, b) => a - b);
  for (const o of sorted) shard.deleted.add(o);
  parts.deps.engine.record('storage.record.delete', { shard: shard.name, by, offsets: sorted });
  return sorted.length;
}
