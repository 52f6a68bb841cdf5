import { endpoints } from '../../../contract/endpoints/acl.ts';
import type { AclRule } from '../../model/broker/acl-rules.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.acl.list': ({ cluster }) => cluster.acl.listing(),
  'cluster.acl.create': ({ cluster, params }) => {
    const rule: AclRule = {
      tenant: params.tenant,
      name: params.name,
      desc: params.desc ?? '',
      resource_type: params.resource_type,
      resource_name: params.resource_name,
      topic: params.topic ?? '',
      ip: params.ip ?? '',
      action: params.action,
      permission: params.permission,
    };
    cluster.acl.create(rule);
    return 'success';
  },
  'cluster.acl.delete': ({ cluster, params }) => {
    cluster.acl.delete(params.tenant, params.name);
    return 'success';
  },
});
