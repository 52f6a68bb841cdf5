/**
 * Which API calls are metadata writes, i.e. go through the meta consensus group: the POSTs that
 * create, update, delete or set a resource, and node leave. The other POSTs read (listings, segment
 * detail, replica state, offset and message reads, login) or write data through their own paths
 * (message send goes to storage, offset commit to an offset group), so a leaderless meta group does
 * not stop them.
 *
 * - `check-then-commit`: refused before anything changes while the meta group has no leader; once
 *   the handler changed the model, answered when its meta entry is committed.
 * - `commit`: node leave, which checks its own preconditions first (rules 1-3 answer even without a
 *   leader, and it changes nothing unless every group it touches has one), then commits like the rest.
 * - `none`: not a metadata write.
 */
export type MetaWritePolicy = 'none' | 'commit' | 'check-then-commit';

const METADATA_VERBS = new Set(['create', 'update', 'delete', 'set']);
const SELF_CHECKED = new Set(['cluster.node.leave']);

/** The policy of the POST endpoint `endpointId` (e.g. `cluster.tenant.create`). */
export function metaWritePolicy(endpointId: string): MetaWritePolicy {
  if (SELF_CHECKED.has(endpointId)) return 'commit';
  return METADATA_VERBS.has(endpointId.slice(endpointId.lastIndexOf('.') + 1)) ? 'check-then-commit' : 'none';
}
