import { endpoints } from '../../../contract/endpoints/users.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'cluster.user.list': ({ cluster }) => cluster.users.listing(),
  'cluster.user.create': ({ cluster, params }) => {
    cluster.users.create({
      tenant: params.tenant,
      username: params.username,
      password: params.password,
      is_superuser: params.is_superuser,
    });
    return 'success';
  },
  'cluster.user.delete': ({ cluster, params }) => {
    cluster.users.delete(params.tenant, params.username);
    return 'success';
  },
});
