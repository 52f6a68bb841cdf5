import { configOfBroker } from '../../config/config-forwarding.ts';
import type { HandlerTable } from '../handler-types.ts';

export const handlers: HandlerTable = {
  'cluster.config.get': ({ cluster, node, params, peers }) => configOfBroker(cluster, node, params.broker_id, peers),
  'cluster.config.set': ({ cluster, params }) => {
    cluster.config.setFromText(params.config_type, params.config);
    return 'success';
  },
};
