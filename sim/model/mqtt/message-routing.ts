import { OperationError } from '../errors/operation-error.ts';
import { aclDenial } from './acl-denial.ts';
import type { PublishInput, PublishRefusal, PublishResult } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import type { ConnectionCloseReason, MessageExtras } from './delivery.ts';
import type { MessageCounters } from './message-counters.ts';
import { clientKey, type ClientState, type Subscription } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { RateWindow } from './rate-window.ts';
import type { SchemaValidation } from './schema-validation.ts';
import type { RoutedMessage, SubscriberDelivery } from './subscriber-delivery.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import { topicNameProblem } from '../topic-filter/topic-filter.ts';

/** What the routing part uses of the broker's other parts. */
export interface RoutingParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'tenants' | 'users' | 'acl' | 'rewriteRules' | 'topics' | 'storage' | 'connectors'>;
  registry: Pick<ClientRegistry, 'get' | 'heartbeatAt'>;
  subscriptions: Pick<SubscriptionStore, 'routes'>;
  counters: MessageCounters;
  rates: RateWindow;
  /** Delivery to one subscriber, shared with the retained messages a subscribe sends. */
  delivery: Pick<SubscriberDelivery, 'deliver' | 'recordFailure'>;
  schemaValidation: Pick<SchemaValidation, 'validate'>;
  /** Closes a publisher's connection (a schema refusal with Disconnect). */
  closeConnection(client: ClientState, why: ConnectionCloseReason): void;
}

/** Publishing: the checks of a PUBLISH, storing the message, and routing it to its subscribers and share groups. */
export class MessageRouting {
  constructor(private readonly parts: RoutingParts) {}

  /** A publish refused: traced, answered with the reason. (A method, not a closure made per publish: this is the hot path.) */
  private refused(tenant: string, topic: string, reason: string, refusal: PublishRefusal): PublishResult {
    this.parts.deps.engine.record('mqtt.publish.refused', { reason, tenant, topic });
    return { ok: false, reason, refusal };
  }

  publish(input: PublishInput): PublishResult {
    const { deps, counters, rates } = this.parts;
    const { tenant, payload } = input;
    // Topic rewrite rules apply before anything else sees the topic (EMQX semantics).
    const topic = deps.rewriteRules.rewrite(tenant, input.topic, 'Publish');
    const problem = topicNameProblem(topic);
    if (problem) return this.refused(tenant, topic, problem, 'invalid-topic');
    if (input.qos !== 0 && input.qos !== 1 && input.qos !== 2)
      return this.refused(tenant, topic, `qos must be 0, 1 or 2, got ${input.qos}`, 'invalid');
    let publisher: ClientState | undefined;
    if (input.clientId !== undefined) {
      publisher = this.parts.registry.get(clientKey(tenant, input.clientId));
      if (!publisher?.connection)
        return this.refused(tenant, topic, `client ${input.clientId} of tenant ${tenant} is not connected`, 'not-connected');
      const denial = aclDenial(deps, publisher, topic, 'Publish');
      if (denial) {
        counters.countDropped(tenant, 1);
        return this.refused(tenant, topic, denial, 'not-authorized');
      }
    }
    const schemaRefusal = this.schemaRefusal(tenant, topic, payload, publisher);
    if (schemaRefusal) return this.refused(tenant, topic, schemaRefusal, 'payload-format');
    rates.roll();
    const rate = deps.tenants.quota(tenant).max_publish_rate;
    if (rates.publishesOf(tenant) >= rate)
      return this.refused(tenant, topic, `tenant ${tenant} reached max_publish_rate (${rate} messages per second)`, 'quota');
    const now = deps.engine.now();
    const message: RoutedMessage = {
      topic,
      payload,
      qos: input.qos,
      retain: input.retain,
      extras: input.extras,
      expiresAt: this.expiryOf(input.extras, now),
    };
    const stored = this.store(input, message, now);
    if (typeof stored === 'string') return this.refused(tenant, topic, stored, 'rejected');
    rates.countPublish(tenant);
    counters.countIn(tenant, topic);
    if (publisher) {
      publisher.messagesIn++;
      this.parts.registry.heartbeatAt(publisher.connection!, now);
    }
    const { delivered, dropped } = this.route(tenant, message, input.clientId);
    if (dropped > 0) counters.countDropped(tenant, dropped);
    deps.connectors.onMessage(tenant, topic, { payload, timestamp: now });
    // Keys in sorted order: the trace's canonical JSON of such a detail is JSON.stringify's, made natively.
    deps.engine.record('mqtt.publish', { delivered, dropped, qos: input.qos, retain: input.retain, tenant, topic });
    return { ok: true, delivered, dropped, offset: stored.offset };
  }

