import { endpoints } from '../../../contract/endpoints/topics.ts';
import { failed } from '../../model/errors/operation-error.ts';
import { IndexedList } from '../../model/api/indexed-list.ts';
import { type TopicRecord } from '../../model/storage/topics.ts';
import { handlersFor } from '../core/handler-types.ts';
import type { TopicRecord as ApiTopicRecord } from '../../../contract/records.ts';

export const handlers = handlersFor(endpoints, {
  // Topics are held in maintained sorted indexes (base order: tenant then name; and by name), so the
  // list query pages them by position instead of building and sorting every record per request.
  'cluster.topic.list': ({ cluster, params }) => {
    const type = params.topic_type;
    const topics = cluster.topics;
    // topic_type picks the indexes holding only that type: every page is read by position.
    const { ordered, orderedByName } = type === 'all' ? topics : topics.orderedOfType[type];
    return new IndexedList<TopicRecord, ApiTopicRecord>({
      base: ordered,
      sorted: { tenant: ordered, topic_name: orderedByName },
      leadingField: new Map([
        [ordered, 'tenant'],
        [orderedByName, 'topic_name'],
      ]),
      listVersion: topics.listVersion(),
      plainRecords: () => topics.plainRecords(type),
      field: (t, name) => topics.viewField(t, name),
      view: (t) => topics.view(t),
    });
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
});
