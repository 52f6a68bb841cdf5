import { endpoints } from '../../../contract/endpoints/tenants.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.tenant.list': ({ cluster }) => cluster.tenants.listing(),
  'cluster.tenant.create': ({ cluster, params }) => {
    cluster.tenants.create({ tenant_name: params.tenant_name, desc: params.desc, config: params.config });
    return 'success';
  },
  'cluster.tenant.update': ({ cluster, params }) => {
    cluster.tenants.update({ tenant_name: params.tenant_name, desc: params.desc, config: params.config });
    return 'success';
  },
  'cluster.tenant.delete': ({ cluster, params }) => {
    cluster.tenants.delete(params.tenant_name);
    return 'success';
  },
});
