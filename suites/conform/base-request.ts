import type { EndpointContract } from '../../contract/core/types.ts';
import { type ConformContext, describeAnswer, envelopeOf } from './conform-context.ts';
import type { Exchange } from './exchange.ts';
import { type CreatedResources, familyByCreate } from './resource-families.ts';

/**
 * Why the request the generated checks of `e` vary (required, unknown-parameter, length and range
 * checks) is not known to be accepted, or undefined when it is. A create varies its family's fixture,
 * so the fixture must have been created; any other endpoint varies its valid request, which must have
 * been answered as a success. Endpoints whose valid request is a scenario of its own (`ownHappyPath`:
 * config set, node leave) vary a request their scenarios judge, so nothing is assumed of them here.
 */
export function unmetBase(
  ctx: ConformContext,
  e: EndpointContract,
  resources: CreatedResources,
  happy: Exchange | undefined,
  ownHappyPath: boolean,
): string | undefined {
  const family = familyByCreate(ctx, e);
  if (family) {
    if (resources.fixtures.has(family.key)) return undefined;
    return `the run's ${family.key} fixture, which these checks vary, could not be created: ${resources.fixtureProblems.get(family.key) ?? 'no create was answered'}`;
  }
  if (ownHappyPath) return undefined;
  if (!happy) return 'the valid request these checks vary could not be sent (see happy-path)';
  if (accepted(e, happy)) return undefined;
  return `the valid request these checks vary was not accepted (${describeAnswer(happy)})`;
}

/** The answer is a success: code 0 with HTTP 200 (or a status the endpoint may answer), or HTTP 200 of a text endpoint. */
function accepted(e: EndpointContract, ex: Exchange): boolean {
  if (!ex.response) return false;
  if (e.response.kind !== 'envelope') return ex.response.status === 200;
  return envelopeOf(ex)?.code === 0 && [200, ...(e.response.otherStatuses ?? [])].includes(ex.response.status);
}
