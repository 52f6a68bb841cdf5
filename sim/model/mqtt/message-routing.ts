import { OperationError } from '../errors/operation-error.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { PublishInput, PublishRefusal, PublishResult } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import type { ConnectionCloseReason, MessageExtras, OutgoingMessage } from './delivery.ts';
import type { MessageCounters } from './message-counters.ts';
import type { QoS } from './mqtt-labels.ts';
import { clientKey, type ClientState, type Subscription } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { RateWindow } from './rate-window.ts';
import type { SchemaValidation } from './schema-validation.ts';
import { keepWhileOffline } from './session-queue.ts';
import type { SlowSubscriptions } from './slow-subscriptions.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import { topicNameProblem } from '../topic-filter/topic-filter.ts';

/** A message as routed: what each subscriber's copy is made from. */
export interface RoutedMessage {
  topic: string;
  payload: string;
  qos: QoS;
  /** The RETAIN flag as published. */
  retain: boolean;
  extras: MessageExtras | undefined;
  /** Virtual ms (MQTT 5 message expiry); null: never. */
  expiresAt: number | null;
}

/** What the routing part uses of the broker's other parts. */
export interface RoutingParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'tenants' | 'users' | 'acl' | 'rewriteRules' | 'topics' | 'storage' | 'connectors'>;
  registry: Pick<ClientRegistry, 'get' | 'heartbeatAt'>;
  subscriptions: Pick<SubscriptionStore, 'routes' | 'pushStats'>;
  counters: MessageCounters;
  rates: RateWindow;
  slowSubscriptions: Pick<SlowSubscriptions, 'observe'>;
  schemaValidation: Pick<SchemaValidation, 'validate'>;
  /** The delivery latency stream, forked at start. */
  latencyRng(): SeededRandom;
  /** Closes a publisher's connection (a schema refusal with Disconnect). */
  closeConnection(client: ClientState, why: ConnectionCloseReason): void;
}

/** One subscriber's copy of a routed message: QoS downgraded to the subscription's, RETAIN as MQTT says. */
function copyFor(sub: Subscription, message: RoutedMessage, retainedOnSubscribe: boolean): OutgoingMessage {
  return {
    topic: message.topic,
    payload: message.payload,
    ...(message.extras ? { extras: message.extras } : {}),
    qos: Math.min(sub.qos, message.qos) as QoS,
    // Retained messages sent at subscribe keep the flag; otherwise only retain-as-published keeps it (MQTT 5 §3.8.3.1).
    retain: retainedOnSubscribe || (sub.preserveRetain && message.retain),
    subscriptionIdentifier: sub.subscriptionIdentifier,
    expiresAt: message.expiresAt,
  };
}

/**
 * ACL check of a client's publish or subscribe: a Deny decision refuses it (no rule, or Allow,
 * lets it through). Superusers of the tenant bypass ACL, as on the real server.
 */
export function aclDenial(
  deps: Pick<MqttBrokerDeps, 'users' | 'acl'>,
  client: ClientState,
  topic: string,
  action: 'Publish' | 'Subscribe',
): string | undefined {
  const username = client.last.username;
  if (username && deps.users.get(client.tenant, username)?.is_superuser) return undefined;
  const decision = deps.acl.decide({
    tenant: client.tenant,
    clientId: client.clientId,
    ...(username ? { username } : {}),
    ip: client.last.ip,
    topic,
    action,
  });
  if (decision !== 'Deny') return undefined;
  return `${action.toLowerCase()} to ${topic} denied by ACL (decision Deny for client ${client.clientId} of tenant ${client.tenant})`;
}

/** Publishing: the checks of a PUBLISH, storing the message, routing it to subscribers, and the delivery counters. */
export class MessageRouting {
  constructor(private readonly parts: RoutingParts) {}

  /** A publish refused: traced, answered with the reason. (A method, not a closure made per publish: this is the hot path.) */
  private refused(tenant: string, topic: string, reason: string, refusal: PublishRefusal): PublishResult {
    this.parts.deps.engine.record('mqtt.publish.refused', { tenant, topic, reason });
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
    deps.engine.record('mqtt.publish', { tenant, topic, qos: input.qos, retain: input.retain, delivered, dropped });
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
      if (this.deliver(sub, message)) delivered++;
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
        this.deliver(chosen, message);
        delivered++;
      } else {
        this.recordFailure(g.members[g.cursor % n], message.topic);
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

  /** A push that could not be made: the subscriber (or every member of its share group) is offline. */
  private recordFailure(sub: Subscription, topic: string): void {
    const now = this.parts.deps.engine.now();
    const stats = this.parts.subscriptions.pushStats(sub, topic, now);
    stats.lastRunAt = now;
    stats.failure++;
    sub.failureTotal++;
  }

  /**
   * One delivery attempt; fails when the subscriber is offline, unless it is a network client whose
   * session keeps the message (MqttOfflineMessage). Online deliveries have a seeded latency, and a
   * network client's connection gets the message itself. `retainedOnSubscribe`: a retained message
   * sent because of a subscribe, which keeps its RETAIN flag (MQTT 3.1.1 §3.3.1.3).
   */
  deliver(sub: Subscription, message: RoutedMessage, retainedOnSubscribe = false): boolean {
    const now = this.parts.deps.engine.now();
    const topic = message.topic;
    const client = this.parts.registry.get(clientKey(sub.tenant, sub.clientId));
    if (!client?.connection) {
      // A network client's session keeps QoS 1/2 messages for it (MqttOfflineMessage); a simulated one's never does.
      if (
        client?.networkClient &&
        client.session &&
        keepWhileOffline(client.session, copyFor(sub, message, false), this.parts.deps.config.current().MqttOfflineMessage, now)
      ) {
        this.countPush(sub, client, topic, now);
        return true;
      }
      this.recordFailure(sub, topic);
      return false;
    }
    this.countPush(sub, client, topic, now);
    // Most pushes take a few ms; a few queue behind a busy client or a slow link.
    const rng = this.parts.latencyRng();
    const internalMs = rng.chance(0.02) ? rng.int(300, 3_000) : rng.int(0, 15);
    const sendMs = rng.chance(0.01) ? rng.int(500, 4_000) : rng.int(1, 40);
    this.parts.slowSubscriptions.observe({
      tenant: sub.tenant,
      clientId: sub.clientId,
      topic,
      path: sub.path,
      nodeId: client.connection.nodeId,
      internalMs,
      sendMs,
    });
    client.connection.sink?.deliver(copyFor(sub, message, retainedOnSubscribe));
    return true;
  }

  private countPush(sub: Subscription, client: ClientState, topic: string, now: number): void {
    const stats = this.parts.subscriptions.pushStats(sub, topic, now);
    stats.lastRunAt = now;
    stats.success++;
    stats.lastPushAt = now;
    sub.successTotal++;
    client.messagesOut++;
    this.parts.counters.countOut(sub.tenant, topic);
  }

  /** Virtual ms a network client's message expires at: its MQTT 5 expiry, capped by max_message_expiry_interval. */
  private expiryOf(extras: MessageExtras | undefined, now: number): number | null {
    const seconds = extras?.properties?.messageExpiryInterval;
    if (seconds === undefined) return null;
    return now + Math.min(seconds, this.parts.deps.config.current().MqttProtocol.max_message_expiry_interval) * 1000;
  }
}
