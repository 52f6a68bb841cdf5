import { endpoints } from '../../../contract/endpoints/auto-subscribe.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'mqtt.auto-subscribe.list': ({ cluster }) => cluster.autoSubscribe.listing(),
  'mqtt.auto-subscribe.create': ({ cluster, params }) => {
    cluster.autoSubscribe.create({
      tenant: params.tenant,
      name: params.name,
      desc: params.desc ?? '',
      topic: params.topic,
      qos: params.qos,
      no_local: params.no_local,
      retain_as_published: params.retain_as_published,
      retained_handling: params.retained_handling,
    });
    return 'success';
  },
  'mqtt.auto-subscribe.delete': ({ cluster, params }) => {
    cluster.autoSubscribe.delete(params.tenant, params.name);
    return 'success';
  },
});
