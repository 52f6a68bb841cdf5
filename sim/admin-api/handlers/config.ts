import { endpoints } from '../../../contract/endpoints/config.ts';
import { configOfBroker } from '../../model/config/config-forwarding.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.config.get': ({ cluster, node, params, peers }) => configOfBroker(cluster, node, params.broker_id, peers),
  'cluster.config.set': ({ cluster, params }) => {
    cluster.config.setFromText(params.config_type, params.config);
    return 'success';
  },
});
