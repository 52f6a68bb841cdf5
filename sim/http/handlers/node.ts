import type { HandlerTable } from '../handler-types.ts';

export const handlers: HandlerTable = {
  'cluster.node.leave': ({ cluster, params }) => cluster.nodes.leave(params.node_id, params.force === true),
};
