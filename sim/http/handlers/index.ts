import type { HandlerTable } from '../handler-types.ts';
import { handlers as login } from './login.ts';
import { handlers as clusterStatus } from './cluster-status.ts';
import { handlers as config } from './config.ts';
import { handlers as node } from './node.ts';
import { handlers as tenants } from './tenants.ts';
import { handlers as topics } from './topics.ts';
import { handlers as topicRewrite } from './topic-rewrite.ts';
import { handlers as users } from './users.ts';
import { handlers as acl } from './acl.ts';
import { handlers as blacklist } from './blacklist.ts';
import { handlers as schemas } from './schemas.ts';
import { handlers as connectors } from './connectors.ts';
import { handlers as offsetsMessages } from './offsets-messages.ts';
import { handlers as mqtt } from './mqtt.ts';
import { handlers as autoSubscribe } from './auto-subscribe.ts';
import { handlers as mq9 } from './mq9.ts';
import { handlers as storageEngine } from './storage-engine.ts';

/** Handler of every contract endpoint, by endpoint id. */
export const HANDLERS: HandlerTable = {
  ...login,
  ...clusterStatus,
  ...config,
  ...node,
  ...tenants,
  ...topics,
  ...topicRewrite,
  ...users,
  ...acl,
  ...blacklist,
  ...schemas,
  ...connectors,
  ...offsetsMessages,
  ...mqtt,
  ...autoSubscribe,
  ...mq9,
  ...storageEngine,
};
