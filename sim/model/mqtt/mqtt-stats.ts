import type { MqttBroker } from './mqtt-broker.ts';
import { CONNECTION_TYPES, type ConnectionType } from './mqtt-labels.ts';
import type { ConnectorLike, TopicRecordLike } from './peer-parts.ts';

/** Counts of the MQTT side at one instant, by tenant: what the overview and `/metrics` both show. */
export interface MqttStats {
  connections: { total: number; byType: Record<ConnectionType, number>; byTenantType: Map<string, Record<ConnectionType, number>> };
  sessions: { total: number; byTenant: Map<string, number> };
  topics: { total: number; byTenant: Map<string, number> };
  subscriptions: {
    total: number;
    exclusive: number;
    exclusiveThreads: number;
    shared: number;
    shareGroups: number;
    sharedThreads: number;
    byTenant: Map<string, { exclusive: number; shared: number }>;
  };
  connectors: ConnectorLike[];
}

const zeroByType = (): Record<ConnectionType, number> =>
  Object.fromEntries(CONNECTION_TYPES.map((t) => [t, 0])) as Record<ConnectionType, number>;

/** What the counts are taken from: the broker's clients and subscriptions, the topics, the connectors. */
export interface MqttStatsSources {
  mqtt: Pick<MqttBroker, 'allClients' | 'subscriptions' | 'client'>;
  topics: { all(): readonly TopicRecordLike[] };
  connectors: { all(): readonly ConnectorLike[] };
}

const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);

export function collectMqttStats(sources: MqttStatsSources): MqttStats {
  const broker = sources.mqtt;
  const byType = zeroByType();
  const byTenantType = new Map<string, Record<ConnectionType, number>>();
  const sessionsByTenant = new Map<string, number>();
  let connections = 0;
  let sessions = 0;
  for (const c of broker.allClients()) {
    if (c.session) {
      sessions++;
      bump(sessionsByTenant, c.tenant);
    }
    if (!c.connection) continue;
    connections++;
    byType[c.last.connectionType]++;
    let t = byTenantType.get(c.tenant);
    if (!t) byTenantType.set(c.tenant, (t = zeroByType()));
    t[c.last.connectionType]++;
  }

  const topicsByTenant = new Map<string, number>();
  const topics = sources.topics.all();
  for (const t of topics) bump(topicsByTenant, t.tenant);

  const subsByTenant = new Map<string, { exclusive: number; shared: number }>();
  let exclusive = 0;
  let exclusiveThreads = 0;
  let shared = 0;
  for (const s of broker.subscriptions.all()) {
    let t = subsByTenant.get(s.tenant);
    if (!t) subsByTenant.set(s.tenant, (t = { exclusive: 0, shared: 0 }));
    if (s.group === null) {
      exclusive++;
      t.exclusive++;
      // An exclusive subscription has a push thread while its client is connected.
      if (broker.client(s.tenant, s.clientId)?.connection) exclusiveThreads++;
    } else {
      shared++;
      t.shared++;
    }
  }
  // Share groups are (tenant, group name); a shared subscription (group + filter) has one push
  // thread while at least one member is connected.
  const groupNames = new Set<string>();
  let sharedThreads = 0;
  for (const g of broker.subscriptions.shareGroups()) {
    groupNames.add(`${g.tenant}\u0000${g.group}`);
    if (g.members.some((m) => broker.client(m.tenant, m.clientId)?.connection)) sharedThreads++;
  }

  return {
    connections: { total: connections, byType, byTenantType },
    sessions: { total: sessions, byTenant: sessionsByTenant },
    topics: { total: topics.length, byTenant: topicsByTenant },
    subscriptions: {
      total: exclusive + shared,
      exclusive,
      exclusiveThreads,
      shared,
      shareGroups: groupNames.size,
      sharedThreads,
      byTenant: subsByTenant,
    },
    connectors: [...sources.connectors.all()],
  };
}

/** Sorted entries of a map keyed by tenant, so outputs read the same on every run. */
export function sortedEntries<V>(m: Map<string, V>): [string, V][] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
