import { acl, blacklist, users } from './access.ts';
import { connectors } from './connectors.ts';
import type { FamilyDef } from './family.ts';
import { shards, topics } from './storage.ts';
import { tenants } from './tenants.ts';
import { autoSubscribe, schemas, topicRewrite } from './topic-rules.ts';

export type { Clock, FamilyDef } from './family.ts';
export { quota, TENANT_RULES } from './tenants.ts';

/** Every resource family the plain server keeps. */
export const FAMILIES: readonly FamilyDef[] = [
  tenants,
  users,
  acl,
  blacklist,
  topicRewrite,
  autoSubscribe,
  connectors,
  schemas,
  topics,
  shards,
];
