import { failed } from '../../api/operation-error.ts';
import { isSystemTopic } from '../../storage/topics.ts';
import type { HandlerTable } from '../handler-types.ts';

export const handlers: HandlerTable = {
  'cluster.topic.list': ({ cluster, params }) => {
    const type = params.topic_type as 'all' | 'normal' | 'system';
    return cluster.topics
      .all()
      .filter((t) => type === 'all' || (type === 'system') === isSystemTopic(t.topic_name))
      .map((t) => cluster.topics.view(t));
  },
  'cluster.topic.detail': ({ cluster, params }) => {
    const topic = cluster.topics.get(params.tenant, params.topic_name);
    if (!topic) throw failed(`Topic ${params.topic_name} does not exist`);
    return cluster.topics.detail(topic);
  },
  'cluster.topic.create': ({ cluster, params }) =>
    cluster.topics.view(
      cluster.topics.create({
        tenant: params.tenant,
        topic_name: params.topic_name,
        storage_type: params.storage_type,
        source: params.source,
        partition: params.partition,
        replication: params.replication,
      }),
    ),
  'cluster.topic.delete': ({ cluster, params }) => {
    cluster.topics.delete(params.tenant, params.topic_name);
    return 'success';
  },
};
