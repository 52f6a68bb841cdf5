import type { HandlerTable } from '../handler-types.ts';

export const handlers: HandlerTable = {
  'mq9.mail.list': ({ cluster }) => cluster.mq9.listMailboxes().map((m) => ({ ...m })),
  'mq9.agent.list': ({ cluster }) => cluster.mq9.listAgents().map((a) => ({ ...a })),
};
