import { CONTRACT_MODULES, type ContractModuleName } from '../../../contract/index.ts';
import type { HandlerTable } from '../core/handler-types.ts';
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

/**
 * The handlers of each contract module (contract/index.ts CONTRACT_MODULES), by its name:
 * a module without handlers, or handlers of a module the contract does not have, do not compile.
 */
const BY_MODULE = {
  login,
  'cluster-status': clusterStatus,
  config,
  node,
  tenants,
  topics,
  'topic-rewrite': topicRewrite,
  users,
  acl,
  blacklist,
  schemas,
  connectors,
  'offsets-messages': offsetsMessages,
  mqtt,
  'auto-subscribe': autoSubscribe,
  mq9,
  'storage-engine': storageEngine,
} satisfies Record<ContractModuleName, HandlerTable>;

/** Handler of every contract endpoint, by endpoint id. */
export const HANDLERS: HandlerTable = Object.assign({}, ...CONTRACT_MODULES.map((m) => BY_MODULE[m.name])) as HandlerTable;
