import type { SubscribeInput, SubscribeResult, TopicSubscriber } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import { aclDenial } from './acl-denial.ts';
import { clientKey, type ClientState, type Subscription } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { sendRetained } from './retained-delivery.ts';
import type { SlowSubscriptions } from './slow-subscriptions.ts';
import type { SubscriberDelivery } from './subscriber-delivery.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import { parseSubscriptionPath, topicFilterProblem, type SubscriptionPath } from '../topic-filter/topic-filter.ts';

/** What the subscribing part uses of the broker's other parts. */
export interface SubscribingParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'users' | 'acl' | 'rewriteRules' | 'topics'>;
  registry: Pick<ClientRegistry, 'get'>;
  subscriptions: Pick<SubscriptionStore, 'put' | 'remove' | 'routes' | 'all'>;
  slowSubscriptions: Pick<SlowSubscriptions, 'forgetTopic'>;
  /** Delivery to one subscriber: the retained messages a subscribe sends go out through it. */
  delivery: Pick<SubscriberDelivery, 'deliver'>;
}

/** A subscription path parsed, with the filter the topic rewrite rules route it by. */
interface ParsedPath {
  parsed: SubscriptionPath;
  rewritePath: string | null;
}

/** Clients subscribing and unsubscribing (with the retained messages a subscribe sends), and who subscribes to a topic. */
export class Subscribing {
  constructor(private readonly parts: SubscribingParts) {}

  subscribe(input: SubscribeInput): SubscribeResult {
    const { deps } = this.parts;
    const client = this.parts.registry.get(clientKey(input.tenant, input.clientId));
    if (!client?.connection || !client.session)
      return { ok: false, reason: `client ${input.clientId} of tenant ${input.tenant} is not connected`, refusal: 'not-connected' };
    const path = this.parsePath(input);
    if (typeof path === 'string') return { ok: false, reason: path, refusal: 'invalid-filter' };
    const { parsed } = path;
    const v5 = client.last.protocol === 5;
    const noLocal = v5 ? (input.noLocal ?? false) : false;
    if (parsed.shared && noLocal)
      return { ok: false, reason: 'no_local must not be set on a shared subscription (MQTT 5 §3.8.3.1)', refusal: 'invalid' };
    const qos = input.qos ?? 0;
    if (qos !== 0 && qos !== 1 && qos !== 2) return { ok: false, reason: `qos must be 0, 1 or 2, got ${qos}`, refusal: 'invalid' };
    const denial = aclDenial(deps, client, parsed.filter, 'Subscribe');
    if (denial) {
      deps.engine.record('mqtt.subscribe.refused', { tenant: input.tenant, clientId: input.clientId, path: input.path, reason: 'acl' });
      return { ok: false, reason: denial, refusal: 'not-authorized' };
    }
    const sub = this.subscription(input, client, path, qos, noLocal);
    const { created, subscription } = this.parts.subscriptions.put(sub);
    const retained = sendRetained(deps.topics, deps.engine.now(), subscription, created, (s, m) => this.parts.delivery.deliver(s, m, true));
    deps.engine.record('mqtt.subscribe', { tenant: input.tenant, clientId: input.clientId, path: input.path, qos, created, retained });
    return { ok: true, created, pkId: sub.pkId };
  }

  /**
   * The path parsed; topic rewrite rules of action Subscribe (or All) turn the filter into another
   * (EMQX semantics): the subscription keeps the path as subscribed and routes by the rewritten filter.
   * Returns why the path is refused as text.
   */
  private parsePath(input: SubscribeInput): ParsedPath | string {
    try {
      let parsed = parseSubscriptionPath(input.path);
      let rewritePath: string | null = null;
      const rewritten = this.parts.deps.rewriteRules.rewrite(input.tenant, parsed.filter, 'Subscribe');
      if (rewritten !== parsed.filter) {
        const problem = topicFilterProblem(rewritten);
        if (problem) throw new Error(`the topic rewrite rules turn ${parsed.filter} into ${rewritten}: ${problem}`);
        parsed = { ...parsed, filter: rewritten };
        rewritePath = parsed.shared ? `$share/${parsed.group}/${rewritten}` : rewritten;
      }
      return { parsed, rewritePath };
    } catch (e) {
      return (e as Error).message;
    }
  }

  /** The subscription a subscribe makes (MQTT 5 options only for a v5 client), with the client's next packet id. */
  private subscription(input: SubscribeInput, client: ClientState, path: ParsedPath, qos: 0 | 1 | 2, noLocal: boolean): Subscription {
    const { parsed, rewritePath } = path;
    const v5 = client.last.protocol === 5;
    const pkId = client.nextPkId;
    client.nextPkId = (client.nextPkId % 65_535) + 1;
    return {
      tenant: input.tenant,
      clientId: input.clientId,
      path: input.path,
      filter: parsed.filter,
      group: parsed.shared ? parsed.group : null,
      qos,
      noLocal,
      preserveRetain: v5 ? (input.preserveRetain ?? false) : false,
      retainHandling: v5 ? (input.retainHandling ?? 0) : 0,
      subscriptionIdentifier: v5 ? (input.subscriptionIdentifier ?? null) : null,
      ...(rewritePath !== null ? { rewritePath } : {}),
      userProperties: v5 ? (input.userProperties ?? []) : [],
      protocol: client.last.protocol,
      brokerId: client.connection!.nodeId,
      pkId,
      createdAt: this.parts.deps.engine.now(),
      push: new Map(),
      pushedAny: false,
      successTotal: 0,
      failureTotal: 0,
    };
  }

  unsubscribe(input: { tenant: string; clientId: string; path: string }): boolean {
    const removed = this.parts.subscriptions.remove(input.tenant, input.clientId, input.path);
    if (removed) this.parts.deps.engine.record('mqtt.unsubscribe', { tenant: input.tenant, clientId: input.clientId, path: input.path });
    return removed !== undefined;
  }

  /** Subscriptions (shared members included) whose filter matches the topic. */
  subscribersOf(tenant: string, topicName: string): TopicSubscriber[] {
    const routes = this.parts.subscriptions.routes(tenant, topicName);
    const out: TopicSubscriber[] = routes.exclusive.map((s) => ({ client_id: s.clientId, path: s.path }));
    for (const g of routes.groups) for (const m of g.members) out.push({ client_id: m.clientId, path: m.path });
    return out;
  }

  /** See `MqttBroker.onTopicDeleted`. */
  onTopicDeleted(tenant: string, topicName: string): void {
    let removed = 0;
    for (const sub of [...this.parts.subscriptions.all()]) {
      if (sub.tenant !== tenant) continue;
      if (sub.filter === topicName) {
        this.parts.subscriptions.remove(tenant, sub.clientId, sub.path);
        removed++;
      } else {
        sub.push.delete(topicName);
      }
    }
    this.parts.slowSubscriptions.forgetTopic(tenant, topicName);
    this.parts.deps.engine.record('mqtt.topic-deleted', { tenant, topic: topicName, subscriptions: removed });
  }
}
