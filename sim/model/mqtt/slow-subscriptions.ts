import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { localTimeString } from '../api/time-format.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { SimNode } from '../nodes/node-registry.ts';

/** The spec's slow subscription record. */
export interface SlowSubscriptionRecord {
  tenant: string;
  client_id: string;
  topic_name: string;
  /** Milliseconds the delivery took. */
  time_span: number;
  node_info: string;
  create_time: string;
  subscribe_name: string;
}

/** Records kept; the oldest key goes first. Keys are (tenant, client, topic), so this bounds a busy cluster. */
const MAX_SLOW_SUBSCRIPTIONS = 10_000;

/** How a node is named in `node_info`: the node and the MQTT listener that served the delivery. */
function nodeInfo(node: SimNode): string {
  return `node-${node.id}@${node.ip}:${node.ports.mqttTcp}`;
}

/**
 * Slow subscriptions: while `MqttSlowSubscribeConfig.enable`, a delivery slower than `record_time`
 * ms records (or updates: only the latest per key is kept) the record of (tenant, client, topic).
 * Records are cluster-wide (decision; the real server keeps them per node).
 */
export class SlowSubscriptions {
  private readonly records = new RecordIndex<SlowSubscriptionRecord>({ viewsOfRecordsOnly: true });

  constructor(private readonly deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'nodes'>) {}

  /**
   * Called for every delivery with its two delay components: `internalMs` (from the message's
   * creation to the push) and `sendMs` (the push to the client). `delay_type` CreateTime measures
   * both, PublishTime only the send.
   */
  observe(d: { tenant: string; clientId: string; topic: string; path: string; nodeId: number; internalMs: number; sendMs: number }): void {
    const cfg = this.deps.config.current().MqttSlowSubscribeConfig;
    if (!cfg.enable) return;
    const span = cfg.delay_type === 'PublishTime' ? d.sendMs : d.internalMs + d.sendMs;
    if (span <= cfg.record_time) return;
    const node = this.deps.nodes.get(d.nodeId);
    const key = `${d.tenant}\u0000${d.clientId}\u0000${d.topic}`;
    this.records.delete(key);
    this.records.set(key, {
      tenant: d.tenant,
      client_id: d.clientId,
      topic_name: d.topic,
      time_span: span,
      node_info: node ? nodeInfo(node) : `node-${d.nodeId}`,
      create_time: localTimeString(this.deps.engine.now()),
      subscribe_name: d.path,
    });
    if (this.records.size > MAX_SLOW_SUBSCRIPTIONS) this.records.delete(this.records.keys().next().value as string);
    this.deps.engine.record('mqtt.slow-subscribe', { tenant: d.tenant, clientId: d.clientId, topic: d.topic, span });
  }

  /** Drops the records of a deleted topic. */
  forgetTopic(tenant: string, topic: string): void {
    for (const key of [...this.records.keys()]) {
      const r = this.records.get(key)!;
      if (r.tenant === tenant && r.topic_name === topic) this.records.delete(key);
    }
  }

  /** Every record, oldest update first. */
  all(): SlowSubscriptionRecord[] {
    return this.records.values().map((r) => ({ ...r }));
  }

  /** The slow-subscription list (each record as a copy), served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<SlowSubscriptionRecord>, SlowSubscriptionRecord> {
    return this.records.listing((r) => ({ ...r }));
  }

  get size(): number {
    return this.records.size;
  }
}
