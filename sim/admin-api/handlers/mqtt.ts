import { endpoints } from '../../../contract/endpoints/mqtt.ts';
import { failed } from '../../model/errors/operation-error.ts';
import { subscriptionDetail } from '../../model/mqtt/client-views.ts';
import { metricsText } from '../../model/mqtt/metrics-exposition.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../../model/mqtt/metrics-text.ts';
import { clusterOverview } from '../../model/mqtt/overview.ts';
import { RawBody, handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'mqtt.overview': ({ cluster, node }) => clusterOverview(cluster, node),
  'mqtt.monitor.data': ({ cluster, params }) =>
    cluster.monitor.query(params.data_type, {
      topic_name: params.topic_name,
      client_id: params.client_id,
      path: params.path,
      connector_name: params.connector_name,
    }),
  'mqtt.client.list': ({ cluster }) => cluster.mqtt.clientListing(),
  'mqtt.session.list': ({ cluster }) => cluster.mqtt.sessionListing(),
  'mqtt.subscribe.list': ({ cluster }) => cluster.mqtt.subscriptions.listing(),
  'mqtt.subscribe.detail': ({ cluster, params }) => {
    const sub = cluster.mqtt.subscriptions.get(params.tenant, params.client_id, params.path);
    if (!sub) throw failed(`Subscription ${params.path} of client ${params.client_id} in tenant ${params.tenant} does not exist`);
    return subscriptionDetail(cluster, cluster.mqtt, sub);
  },
  'mqtt.slow-subscribe.list': ({ cluster }) => cluster.mqtt.slowSubscriptions.listing(),
  'mqtt.flapping-detect.list': ({ cluster }) => cluster.mqtt.flapping.flappingListing(),
  'mqtt.system-alarm.list': ({ cluster, node }) => cluster.mqtt.alarms.listing(node.id),
  'mqtt.ban-log.list': ({ cluster }) => cluster.mqtt.flapping.banLogListing(),
  metrics: ({ cluster }) => new RawBody(PROMETHEUS_CONTENT_TYPE, metricsText(cluster)),
});
