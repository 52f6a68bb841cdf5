/**
 * Which families' endpoints may be checked at the same time as others. A family is on its own lane
 * when its checks touch only its own instances (created in the run's tenant, or in tenants of its
 * own) and read nothing another family changes: resource CRUD whose lists, filters and limits see
 * only that family. Everything else — the cluster-wide reads and writes (status, config set, node
 * leave), topics and what hangs on them (messages, offsets, storage shards), the MQTT lists fed by the
 * run's clients, mq9 — stays on one lane in the contract's order, as do a family's own endpoints
 * (create, then list, then delete: their checks build on each other).
 *
 * The families before the first independent one (auth … node) run alone first: config set and node
 * leave change the cluster every later check sees, so they finish before anything goes at once.
 */
export const INDEPENDENT_TAGS: ReadonlySet<string> = new Set([
  'tenants',
  'topic-rewrite',
  'users',
  'acl',
  'blacklist',
  'schemas',
  'connectors',
  'auto-subscribe',
]);

/** Endpoints checked at once by default against a server at a URL (each lane is one family or the ordered rest). */
export const DEFAULT_CONCURRENCY = 4;

export interface LanePlan {
  /** Tags checked first, one after another, before anything goes at once. */
  first: string[];
  /** Lanes run at once after `first`; each lane's tags one after another. Longest-expected first. */
  lanes: string[][];
}

/**
 * The lanes for `tags` (in the contract's order). With concurrency 1 every tag is in `first`: the
 * sequential run, in the contract's order.
 */
export function planLanes(tags: readonly string[], concurrency: number, independent: ReadonlySet<string> = INDEPENDENT_TAGS): LanePlan {
  if (concurrency <= 1) return { first: [...tags], lanes: [] };
  const firstIndependent = tags.findIndex((t) => independent.has(t));
  if (firstIndependent === -1) return { first: [...tags], lanes: [] };
  const first = tags.slice(0, firstIndependent);
  const rest = tags.slice(firstIndependent);
  const ordered = rest.filter((t) => !independent.has(t));
  const own = rest.filter((t) => independent.has(t)).map((t) => [t]);
  return { first, lanes: [...(ordered.length ? [ordered] : []), ...own].sort((a, b) => weight(b) - weight(a)) };
}

/**
 * Lanes that usually take longest start first, so the pool ends together: connectors (each config
 * rule is a create: the most requests to one path, paced by the per-path limit), then the ordered rest.
 */
function weight(lane: readonly string[]): number {
  if (lane.includes('connectors')) return 3;
  if (lane.length > 1) return 2;
  if (lane.includes('tenants')) return 1;
  return 0;
}
