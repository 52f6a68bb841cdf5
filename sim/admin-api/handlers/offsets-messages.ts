import { endpoints } from '../../../contract/endpoints/offsets-messages.ts';
import { MESSAGE_READ_MAX } from '../../../contract/endpoints/offsets-messages.ts';
import { failed, invalidParam } from '../../model/errors/operation-error.ts';
import { unixSeconds } from '../../model/api/time-format.ts';
import type { OffsetStrategy } from '../../model/storage/storage-engine.ts';
import { handlersFor } from '../core/handler-types.ts';

function strategyOf(raw: string): OffsetStrategy {
  const s = raw.toLowerCase();
  if (s !== 'earliest' && s !== 'latest') throw invalidParam('strategy', `Invalid strategy '${raw}', must be 'earliest' or 'latest'`);
  return s;
}

export const handlers = handlersFor(endpoints, {
  'cluster.offset.timestamp': ({ cluster, params }) => ({
    offset: cluster.storage.offsetForTimestamp(params.shard_name, params.timestamp, strategyOf(params.strategy)),
  }),
  'cluster.offset.group': ({ cluster, params }) => ({ offsets: cluster.offsets.groupOffsets(params.tenant, params.group_name) }),
  'cluster.offset.commit': ({ cluster, params }) => {
    if (params.offsets.length === 0) throw invalidParam('offsets', 'offsets cannot be empty');
    cluster.offsets.commit(params.tenant, params.group_name, params.offsets);
    return 'success';
  },
  // A message sent through the API is published like any other: stored, delivered to subscribers
  // and connectors, counted.
  'mqtt.message.send': ({ cluster, params }) => {
    const result = cluster.mqtt.publish({
      tenant: params.tenant,
      topic: params.topic,
      payload: params.payload,
      qos: 1,
      retain: false,
      key: params.key,
    });
    if (!result.ok) throw failed(`message refused: ${result.reason}`);
    return { offsets: result.offset === null ? [] : [result.offset] };
  },
  'mqtt.message.read': ({ cluster, params }) => {
    const topic = cluster.topics.get(params.tenant, params.topic);
    if (!topic) throw failed(`Topic ${params.topic} does not exist`);
    const records = cluster.storage.read(topic.storage_name_list[0], params.offset, MESSAGE_READ_MAX);
    return { messages: records.map((r) => ({ offset: r.offset, content: r.payload, timestamp: unixSeconds(r.timestampMs) })) };
  },
});
