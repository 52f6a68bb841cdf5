import type { EndpointContract, WriteClass } from '../../../contract/core/types.ts';

/**
 * How the simulator serves an API call that may write metadata, read from the endpoint's declared
 * write class (the contract's `writeClass`): metadata writes go through the meta consensus group.
 * The other POSTs read (listings, segment detail, replica state, offset and message reads, login) or
 * write data through their own paths (message send goes to storage, offset commit to an offset
 * group), so a leaderless meta group does not stop them.
 *
 * - `check-then-commit`: refused before anything changes while the meta group has no leader; once
 *   the handler changed the model, answered when its meta entry is committed.
 * - `commit`: node leave, which checks its own preconditions first (rules 1-3 answer even without a
 *   leader, and it changes nothing unless every group it touches has one), then commits like the rest.
 * - `none`: not a metadata write.
 */
export type MetaWritePolicy = 'none' | 'commit' | 'check-then-commit';

const POLICY: Readonly<Record<WriteClass, MetaWritePolicy>> = {
  metadata: 'check-then-commit',
  'metadata-self-checked': 'commit',
  none: 'none',
};

/**
 * The policy of an endpoint: none for a GET; for a POST, its declared write class. A POST without
 * one throws, so a new endpoint cannot slip past the meta group by forgetting to say what it writes.
 */
export function metaWritePolicy(endpoint: Pick<EndpointContract, 'id' | 'method' | 'writeClass'>): MetaWritePolicy {
  if (endpoint.method !== 'POST') return 'none';
  if (endpoint.writeClass === undefined)
    throw new Error(`POST endpoint ${endpoint.id} declares no writeClass (metadata, metadata-self-checked or none) in the contract`);
  return POLICY[endpoint.writeClass];
}
