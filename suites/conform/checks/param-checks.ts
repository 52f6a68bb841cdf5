import type { EndpointContract } from '../../../contract/core/types.ts';
import { A, cite } from '../cite.ts';
import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  failureCause,
  pass,
  refusedAsInvalid,
  skip,
  succeeded,
} from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import { buildParams } from '../../../contract/minimal-params.ts';
import { requestParts } from '../param-values.ts';
import { pathWithQuery } from '../../targets/target.ts';
import { type CreatedResources, familyByCreate, fixtureFields } from '../resource-families.ts';
import { scenarioOf } from '../scenarios.ts';

/** Extra query keys a real client sends (a UI's pagination object, a misspelt filter). */
const EXTRA_QUERY = 'pagination%5Boffset%5D=0&filers%5B0%5D%5Bfield%5D=client_id';
const EXTRA_BODY = { 'pagination[offset]': 0, filers: [{ field: 'client_id' }], x_mqsim_unknown_field: true };

/**
 * Each required parameter left out of an otherwise valid request: refused as a parameter error
 * (HTTP 400 or code 400, never code 0), citing the statement that makes it required; the refusal
 * names it (SHOULD: the spec's example of a rejected body). Nothing may be created by it.
 */
export async function runRequiredParamChecks(
  ctx: ConformContext,
  e: EndpointContract,
  validParams: Record<string, unknown>,
  resources: CreatedResources,
): Promise<void> {
  const family = familyByCreate(ctx, e);
  for (const p of ctx.requiredParams(e)) {
    const base = family ? buildParams(e, fixtureFields(ctx, family, '-rq')) : validParams;
    const params = { ...base };
    delete params[p.name];
    const ex = await ctx.call(e, params);
    if (family && succeeded(ex)) await resources.delete(family, base, 'cleanup');
    await ctx.check(e, `required.${p.name}`, cite(e, 'required', p.name), () => {
      if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
      // A refusal with code 400 is also the Errors row "| 400 | request parameter error |" at work.
      if (refusedAsInvalid(ex))
        return {
          ...pass(`missing ${p.name} refused (${describeAnswer(ex)})`),
          ...(envelopeOf(ex)?.code === 400 ? { also: ['errors.code.400'] } : {}),
        };
      if (failureCause(e, ex)) return fail(`a request without the required parameter ${p.name} got ${describeAnswer(ex)}`, ex);
      return fail(`a request without the required parameter ${p.name} was not refused as a parameter error: ${describeAnswer(ex)}`, ex);
    });
    const env = envelopeOf(ex);
    if (refusedAsInvalid(ex)) {
      await ctx.check(e, `required.${p.name}.names-param`, A.errorsNamesParam, () =>
        namesParam(env?.text ?? ex.response?.text, p.name)
          ? pass('the message names the parameter')
          : fail(`the message does not name ${p.name}: ${describeAnswer(ex)}`, ex),
      );
    }
  }
}

/**
 * Unknown query keys and body fields are ignored: a valid request with extras still succeeds. A
 * decision (the spec is silent), so INFO; only run where repeating the request is harmless.
 */
export async function runUnknownFieldCheck(
  ctx: ConformContext,
  e: EndpointContract,
  validParams: Record<string, unknown>,
  resources: CreatedResources,
): Promise<void> {
  if (scenarioOf(e).unsafe) return;
  const family = familyByCreate(ctx, e);
  if (e.method === 'POST' && !family && /\/(delete|leave)$/.test(e.path)) return; // a second delete cannot succeed
  let ex;
  if (e.method === 'GET') {
    const parts = requestParts(e, validParams);
    const query = pathWithQuery('', parts.query).replace(/^\?/, '');
    ex = await ctx.send({ method: 'GET', path: e.path, query: query ? `${query}&${EXTRA_QUERY}` : EXTRA_QUERY }, 'check', e.id);
  } else if (family) {
    const fields = fixtureFields(ctx, family, '-xf');
    ex = (await resources.create(family, fields, 'check', EXTRA_BODY))!;
    if (succeeded(ex)) await resources.delete(family, fields, 'cleanup');
  } else {
    ex = await ctx.call(e, { ...validParams, ...EXTRA_BODY });
  }
  await ctx.check(e, 'unknown-fields-ignored', A.decisionUnknownParams, () => {
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    const textOk = e.response.kind !== 'envelope' && ex.response.status === 200;
    if (textOk || succeeded(ex) || (e.response.otherStatuses ?? []).includes(ex.response.status))
      return pass('extra keys were ignored', ex);
    if (refusedAsInvalid(ex))
      return fail(
        `a valid request with unknown ${e.method === 'GET' ? 'query keys' : 'body fields'} was refused: ${describeAnswer(ex)}`,
        ex,
      );
    return skip(`the request with extras failed for another reason (${describeAnswer(ex)}), so the rule could not be observed`);
  });
}
