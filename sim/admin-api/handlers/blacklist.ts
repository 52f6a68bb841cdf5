import { endpoints } from '../../../contract/endpoints/blacklist.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.blacklist.list': ({ cluster }) => cluster.blacklist.listing(),
  'cluster.blacklist.create': ({ cluster, params }) => {
    cluster.blacklist.add({
      tenant: params.tenant,
      name: params.name,
      blacklist_type: params.blacklist_type,
      resource_name: params.resource_name,
      endTimeMs: params.end_time * 1000,
      desc: params.desc ?? '',
      source: 'api',
    });
    return 'success';
  },
  'cluster.blacklist.delete': ({ cluster, params }) => {
    cluster.blacklist.delete(params.tenant, params.name);
    return 'success';
  },
});
