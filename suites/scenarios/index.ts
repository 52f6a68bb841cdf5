import { CONTRACT_MODULES, type ContractModuleName } from '../../contract/index.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import type { ConformContext } from '../conform/conform-context.ts';
import { acl } from './acl.ts';
import { auth } from './auth.ts';
import { autoSubscribe } from './auto-subscribe.ts';
import { blacklist } from './blacklist.ts';
import { config } from './config.ts';
import { connectors } from './connectors.ts';
import { keyOf, runScenario, type Scenario, type ScenarioEnv, type ScenarioSuite } from './scenario-suite.ts';
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

export type { ScenarioSuite, Scenario, ScenarioEnv } from './scenario-suite.ts';

/**
 * The scenario suite of each contract module (contract/index.ts CONTRACT_MODULES), by its
 * name: a module without a suite, or a suite of a module the contract does not have, does not
 * compile. A suite checks the endpoints of the tags it names (status-health also takes the login
 * module's `status` tag).
 */
const BY_MODULE = {
  login: auth,
  'cluster-status': statusHealth,
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
} satisfies Record<ContractModuleName, ScenarioSuite>;

/** Every scenario suite, in the order of the contract's modules. */
export const SCENARIO_SUITES: readonly ScenarioSuite[] = CONTRACT_MODULES.map((m) => BY_MODULE[m.name]);

/** The suite that checks an endpoint, by its tag. */
export function suiteOf(e: Pick<EndpointContract, 'tag'>): ScenarioSuite | undefined {
  return SCENARIO_SUITES.find((f) => f.tags.includes(e.tag));
}

export function scenariosFor(e: EndpointContract, extra: readonly ScenarioSuite[] = []): Scenario[] {
  const key = keyOf(e);
  return [...SCENARIO_SUITES, ...extra].flatMap((f) => f.scenarios.filter((s) => s.endpoint === key));
}

/** Runs the scenarios of one endpoint (each after the generic checks' valid request), the built-in suites' then `extra`'s. */
export async function runScenarios(
  ctx: ConformContext,
  e: EndpointContract,
  env: ScenarioEnv,
  extra: readonly ScenarioSuite[] = [],
): Promise<void> {
  for (const s of scenariosFor(e, extra)) await runScenario(ctx, e, s, env);
}
