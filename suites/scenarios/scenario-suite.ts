import type { EndpointContract } from '../../contract/core/types.ts';
import type { BadTokens } from '../conform/checks/auth-checks.ts';
import { type ConformContext, skip } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { CreatedResources } from '../conform/resource-families.ts';

/**
 * The scenario suites: one file per area of the API (a contract module), each a list of scenarios
 * that check the rules of the spec for the endpoints of its tags, on top of the generic checks every
 * endpoint gets (valid request, envelope, data schema, required parameters, limits, ranges, enums,
 * list laws, resource-family checks, auth).
 */

/** What a scenario needs from the target beyond the admin API. */
type Need = 'control' | 'mqtt-client' | 'auth-peer';

/** What the generic checks already learned about the endpoint. */
export interface ScenarioEnv {
  /** The answer to the valid request, when one was sent. */
  happy?: Exchange;
  /** Parameters of a valid request. */
  params: Record<string, unknown>;
  resources: CreatedResources;
  tokens?: BadTokens;
}

export interface Scenario {
  /** `METHOD /path` of the endpoint its checks are recorded on. */
  endpoint: string;
  /**
   * The ids of the checks it records (documentation, the per-family counts of the tests, and the ids
   * of the skipped checks when a need is missing). `prefix.*` stands for ids generated from data,
   * e.g. one per connector type.
   */
  checks: readonly string[];
  /**
   * The assertion its checks are recorded against when skipped for a missing need (each check names
   * its own assertion when it runs; a skipped one needs one for the coverage's "untested, because").
   */
  assertion: string;
  needs?: readonly Need[];
  run(ctx: ConformContext, e: EndpointContract, env: ScenarioEnv): Promise<void>;
}

export interface ScenarioSuite {
  /** The suite's name in test messages (its area). */
  name: string;
  /** Contract tags whose endpoints the suite checks. */
  tags: readonly string[];
  scenarios: readonly Scenario[];
}

export const keyOf = (e: Pick<EndpointContract, 'method' | 'path'>): string => `${e.method} ${e.path}`;

/** Why a need is unmet on this target, or undefined when it is met. */
function missingNeed(ctx: ConformContext, need: Need): string | undefined {
  const caps = ctx.capabilities;
  if (need === 'control') {
    if (ctx.target.control) return undefined;
    return caps?.control.reason ?? 'the target has no simulator control interface';
  }
  if (need === 'mqtt-client') {
    if (ctx.mqtt) return undefined;
    return caps?.mqttClient.reason ?? 'no MQTT client available (no MQTT listener, no simulator control)';
  }
  const remote = ctx.target.capabilities.remotePeer;
  if (!remote.available) return `no non-loopback peer: ${remote.reason ?? 'unavailable'}`;
  if (caps && !caps.authChecks.available) return caps.authChecks.reason;
  return undefined;
}

/** Runs one scenario, or records its checks as skipped with the reason a need is unmet. */
export async function runScenario(ctx: ConformContext, e: EndpointContract, scenario: Scenario, env: ScenarioEnv): Promise<void> {
  for (const need of scenario.needs ?? []) {
    const reason = missingNeed(ctx, need);
    if (reason === undefined) continue;
    for (const id of scenario.checks)
      await ctx.check(e, id.endsWith('.*') ? id.slice(0, -2) : id, scenario.assertion, () =>
        skip(
          `needs ${need === 'control' ? 'the simulator control interface' : need === 'mqtt-client' ? 'an MQTT client' : 'a non-exempt remote peer'}: ${reason}`,
        ),
      );
    return;
  }
  await scenario.run(ctx, e, env);
}
