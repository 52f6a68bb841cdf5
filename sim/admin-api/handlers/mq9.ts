import { endpoints } from '../../../contract/endpoints/mq9.ts';
import { handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'mq9.mail.list': ({ cluster }) => cluster.mq9.mailboxListing(),
  'mq9.agent.list': ({ cluster }) => cluster.mq9.agentListing(),
});
