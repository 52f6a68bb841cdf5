import { endpoints } from '../../../contract/endpoints/topic-rewrite.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.topic-rewrite.list': ({ cluster }) => cluster.rewriteRules.listing(),
  'cluster.topic-rewrite.create': ({ cluster, params }) => {
    cluster.rewriteRules.create({
      tenant: params.tenant,
      name: params.name,
      desc: params.desc ?? '',
      action: params.action,
      source_topic: params.source_topic,
      dest_topic: params.dest_topic,
      regex: params.regex,
    });
    return 'success';
  },
  'cluster.topic-rewrite.delete': ({ cluster, params }) => {
    cluster.rewriteRules.delete(params.tenant, params.name);
    return 'success';
  },
});
