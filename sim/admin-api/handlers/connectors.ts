import { endpoints } from '../../../contract/endpoints/connectors.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.connector.list': ({ cluster }) => cluster.connectors.listing(),
  'cluster.connector.detail': ({ cluster, params }) => cluster.connectors.detail(params.tenant, params.connector_name),
  'cluster.connector.create': ({ cluster, params }) => {
    cluster.connectors.create({
      tenant: params.tenant,
      connector_name: params.connector_name,
      connector_type: params.connector_type,
      config: params.config,
      topic_name: params.topic_name,
      failure_strategy: params.failure_strategy,
    });
    return 'success';
  },
  'cluster.connector.delete': ({ cluster, params }) => {
    cluster.connectors.delete(params.tenant, params.connector_name);
    return 'success';
  },
});
