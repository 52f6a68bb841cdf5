import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { clientKey, type PushStats, type Subscription } from './mqtt-model.ts';
import { FilterIndex } from './filter-index.ts';

/** Per-topic push counters kept per subscription; the least recently used topic goes first. */
const MAX_PUSH_TOPICS = 256;

/** Members of one shared subscription (`$share/<group>/<filter>` of one tenant), in subscribe order. */
export interface ShareGroup {
  readonly key: string;
  readonly tenant: string;
  readonly group: string;
  readonly filter: string;
  readonly members: Subscription[];
  /** Round-robin position of the next delivery. */
  cursor: number;
  /** Identity the group got when its first member subscribed (the real server's ShareGroup.uuid). */
  readonly uuid: string;
  /** Virtual Unix ms of the first member's subscribe, when the group came to be. */
  readonly createdAt: number;
}

/** The filters of one tenant, indexed for routing. */
interface TenantFilters {
  readonly exclusive: FilterIndex<Subscription>;
  readonly groups: FilterIndex<ShareGroup>;
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
 * Every subscription of the cluster, indexed by key, by client, by share group, and by topic filter
 * per tenant (a trie: routing a publish walks the topic's levels instead of testing every
 * subscription). Iteration is in subscribe order, and so are routes: a route lists the matching
 * subscriptions (and share groups) in the order they were created, which is the order a scan of
 * every subscription would find them in.
 */
export class SubscriptionStore {
  /** `newGroupId` names a share group when its first member arrives (a seeded stream of its own). */
  /** `view`: a subscription as the subscription list shows it. */
  constructor(
    private readonly newGroupId: () => string,
    private readonly view: (sub: Subscription) => object,
  ) {
    this.byKey = new RecordIndex<Subscription>({
      viewFields: { tenant: (s) => s.tenant, client_id: (s) => s.clientId, path: (s) => s.path },
      otherFieldsFromView: view,
      // The list's view (subscriptionRecord) reads the subscription alone, and its listed fields
      // change only through this index (put's modify, moveToBroker): pages and answers may be kept.
      viewsOfRecordsOnly: true,
    });
  }

  /** In subscribe order; the subscription list's pages are read from its sorted indexes. */
  private readonly byKey: RecordIndex<Subscription>;
  private readonly byClient = new Map<string, Map<string, Subscription>>();
  private readonly groups = new Map<string, ShareGroup>();
  private readonly filters = new Map<string, TenantFilters>();
  /** Creation order of subscriptions and share groups, for the order of routes. */
  private readonly created = new Map<Subscription | ShareGroup, number>();
  private nextSeq = 0;

