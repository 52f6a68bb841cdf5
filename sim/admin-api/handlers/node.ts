import { endpoints } from '../../../contract/endpoints/node.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.node.leave': ({ cluster, params }) => cluster.nodes.leave(params.node_id, params.force === true),
});