  /**
   * Appends the message to its topic (created on first publish) and keeps it as the topic's retained
   * message when flagged. Returns the offset, or the text of the topics part's refusal.
   */
  private store(input: PublishInput, message: RoutedMessage, now: number): { offset: number | null } | string {
    const { tenant, payload } = input;
    const { topic } = message;
    const topics = this.parts.deps.topics;
    let offset: number | null = null;
    try {
      topics.ensure(tenant, topic);
      const appended = this.parts.deps.storage.appendToTopic(tenant, topic, {
        ...(input.key !== undefined ? { key: input.key } : {}),
        payload,
        timestamp: now,
      });
      if (typeof appended === 'number') offset = appended;
      if (input.retain) {
        const kept = input.extras ? { extras: input.extras, expiresAt: message.expiresAt } : {};
        topics.setRetained(tenant, topic, payload === '' ? null : { payload, qos: input.qos, retainedAt: now, ...kept });
      }
    } catch (e) {
      // A quota or storage refusal of the topics part is the publish's refusal, not a crash.
      if (e instanceof OperationError) return e.message;
      throw e;
    }
    return { offset };
  }

  /** Delivers a message to its exclusive subscribers and one member of each share group; counts the copies. */
  private route(tenant: string, message: RoutedMessage, publisherId: string | undefined): { delivered: number; dropped: number } {
    let delivered = 0;
    let dropped = 0;
    const routes = this.parts.subscriptions.routes(tenant, message.topic);
    for (const sub of routes.exclusive) {
      if (sub.noLocal && sub.clientId === publisherId) continue;
      if (this.parts.delivery.deliver(sub, message)) delivered++;
      else dropped++;
    }
    for (const g of routes.groups) {
      // One member per group: the next online member in round-robin order; dropped when none is online.
      const n = g.members.length;
      let chosen: Subscription | undefined;
      for (let i = 0; i < n; i++) {
        const m = g.members[(g.cursor + i) % n];
        if (this.parts.registry.get(clientKey(m.tenant, m.clientId))?.connection) {
          chosen = m;
          g.cursor = (g.cursor + i + 1) % n;
          break;
        }
      }
      if (chosen) {
        this.parts.delivery.deliver(chosen, message);
        delivered++;
      } else {
        this.parts.delivery.recordFailure(g.members[g.cursor % n], message.topic);
        dropped++;
      }
    }
    // Nobody to deliver to: the message is dropped (it is still stored and forwarded to connectors).
    if (routes.exclusive.length === 0 && routes.groups.length === 0) dropped++;
    return { delivered, dropped };
  }

  /**
   * Schema validation per the MqttSchema config (off unless `enable`). A payload failing the bound
   * schemas (Strict: must match ALL, Forward: ANY) is delivered anyway with `failed_operation`
   * Ignore (traced), or refused with Disconnect, which also disconnects the publishing client.
   * Returns the refusal text, or undefined when the publish goes on.
   */
  private schemaRefusal(tenant: string, topic: string, payload: string, publisher: ClientState | undefined): string | undefined {
    const cfg = this.parts.deps.config.current().MqttSchema;
    if (!cfg.enable) return undefined;
    const verdict = this.parts.schemaValidation.validate(tenant, topic, payload, cfg.strategy);
    if (verdict.ok) return undefined;
    const clientId = publisher?.clientId;
    this.parts.deps.engine.record('mqtt.schema.invalid', {
      tenant,
      topic,
      clientId: clientId ?? null,
      action: cfg.failed_operation,
      problems: verdict.problems.length,
    });
    if (cfg.failed_operation === 'Ignore') return undefined;
    this.parts.counters.countDropped(tenant, 1);
    if (publisher?.connection) this.parts.closeConnection(publisher, 'connection-lost');
    return `message does not match the schema(s) bound to ${topic} (strategy ${cfg.strategy}): ${verdict.problems.join('; ')}${clientId ? `; client ${clientId} disconnected` : ''}`;
  }

  /** Virtual ms a network client's message expires at: its MQTT 5 expiry, capped by max_message_expiry_interval. */
  private expiryOf(extras: MessageExtras | undefined, now: number): number | null {
    const seconds = extras?.properties?.messageExpiryInterval;
    if (seconds === undefined) return null;
    return now + Math.min(seconds, this.parts.deps.config.current().MqttProtocol.max_message_expiry_interval) * 1000;
  }
}
