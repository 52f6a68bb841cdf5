import { failed } from '../errors/operation-error.ts';
import type { AutoSubscribeRecord } from '../../../contract/records.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { ConnectedEvent, SubscribeInput, SubscribeResult } from './broker-api.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { QOS_LABELS, RETAIN_HANDLING_LABELS } from './mqtt-labels.ts';
import { TenantScopedStore } from '../broker/tenant-scoped-store.ts';

export interface AutoSubscribeRule {
  tenant: string;
  name: string;
  desc: string;
  topic: string;
  qos: 0 | 1 | 2;
  no_local: boolean;
  retain_as_published: boolean;
  retained_handling: 0 | 1 | 2;
}

/** What the rules use of the MQTT broker: its connect events, and subscribing a client. */
interface AutoSubscribeBroker {
  onConnect(listener: (e: ConnectedEvent) => void): () => void;
  subscribe(input: SubscribeInput): SubscribeResult;
}

export interface AutoSubscribeDeps {
  engine: Pick<SimEngine, 'record'>;
  /** Built after the rules: read at start, not at construction. */
  readonly mqtt: AutoSubscribeBroker;
}

/**
 * Subscriptions the broker adds for every client of a tenant when it connects. `${clientid}` and
 * `${username}` in the topic are replaced by the client's values.
 */
export class AutoSubscribeRules {
  private readonly store = new TenantScopedStore<AutoSubscribeRule>({
    viewFields: { qos: (r) => QOS_LABELS[r.qos], retained_handling: (r) => RETAIN_HANDLING_LABELS[r.retained_handling] },
  });

  constructor(private readonly deps: AutoSubscribeDeps) {}

  /** Every admitted connection gets the subscriptions of its tenant's rules. */
  start(): void {
    this.deps.mqtt.onConnect((e) => {
      for (const rule of this.forClient(e.tenant, e.clientId, e.username)) {
        this.deps.mqtt.subscribe({
          tenant: e.tenant,
          clientId: e.clientId,
          path: rule.topic,
          qos: rule.qos,
          noLocal: rule.no_local,
          preserveRetain: rule.retain_as_published,
          retainHandling: rule.retained_handling,
        });
      }
    });
  }

  seedDemo(): void {
    this.create({
      tenant: 'acme',
      name: 'device-commands',
      desc: 'every device listens to its command topic',
      topic: 'commands/${clientid}',
      qos: 1,
      no_local: false,
      retain_as_published: false,
      retained_handling: 0,
    });
  }

  create(rule: AutoSubscribeRule): void {
    if (this.store.has(rule.tenant, rule.name))
      throw failed(`Auto subscribe rule '${rule.name}' for tenant '${rule.tenant}' already exists`);
    this.store.set(rule.tenant, rule.name, { ...rule });
    this.deps.engine.record('auto-subscribe.create', { tenant: rule.tenant, name: rule.name });
  }

  delete(tenant: string, name: string): void {
    if (!this.store.delete(tenant, name)) throw failed(`Auto subscribe rule '${name}' for tenant '${tenant}' does not exist`);
    this.deps.engine.record('auto-subscribe.delete', { tenant, name });
  }

  all(): AutoSubscribeRule[] {
    return this.store.all();
  }

  /** The auto-subscribe list, served from the store's sorted indexes. */
  listing(): IndexedList<IndexEntry<AutoSubscribeRule>, AutoSubscribeRecord> {
    return this.store.listing((r) => this.view(r));
  }

  /** The subscriptions to add for a client connecting to `tenant`. */
  forClient(tenant: string, clientId: string, username = ''): Array<Omit<AutoSubscribeRule, 'topic'> & { topic: string }> {
    return this.store
      .all()
      .filter((r) => r.tenant === tenant)
      .map((r) => ({ ...r, topic: r.topic.replaceAll('${clientid}', clientId).replaceAll('${username}', username) }));
  }

  view(r: AutoSubscribeRule): AutoSubscribeRecord {
    return {
      name: r.name,
      desc: r.desc,
      tenant: r.tenant,
      topic: r.topic,
      qos: QOS_LABELS[r.qos],
      no_local: r.no_local,
      retain_as_published: r.retain_as_published,
      retained_handling: RETAIN_HANDLING_LABELS[r.retained_handling],
    };
  }
}
