/**
 * Which families' endpoints may be checked at the same time as each other. A family is independent
 * when its checks touch only its own instances (created in the run's tenant, or in tenants of its
 * own) and read nothing another independent family changes: resource CRUD whose lists, filters and
 * limits see only that family. The others — cluster-wide reads and writes (status, config set, node
 * leave), topics and what hangs on them (messages, offsets, storage shards), the MQTT lists and the
 * overview's counts of every family (connector_num), mq9 — are never run beside anything. Nor are
 * connectors: their checks wait for the scheduler (a running connector, a retried send), so what
 * they see depends on the time other families' writes take (the simulator's clock moves with them).
 *
 * Only neighbours in the contract's order go at once: a run of consecutive independent families is
 * one group, checked concurrently, and each other family is a group of its own, so every family sees
 * the cluster as the sequential run would — what the families before it made, nothing of those after
 * it. A family's own endpoints stay in order (create, then list, then delete: their checks build on
 * each other).
 */
const INDEPENDENT_TAGS: ReadonlySet<string> = new Set([
  'tenants',
  'topic-rewrite',
  'users',
  'acl',
  'blacklist',
  'schemas',
  'auto-subscribe',
]);

/**
 * Families checked while the MQTT listener probe is still going on (it may wait seconds for its client
 * to show in the target's lists, in vain when another broker answers at the port the target names):
 * the first families of the contract's order, which only read the cluster's state or check logins,
 * never act as an MQTT client, read the MQTT lists or counts, or change the configuration the
 * listener obeys. Every later family waits for the probe and the clients it connects.
 */
export const BESIDE_MQTT_PROBE: ReadonlySet<string> = new Set(['auth', 'status', 'cluster-status', 'health']);

/** Families checked at once by default against a server at a URL. */
export const DEFAULT_CONCURRENCY = 4;

/**
 * The groups of `tags` (in the contract's order), checked one group after another; the tags of a
 * group at once, at most `concurrency` at a time. With concurrency 1 each tag is a group: the
 * sequential run.
 */
export function planGroups(tags: readonly string[], concurrency: number, independent: ReadonlySet<string> = INDEPENDENT_TAGS): string[][] {
  const groups: string[][] = [];
  for (const tag of tags) {
    const last = groups.at(-1);
    if (concurrency > 1 && independent.has(tag) && last && independent.has(last[0]!)) last.push(tag);
    else groups.push([tag]);
  }
  return groups;
}

/**
 * Properties run at once by the property suites (each in tenants of its own, its results in a fixed
 * place whatever the order they finish in): 4 in a sequential run, as before, and twice the
 * families' lanes otherwise — against a server most of a property's time is the round trip of its
 * requests, one after another, and the per-path budget keeps every path within the limit however
 * many go at once.
 */
export function propertyLanes(concurrency: number): number {
  return concurrency <= 1 ? 4 : 2 * concurrency;
}
