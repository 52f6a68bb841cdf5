import type { QoS } from './mqtt-labels.ts';
import type { Subscription } from './mqtt-model.ts';
import type { TopicsPart } from './peer-parts.ts';
import type { RoutedMessage } from './subscriber-delivery.ts';
import { topicMatches } from '../topic-filter/topic-filter.ts';

const asQoS = (q: number | undefined): QoS => (q === 1 || q === 2 ? q : 0);

/**
 * Retained messages of the topics a new subscription matches, as its retain_handling asks: 0 on
 * every subscribe, 1 only when the subscription is new, 2 never. Shared subscriptions get none
 * (MQTT 5 §4.8.2). Unexpired ones are handed to `deliver`; returns how many it delivered.
 */
export function sendRetained(
  topics: Pick<TopicsPart, 'retainedTopics'>,
  now: number,
  sub: Subscription,
  created: boolean,
  deliver: (sub: Subscription, message: RoutedMessage) => boolean,
): number {
  if (sub.group !== null || sub.retainHandling === 2 || (sub.retainHandling === 1 && !created)) return 0;
  let sent = 0;
  // Only the tenant's topics holding a retained message, in name order (as the full topic list had them).
  for (const t of topics.retainedTopics(sub.tenant)) {
    const r = t.retained;
    if (t.tenant !== sub.tenant || !t.topic_name || !r || (r.expiresAt != null && r.expiresAt <= now)) continue;
    if (!topicMatches(sub.filter, t.topic_name)) continue;
    const message: RoutedMessage = {
      topic: t.topic_name,
      payload: r.payload,
      qos: asQoS(r.qos),
      retain: true,
      extras: r.extras,
      expiresAt: r.expiresAt ?? null,
    };
    if (deliver(sub, message)) sent++;
  }
  return sent;
}
