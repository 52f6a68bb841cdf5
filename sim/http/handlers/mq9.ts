import type { HandlerTable } from '../handler-types.ts';

export const handlers: HandlerTable = {
  'mq9.mail.list': ({ cluster }) => cluster.mq9.mailboxListing(),
  'mq9.agent.list': ({ cluster }) => cluster.mq9.agentListing(),
};