  private tenantFilters(tenant: string): TenantFilters {
    let f = this.filters.get(tenant);
    if (!f) this.filters.set(tenant, (f = { exclusive: new FilterIndex(), groups: new FilterIndex() }));
    return f;
  }

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
      // Through the index, like every change of a listed field (its views are of the records alone).
      this.byKey.modify(key, (e) => {
        e.qos = sub.qos;
        e.noLocal = sub.noLocal;
        e.preserveRetain = sub.preserveRetain;
        e.retainHandling = sub.retainHandling;
        e.subscriptionIdentifier = sub.subscriptionIdentifier;
        e.userProperties = sub.userProperties;
        e.brokerId = sub.brokerId;
        e.pkId = sub.pkId;
      });
      return { created: false, subscription: existing };
    }
    this.byKey.set(key, sub);
    this.created.set(sub, this.nextSeq++);
    const ck = clientKey(sub.tenant, sub.clientId);
    let mine = this.byClient.get(ck);
    if (!mine) this.byClient.set(ck, (mine = new Map()));
    mine.set(sub.path, sub);
    if (sub.group === null) {
      this.tenantFilters(sub.tenant).exclusive.add(sub.filter, sub);
    } else {
      const gk = groupKey(sub.tenant, sub.group, sub.filter);
      let g = this.groups.get(gk);
      if (!g) {
        this.groups.set(
          gk,
          (g = {
            key: gk,
            tenant: sub.tenant,
            group: sub.group,
            filter: sub.filter,
            members: [],
            cursor: 0,
            uuid: this.newGroupId(),
            createdAt: sub.createdAt,
          }),
        );
        this.created.set(g, this.nextSeq++);
        this.tenantFilters(sub.tenant).groups.add(sub.filter, g);
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
    this.created.delete(sub);
    const ck = clientKey(tenant, clientId);
    const mine = this.byClient.get(ck);
    mine?.delete(path);
    if (mine && mine.size === 0) this.byClient.delete(ck);
    if (sub.group === null) {
      this.filters.get(tenant)?.exclusive.remove(sub.filter, sub);
    } else {
      const gk = groupKey(tenant, sub.group, sub.filter);
      const g = this.groups.get(gk);
      if (g) {
        const i = g.members.indexOf(sub);
        if (i >= 0) g.members.splice(i, 1);
        if (g.members.length > 0) g.cursor %= g.members.length;
        else {
          this.groups.delete(gk);
          this.created.delete(g);
          this.filters.get(tenant)?.groups.remove(g.filter, g);
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

  /** A resumed session's subscriptions now live on `nodeId` (their broker_id), changed through the index. */
  moveToBroker(tenant: string, clientId: string, nodeId: number): void {
    for (const sub of this.byClient.get(clientKey(tenant, clientId))?.values() ?? []) {
      if (sub.brokerId !== nodeId) this.byKey.modify(subKey(tenant, clientId, sub.path), (s) => void (s.brokerId = nodeId));
    }
  }

  ofClient(tenant: string, clientId: string): Subscription[] {
    return [...(this.byClient.get(clientKey(tenant, clientId))?.values() ?? [])];
  }

  all(): IterableIterator<Subscription> {
    return this.byKey[Symbol.iterator]();
  }

  /** Calls `visit` with every subscription in the order of `all()`. */
  forEach(visit: (sub: Subscription) => void): void {
    this.byKey.forEachRecord(visit);
  }

  /** The subscription list, served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<Subscription>, object> {
    return this.byKey.listing(this.view);
  }

  /** Every share group, in the order the groups came to be. */
  shareGroups(): IterableIterator<ShareGroup> {
    return this.groups.values();
  }

  /** The share group of `$share/<group>/<filter>` in `tenant`, if it has members. */
  shareGroup(tenant: string, group: string, filter: string): ShareGroup | undefined {
    return this.groups.get(groupKey(tenant, group, filter));
  }

  /** Where a message on `topic` of `tenant` goes: the matching subscriptions and share groups, in creation order. */
  routes(tenant: string, topic: string): Routes {
    const exclusive: Subscription[] = [];
    const groups: ShareGroup[] = [];
    const f = this.filters.get(tenant);
    if (f) {
      f.exclusive.match(topic, (sub) => exclusive.push(sub));
      f.groups.match(topic, (g) => groups.push(g));
      if (exclusive.length > 1) exclusive.sort((a, b) => this.created.get(a)! - this.created.get(b)!);
      if (groups.length > 1) groups.sort((a, b) => this.created.get(a)! - this.created.get(b)!);
    }
    return { tenant, topic, exclusive, groups };
  }

  /** Push counters of `sub` for `topic`, created on first use, most recently used last. */
  pushStats(sub: Subscription, topic: string, now: number): PushStats {
    let stats = sub.push.get(topic);
    if (stats) {
      sub.push.delete(topic);
    } else {
      stats = { success: 0, failure: 0, lastPushAt: null, lastRunAt: now, createdAt: now };
      sub.pushedAny = true;
      if (sub.push.size >= MAX_PUSH_TOPICS) sub.push.delete(sub.push.keys().next().value as string);
    }
    sub.push.set(topic, stats);
    return stats;
  }
}
