import { clientKey, type PushStats, type Subscription } from './mqtt-model.ts';
import { topicMatches } from './topic-filter.ts';

/** Per-topic push counters kept per subscription; the least recently used topic goes first. */
export const MAX_PUSH_TOPICS = 256;
/** Routing cache entries (tenant, topic) before the cache is dropped and rebuilt on demand. */
const MAX_ROUTE_CACHE = 10_000;

/** Members of one shared subscription (`$share/<group>/<filter>` of one tenant), in subscribe order. */
export interface ShareGroup {
  readonly key: string;
  readonly tenant: string;
  readonly group: string;
  readonly filter: string;
  readonly members: Subscription[];
  /** Round-robin position of the next delivery. */
  cursor: number;
}

/** Who a message published on one topic goes to: each exclusive subscription, and one member per share group. */
export interface Routes {
  readonly tenant: string;
  readonly topic: string;
  readonly exclusive: Subscription[];
  readonly groups: ShareGroup[];
}

const subKey = (tenant: string, clientId: string, path: string): string => `${tenant}\u0000${clientId}\u0000${path}`;
const groupKey = (tenant: string, group: string, filter: string): string => `${tenant}\u0000${group}\u0000${filter}`;

/**
 * Every subscription of the cluster, indexed by key, by client and by share group, with a routing
 * cache per (tenant, topic) that subscribes and unsubscribes update in place (a new subscription is
 * matched against the cached topics only, not every topic against every subscription). Iteration is
 * in subscribe order; a cached route lists subscriptions in the order they were added to it.
 */
export class SubscriptionStore {
  private readonly byKey = new Map<string, Subscription>();
  private readonly byClient = new Map<string, Map<string, Subscription>>();
  private readonly groups = new Map<string, ShareGroup>();
  private routeCache = new Map<string, Routes>();

  get size(): number {
    return this.byKey.size;
  }

  get(tenant: string, clientId: string, path: string): Subscription | undefined {
    return this.byKey.get(subKey(tenant, clientId, path));
  }

  /** Adds a subscription, or replaces the options of the one with the same path (MQTT re-subscribe). */
  put(sub: Subscription): { created: boolean; subscription: Subscription } {
    const key = subKey(sub.tenant, sub.clientId, sub.path);
    const existing = this.byKey.get(key);
    if (existing) {
      existing.qos = sub.qos;
      existing.noLocal = sub.noLocal;
      existing.preserveRetain = sub.preserveRetain;
      existing.retainHandling = sub.retainHandling;
      existing.subscriptionIdentifier = sub.subscriptionIdentifier;
      existing.userProperties = sub.userProperties;
      existing.brokerId = sub.brokerId;
      existing.pkId = sub.pkId;
      return { created: false, subscription: existing };
    }
    this.byKey.set(key, sub);
    const ck = clientKey(sub.tenant, sub.clientId);
    let mine = this.byClient.get(ck);
    if (!mine) this.byClient.set(ck, (mine = new Map()));
    mine.set(sub.path, sub);
    if (sub.group === null) {
      for (const r of this.routeCache.values()) if (r.tenant === sub.tenant && topicMatches(sub.filter, r.topic)) r.exclusive.push(sub);
    } else {
      const gk = groupKey(sub.tenant, sub.group, sub.filter);
      let g = this.groups.get(gk);
      if (!g) {
        this.groups.set(gk, (g = { key: gk, tenant: sub.tenant, group: sub.group, filter: sub.filter, members: [], cursor: 0 }));
        for (const r of this.routeCache.values()) if (r.tenant === sub.tenant && topicMatches(sub.filter, r.topic)) r.groups.push(g);
      }
      g.members.push(sub);
    }
    return { created: true, subscription: sub };
  }

  remove(tenant: string, clientId: string, path: string): Subscription | undefined {
    const key = subKey(tenant, clientId, path);
    const sub = this.byKey.get(key);
    if (!sub) return undefined;
    this.byKey.delete(key);
    const ck = clientKey(tenant, clientId);
    const mine = this.byClient.get(ck);
    mine?.delete(path);
    if (mine && mine.size === 0) this.byClient.delete(ck);
    if (sub.group === null) {
      for (const r of this.routeCache.values()) {
        const i = r.exclusive.indexOf(sub);
        if (i >= 0) r.exclusive.splice(i, 1);
      }
    } else {
      const gk = groupKey(tenant, sub.group, sub.filter);
      const g = this.groups.get(gk);
      if (g) {
        const i = g.members.indexOf(sub);
        if (i >= 0) g.members.splice(i, 1);
        if (g.members.length > 0) g.cursor %= g.members.length;
        else {
          this.groups.delete(gk);
          for (const r of this.routeCache.values()) {
            const j = r.groups.indexOf(g);
            if (j >= 0) r.groups.splice(j, 1);
          }
        }
      }
    }
    return sub;
  }

  /** Removes every subscription of a client (its session ended); returns how many went. */
  removeClient(tenant: string, clientId: string): number {
    const mine = this.byClient.get(clientKey(tenant, clientId));
    if (!mine) return 0;
    const paths = [...mine.keys()];
    for (const p of paths) this.remove(tenant, clientId, p);
    return paths.length;
  }

  ofClient(tenant: string, clientId: string): Subscription[] {
    return [...(this.byClient.get(clientKey(tenant, clientId))?.values() ?? [])];
  }

  all(): IterableIterator<Subscription> {
    return this.byKey.values();
  }

  shareGroups(): IterableIterator<ShareGroup> {
    return this.groups.values();
  }

  /** Where a message on `topic` of `tenant` goes; cached until the subscriptions change. */
  routes(tenant: string, topic: string): Routes {
    const key = `${tenant}\u0000${topic}`;
    const cached = this.routeCache.get(key);
    if (cached) return cached;
    const exclusive: Subscription[] = [];
    const groups: ShareGroup[] = [];
    for (const sub of this.byKey.values()) {
      if (sub.tenant !== tenant || sub.group !== null || !topicMatches(sub.filter, topic)) continue;
      exclusive.push(sub);
    }
    for (const g of this.groups.values()) {
      if (g.tenant === tenant && topicMatches(g.filter, topic)) groups.push(g);
    }
    if (this.routeCache.size >= MAX_ROUTE_CACHE) this.routeCache = new Map();
    const routes: Routes = { tenant, topic, exclusive, groups };
    this.routeCache.set(key, routes);
    return routes;
  }

  /** Drops the cached route of a topic (it was deleted). */
  forgetRoute(tenant: string, topic: string): void {
    this.routeCache.delete(`${tenant}\u0000${topic}`);
  }

  /** Push counters of `sub` for `topic`, created on first use, most recently used last. */
  pushStats(sub: Subscription, topic: string, now: number): PushStats {
    let stats = sub.push.get(topic);
    if (stats) {
      sub.push.delete(topic);
    } else {
      stats = { success: 0, failure: 0, lastPushAt: null, lastRunAt: now, createdAt: now };
      if (sub.push.size >= MAX_PUSH_TOPICS) sub.push.delete(sub.push.keys().next().value as string);
    }
    sub.push.set(topic, stats);
    return stats;
  }
}
