import type { SeededRandom } from '../engine/seeded-random.ts';
import type { ClientRegistry } from './client-registry.ts';
import type { MessageExtras, OutgoingMessage } from './delivery.ts';
import type { MessageCounters } from './message-counters.ts';
import type { QoS } from './mqtt-labels.ts';
import { clientKey, type ClientState, type Subscription } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { keepWhileOffline } from './session-queue.ts';
import type { SlowSubscriptions } from './slow-subscriptions.ts';
import type { SubscriptionStore } from './subscriptions.ts';

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

/** What delivering to one subscriber uses of the broker's other parts. */
export interface DeliveryParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'config'>;
  registry: Pick<ClientRegistry, 'get'>;
  subscriptions: Pick<SubscriptionStore, 'pushStats'>;
  counters: MessageCounters;
  slowSubscriptions: Pick<SlowSubscriptions, 'observe'>;
  /** The delivery latency stream, forked at start. */
  latencyRng(): SeededRandom;
}

/** One subscriber's copy of a routed message: QoS downgraded to the subscription's, RETAIN as MQTT says. */
function copyFor(sub: Subscription, message: RoutedMessage, retainedOnSubscribe: boolean): OutgoingMessage {
  const { topic, payload, extras, expiresAt } = message;
  const qos = Math.min(sub.qos, message.qos) as QoS;
  // Retained messages sent at subscribe keep the flag; otherwise only retain-as-published keeps it (MQTT 5 §3.8.3.1).
  const retain = retainedOnSubscribe || (sub.preserveRetain && message.retain);
  const subscriptionIdentifier = sub.subscriptionIdentifier;
  // Two literals rather than a spread of the optional extras: one copy per subscriber of every message.
  return extras
    ? { topic, payload, extras, qos, retain, subscriptionIdentifier, expiresAt }
    : { topic, payload, qos, retain, subscriptionIdentifier, expiresAt };
}

/** Delivering a message to one subscription: the push, its seeded latency, and the push statistics and counters. */
export class SubscriberDelivery {
  constructor(private readonly parts: DeliveryParts) {}

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

  /** A push that could not be made: the subscriber (or every member of its share group) is offline. */
  recordFailure(sub: Subscription, topic: string): void {
    const now = this.parts.deps.engine.now();
    const stats = this.parts.subscriptions.pushStats(sub, topic, now);
    stats.lastRunAt = now;
    stats.failure++;
    sub.failureTotal++;
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
}
