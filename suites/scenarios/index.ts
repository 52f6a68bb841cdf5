import type { EndpointContract } from '../../fixtures/contract/types.ts';
import type { ConformContext } from '../conform/conform-context.ts';
import { acl } from './acl.ts';
import { auth } from './auth.ts';
import { autoSubscribe } from './auto-subscribe.ts';
import { blacklist } from './blacklist.ts';
import { config } from './config.ts';
import { connectors } from './connectors.ts';
import { type FamilySuite, keyOf, runScenario, type Scenario, type ScenarioEnv } from './family-suite.ts';
import { mq9 } from './mq9.ts';
import { mqtt } from './mqtt.ts';
import { node } from './node.ts';
import { offsetsMessages } from './offsets-messages.ts';
import { schemas } from './schemas.ts';
import { statusHealth } from './status-health.ts';
import { storageEngine } from './storage-engine.ts';
import { tenants } from './tenants.ts';
import { topicRewrite } from './topic-rewrite.ts';
import { topics } from './topics.ts';
import { users } from './users.ts';

export type { FamilySuite, Scenario, ScenarioEnv } from './family-suite.ts';

/** Every family suite, in the order of the contract's tags. */
export const FAMILIES: readonly FamilySuite[] = [
  auth,
  statusHealth,
  config,
  node,
  tenants,
  topics,
  topicRewrite,
  users,
  acl,
  blacklist,
  schemas,
  connectors,
  offsetsMessages,
  mqtt,
  autoSubscribe,
  mq9,
  storageEngine,
];

/** The family an endpoint belongs to, by its tag. */
export function familyOf(e: Pick<EndpointContract, 'tag'>): FamilySuite | undefined {
  return FAMILIES.find((f) => f.tags.includes(e.tag));
}

export function scenariosFor(e: EndpointContract): Scenario[] {
  const key = keyOf(e);
  return FAMILIES.flatMap((f) => f.scenarios.filter((s) => s.endpoint === key));
}

/** Runs the family scenarios of one endpoint (each after the generic checks' valid request). */
export async function runFamilyScenarios(ctx: ConformContext, e: EndpointContract, env: ScenarioEnv): Promise<void> {
  for (const s of scenariosFor(e)) await runScenario(ctx, e, s, env);
}
