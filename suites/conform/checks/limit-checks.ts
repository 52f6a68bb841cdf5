import type { EndpointContract, ParamSpec } from '../../../contract/core/types.ts';
import { A, cite } from '../cite.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, refusedAsInvalid, skip, succeeded } from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';
import { textOfLength } from '../param-values.ts';
import type { ResourceFamilyContract } from '../../../contract/core/types.ts';
import { type CreatedResources, exactText, fixtureFields } from '../resource-families.ts';

interface LengthCase {
  length: number;
  inRange: boolean;
}

/** The lengths worth sending for a limited string: empty, 1, the maximum, and one past it. */
export function lengthCases(p: ParamSpec): LengthCase[] {
  const min = p.minLength ?? 0;
  const cases: LengthCase[] = [];
  if (min >= 1) cases.push({ length: min - 1, inRange: false });
  else cases.push({ length: 0, inRange: true });
  if (min <= 1 && (p.maxLength === undefined || p.maxLength >= 1)) cases.push({ length: 1, inRange: true });
  else if (min > 1) cases.push({ length: min, inRange: true });
  if (p.maxLength !== undefined) {
    if (p.maxLength > 1) cases.push({ length: p.maxLength, inRange: true });
    cases.push({ length: p.maxLength + 1, inRange: false });
  }
  return cases;
}

function limited(p: ParamSpec): boolean {
  return p.type === 'string' && !p.enum && (p.minLength !== undefined || p.maxLength !== undefined);
}

/**
 * Length limits of every limited string parameter of a create endpoint (spec: Limits). Out of range:
 * refused as a parameter error (MUST) with a message naming the parameter (SHOULD). In range: not
 * refused as invalid (MUST). What an in-range case creates is deleted at once; a name that existed
 * before is never deleted.
 */
export async function runLimitChecks(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract,
  resources: CreatedResources,
): Promise<void> {
  for (const p of e.params.filter(limited)) {
    const assertion = cite(e, 'length', p.name);
    const range = `${p.minLength ?? 0}-${p.maxLength ?? '∞'}`;
    for (const c of lengthCases(p)) {
      const id = `limit.${p.name}.length-${c.length}`;
      const value = c.inRange ? exactText(ctx, family, p, c.length) : textOfLength(`${ctx.names.stem}-${p.name}`, c.length);
      if (value === undefined) {
        // An optional parameter sent empty has no agreed meaning (absent is the valid form): no case.
        if (c.length === 0) continue;
        await ctx.check(e, id, assertion, () =>
          skip(`no valid ${p.name} of exactly ${c.length} characters can be written (it names an existing resource or has a format)`),
        );
        continue;
      }
      const fields = { ...fixtureFields(ctx, family, `-lim`), [p.name]: value };
      const ex = (await resources.create(family, fields, 'check')) as Exchange;
      if (succeeded(ex)) await resources.delete(family, fields, 'cleanup');
      if (c.inRange) {
        await ctx.check(e, id, assertion, () => {
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          if (succeeded(ex)) return pass(`${p.name} of ${c.length} characters accepted (allowed ${range})`, ex);
          const env = envelopeOf(ex);
          if (refusedAsInvalid(ex) && namesParam(env?.text ?? ex.response.text, p.name)) {
            return fail(`${p.name} of ${c.length} characters is within ${range} but was refused as invalid: ${describeAnswer(ex)}`, ex);
          }
          return skip(`refused for another reason (${describeAnswer(ex)}), so the length rule could not be observed`);
        });
      } else {
        await ctx.check(e, id, assertion, () => {
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          if (refusedAsInvalid(ex)) return pass(`${p.name} of ${c.length} characters refused (allowed ${range})`);
          return fail(`${p.name} of ${c.length} characters is outside ${range} but was not refused as invalid: ${describeAnswer(ex)}`, ex);
        });
        if (refusedAsInvalid(ex)) {
          await ctx.check(e, `${id}.names-param`, A.errorsNamesParam, () => {
            const env = envelopeOf(ex);
            return namesParam(env?.text ?? ex.response?.text, p.name)
              ? pass('the message names the parameter')
              : fail(`the refusal does not name ${p.name}: ${describeAnswer(ex)}`, ex);
          });
        }
      }
    }
  }
}

/** Longest value the out-of-range checks send (a message payload's limit of 1 MiB is left out). */
const MAX_SENT_LENGTH = 100_000;

/** Endpoints whose every request acts on the cluster beyond its parameters (checked by their family). */
const NO_LIMIT_PROBES = new Set(['POST /api/cluster/node/leave', 'POST /api/v1/login']);

/**
 * Length limits of the other endpoints (spec: Limits and the endpoint paragraphs, e.g. topic delete:
 * topic_name 1-256; tenant update: desc at most 500; user delete: tenant and username 1-64): a value
 * one past the maximum, or empty where at least one character is required, in an otherwise valid
 * request, is refused as a parameter error naming it (SHOULD). Only out-of-range values are sent, so
 * nothing is changed by a conforming server. Where the spec states the limit only for another request
 * (a detail query, a delete body), the check cites the project's decision to apply it there (INFO).
 */
export async function runOutOfRangeLengthChecks(ctx: ConformContext, e: EndpointContract, valid: Record<string, unknown>): Promise<void> {
  if (NO_LIMIT_PROBES.has(`${e.method} ${e.path}`)) return;
  for (const p of e.params.filter(limited)) {
    const assertion = cite(e, 'length', p.name);
    const range = `${p.minLength ?? 0}-${p.maxLength ?? '∞'}`;
    const lengths: number[] = [];
    if ((p.minLength ?? 0) >= 1) lengths.push(p.minLength! - 1);
    if (p.maxLength !== undefined && p.maxLength < MAX_SENT_LENGTH) lengths.push(p.maxLength + 1);
    for (const n of lengths) {
      const id = `limit.${p.name}.length-${n}`;
      const ex = await ctx.call(e, { ...valid, [p.name]: textOfLength(`${ctx.names.stem}-${p.name}`, n) });
      await ctx.check(e, id, assertion, () => {
        if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
        if (refusedAsInvalid(ex)) return pass(`${p.name} of ${n} characters refused (allowed ${range})`);
        return fail(`${p.name} of ${n} characters is outside ${range} but was not refused as invalid: ${describeAnswer(ex)}`, ex);
      });
      if (refusedAsInvalid(ex)) {
        await ctx.check(e, `${id}.names-param`, A.errorsNamesParam, () =>
          namesParam(envelopeOf(ex)?.text ?? ex.response?.text, p.name)
            ? pass('the message names the parameter')
            : fail(`the refusal does not name ${p.name}: ${describeAnswer(ex)}`, ex),
        );
      }
    }
  }
}
