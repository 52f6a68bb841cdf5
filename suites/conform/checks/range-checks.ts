import type { EndpointContract, ParamSpec, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { allowedCodes, expectRefused, refusalNames, refused } from '../check-helpers.ts';
import { A, cite } from '../cite.ts';
import { type ConformContext, describeAnswer, fail, pass, refused as refusedAtAll, skip, succeeded } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';
import { declaredParams } from '../../../contract/minimal-params.ts';
import { companionFields, type CreatedResources, familyByCreate, fixtureFields } from '../resource-families.ts';

/** Values no enum of the contract holds. */
const BAD_TEXT = 'mqsim-not-an-allowed-value';

/** Endpoints whose ranges are checked by their family suite (sending an in-range value would act). */
const OWN_RANGE_CHECKS = new Set(['POST /api/cluster/node/leave']);

interface Case {
  id: string;
  value: unknown;
  valid: boolean;
  what: string;
}

/** The boundary cases of one parameter: just outside and at each end of a numeric range, enum values. */
export function rangeCases(p: ParamSpec): Case[] {
  const cases: Case[] = [];
  if (p.enum && p.enum.length > 0) {
    const numeric = p.enum.every((v) => typeof v === 'number');
    if (numeric) {
      const values = p.enum as number[];
      const lo = Math.min(...values);
      const hi = Math.max(...values);
      if (lo - 1 >= 0 || /^i|^number|^f/.test(p.type))
        cases.push({
          id: `range.${p.name}.${lo - 1}`,
          value: lo - 1,
          valid: false,
          what: `${p.name} ${lo - 1} is none of ${values.join(', ')}`,
        });
      cases.push({
        id: `range.${p.name}.${hi + 1}`,
        value: hi + 1,
        valid: false,
        what: `${p.name} ${hi + 1} is none of ${values.join(', ')}`,
      });
      for (const v of values) cases.push({ id: `range.${p.name}.${v}`, value: v, valid: true, what: `${p.name} ${v} is allowed` });
    } else {
      cases.push({
        id: `enum.${p.name}`,
        value: BAD_TEXT,
        valid: false,
        what: `${p.name} ${JSON.stringify(BAD_TEXT)} is none of ${p.enum.join(', ')}`,
      });
      for (const v of p.enum)
        cases.push({ id: `enum.${p.name}.${v}`, value: v, valid: true, what: `${p.name} ${JSON.stringify(v)} is allowed` });
    }
    return cases;
  }
  if (p.minimum !== undefined) {
    const below = p.minimum - 1;
    // A negative value for an unsigned type is a type error more than a range case; still one to refuse.
    cases.push({
      id: `range.${p.name}.${below}`,
      value: below,
      valid: false,
      what: `${p.name} ${below} is below the minimum ${p.minimum}`,
    });
    cases.push({ id: `range.${p.name}.${p.minimum}`, value: p.minimum, valid: true, what: `${p.name} ${p.minimum} is the minimum` });
  }
  if (p.maximum !== undefined && p.maximum < Number.MAX_SAFE_INTEGER) {
    // Creating an instance at a large maximum (1000 partitions) would be heavy; the limit itself is still checked.
    if (p.maximum <= 64)
      cases.push({ id: `range.${p.name}.${p.maximum}`, value: p.maximum, valid: true, what: `${p.name} ${p.maximum} is the maximum` });
    cases.push({
      id: `range.${p.name}.${p.maximum + 1}`,
      value: p.maximum + 1,
      valid: false,
      what: `${p.name} ${p.maximum + 1} is above the maximum ${p.maximum}`,
    });
  }
  return cases;
}

/**
 * The assertion a range or enum case tests. A value inside the domain cites the statement that
 * gives the domain. A value outside it in a request body is an invalid body (the same statement,
 * MUST); in a query (a filter such as topic_type) the spec lists the allowed values but never says
 * others are refused, so refusing them is a decision of this project (INFO).
 */
function assertionOf(e: EndpointContract, p: ParamSpec): string {
  // The catalogue's covers make a query's listed values (topic_type, data_type) decisions to refuse others.
  return cite(e, p.enum ? 'enum' : 'range', p.name);
}

async function sendCase(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract | undefined,
  resources: CreatedResources,
  valid: Record<string, unknown>,
  p: ParamSpec,
  c: Case,
  n: number,
): Promise<Exchange> {
  if (!family) return ctx.call(e, { ...valid, [p.name]: c.value });
  const fields = {
    ...fixtureFields(ctx, family, `-rg${n}`),
    ...companionFields(ctx, family, p.name, c.value, `-rg${n}`),
    [p.name]: c.value,
  };
  const ex = (await resources.create(family, fields, 'check'))!;
  if (succeeded(ex)) await resources.delete(family, fields, 'cleanup');
  return ex;
}

/**
 * Numeric ranges and enums of every parameter (spec: Limits, the per-endpoint rules such as
 * "resource_type must be ClientId, User or Ip", auto-subscribe qos 0-2, node_id at least 1). Just
 * outside a range and an unknown enum value: refused as a parameter error (with the codes the
 * contract allows for that parameter), naming it (SHOULD). At the ends of a range and every enum
 * value: not refused as invalid — sent only where it is harmless (creates, which are deleted again).
 */
export async function runRangeChecks(
  ctx: ConformContext,
  e: EndpointContract,
  valid: Record<string, unknown>,
  resources: CreatedResources,
): Promise<void> {
  if (OWN_RANGE_CHECKS.has(`${e.method} ${e.path}`)) return;
  const family = familyByCreate(ctx, e);
  // List control parameters (sort_by, exact_match) are covered by the list laws; only the endpoint's own.
  const params = declaredParams(e).filter((p) => e.params.includes(p) && p.type !== 'object' && p.type !== 'array');
  let n = 0;
  for (const p of params) {
    for (const c of rangeCases(p)) {
      // A value that is allowed is only sent to a create (whose instance is deleted again) or a read.
      if (c.valid && !family && e.method !== 'GET') continue;
      if (c.valid && e.method === 'GET') continue; // reads of each value are covered by the behaviour checks
      n++;
      const assertion = assertionOf(e, p);
      const ex = await sendCase(ctx, e, family, resources, valid, p, c, n);
      if (c.valid) {
        await ctx.check(e, c.id, assertion, () => {
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          if (succeeded(ex)) return pass(`${c.what}: accepted`, ex);
          if (refused(ex) && refusalNames(ex, p.name)) return fail(`${c.what}, but it was refused as invalid: ${describeAnswer(ex)}`, ex);
          // The family's valid instance was created, and only this value (with the fields it needs) changed:
          // a refusal, whatever its text, refuses the value.
          if (refusedAtAll(ex) && family && resources.fixtures.has(family.key))
            return fail(
              `${c.what}, but a create differing from the run's accepted fixture only in it was refused: ${describeAnswer(ex)}`,
              ex,
            );
          return skip(`refused for another reason (${describeAnswer(ex)}), so the rule could not be observed`);
        });
        continue;
      }
      const codes = allowedCodes(e, p.name);
      await ctx.check(e, c.id, assertion, () => expectRefused(ex, c.what, codes));
      if (refused(ex, codes)) {
        await ctx.check(e, `${c.id}.names-param`, A.errorsNamesParam, () =>
          refusalNames(ex, p.name)
            ? pass('the message names the parameter')
            : fail(`the refusal does not name ${p.name}: ${describeAnswer(ex)}`, ex),
        );
      }
    }
  }
}
