import type { EndpointContract } from '../../contract/core/types.ts';
import { familyByKey } from '../../contract/index.ts';
import { A } from '../conform/cite.ts';
import { type ConformContext, describeAnswer, fail, pass, succeeded, type Verdict } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import { type CreatedResources, fixtureFields } from '../conform/resource-families.ts';
import { expectRefused, refusalNames, refused, type Row } from '../conform/check-helpers.ts';

/** Creating the run's own connectors for the connector scenarios, and judging a refused create. */

export const CONNECTOR = familyByKey('connector');

/** Creates a connector of the run; deletes it again at once when `keep` is false. */
export async function attempt(
  ctx: ConformContext,
  resources: CreatedResources,
  suffix: string,
  overrides: Row,
  keep = false,
): Promise<{ ex: Exchange; fields: Row }> {
  const fields: Record<string, unknown> = { ...fixtureFields(ctx, CONNECTOR, suffix), ...overrides };
  const ex = (await resources.create(CONNECTOR, fields, 'check'))!;
  if (succeeded(ex) && !keep) await resources.delete(CONNECTOR, fields, 'cleanup');
  return { ex, fields };
}

/** A create that must be refused, and (when it is) whether the refusal names one of `params`. */
export async function refusedCheck(
  ctx: ConformContext,
  e: EndpointContract,
  id: string,
  assertion: string,
  ex: Exchange,
  what: string,
  params: readonly string[],
  also: readonly string[] = [],
  withRule: (v: Verdict) => Verdict = (v) => v,
): Promise<void> {
  await ctx.check(e, id, assertion, () => ({ ...withRule(expectRefused(ex, what)), ...(also.length ? { also } : {}) }));
  if (refused(ex)) {
    await ctx.check(e, `${id}.names-param`, A.errorsNamesParam, () =>
      params.some((p) => refusalNames(ex, p))
        ? pass(`the message names ${params.join(' or ')}`)
        : fail(`the refusal does not name ${params.join(' or ')}: ${describeAnswer(ex)}`, ex),
    );
  }
}
