import type { EndpointContract } from '../../../contract/core/types.ts';
import { A, pagedAssertion } from '../cite.ts';
import { type ConformContext, describeAnswer, envelopeOf, fail, pass, refusedAsInvalid, skip } from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import { fetchPage, fingerprint, isPage, type Page, refusedNaming, settled, WHOLE } from './list-pages.ts';

/**
 * List parameters outside what the spec lists. A sort field the endpoint does not list is ignored and
 * a sort_by other than asc/desc sorts descending, as on the real server (decisions of this project:
 * the spec lists the values but never says what others do, so INFO; a 400 naming the parameter is the
 * decisions' alternative and passes too). A negative limit is not a u32 (spec: Common list parameters), a MUST refusal.
 */
export async function runListParamChecks(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown>): Promise<void> {
  const limit = Math.max(e.list!.defaultLimit, WHOLE);
  const field = e.list!.sortFields[0];
  const order = (p: Page) => p.rows.map(fingerprint);
  await ctx.check(e, 'list.sort_field.unknown', A.decisionUnknownSortField, async () =>
    settled(async () => {
      const plain = await fetchPage(ctx, e, base, { limit });
      if (!isPage(plain)) return skip(`the list without sort_field was refused (${describeAnswer(plain)})`);
      const odd = await fetchPage(ctx, e, base, { limit, sort_field: 'mqsim_not_a_field', sort_by: 'asc' });
      if (!isPage(odd)) {
        // The decision's alternative: a parameter error that names sort_field.
        if (refusedNaming(odd, 'sort_field'))
          return pass(
            `a sort_field not among ${e.list!.sortFields.join(', ') || '(none)'} is refused naming sort_field (${describeAnswer(odd)}), the decision's alternative`,
          );
        return fail(
          `a sort_field not among ${e.list!.sortFields.join(', ') || '(none)'} was neither ignored nor refused as a parameter error naming sort_field: ${describeAnswer(odd)}`,
          odd,
        );
      }
      if (JSON.stringify(order(odd)) !== JSON.stringify(order(plain)))
        return fail(
          `with an unknown sort_field the ${odd.rows.length} records come in another order than without sort_field: ${order(odd).slice(0, 4).join(' ')}… vs ${order(plain).slice(0, 4).join(' ')}…`,
          odd.ex,
        );
      // One record is in "the same order" whatever a server does with the field.
      return pass(
        `an unknown sort_field is ignored: the ${odd.rows.length} records keep the order they have without it`,
        undefined,
        new Set(order(plain)).size < 2,
      );
    }),
  );
  await ctx.check(e, 'list.sort_by.invalid', A.decisionUnknownSortBy, async () => {
    if (!field) return skip('the list has no sort field to sort by');
    return settled(async () => {
      const desc = await fetchPage(ctx, e, base, { limit, sort_field: field, sort_by: 'desc' });
      if (!isPage(desc)) return skip(`sort_by=desc was refused (${describeAnswer(desc)}), so there is no descending order to compare with`);
      const odd = await fetchPage(ctx, e, base, { limit, sort_field: field, sort_by: 'sideways' });
      if (!isPage(odd)) {
        if (refusedNaming(odd, 'sort_by'))
          return pass(`sort_by "sideways" is refused naming sort_by (${describeAnswer(odd)}), the decision's alternative`);
        return fail(
          `sort_by "sideways" was neither read as descending (the decision) nor refused as a parameter error naming sort_by: ${describeAnswer(odd)}`,
          odd,
        );
      }
      const keys = (p: Page) => p.rows.map((r) => JSON.stringify(r[field]));
      if (JSON.stringify(keys(odd)) !== JSON.stringify(keys(desc)))
        return fail(
          `sort_by "sideways" does not sort by ${field} descending: ${keys(odd).slice(0, 5).join(',')}… (desc: ${keys(desc).slice(0, 5).join(',')}…)`,
          odd.ex,
        );
      // With fewer than two distinct keys descending and ascending look the same.
      return pass(`sort_by "sideways" sorts by ${field} descending, as sort_by=desc`, undefined, new Set(keys(desc)).size < 2);
    });
  });
  const ex = await ctx.call(e, { ...base, limit: -1 });
  await ctx.check(e, 'list.limit.negative', pagedAssertion(e, 'limit'), () => {
    if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
    if (refusedAsInvalid(ex))
      return pass(
        `limit -1 (a u32): refused${namesParam(envelopeOf(ex)?.text ?? ex.response.text, 'limit') ? ' naming limit' : ''} (${describeAnswer(ex)})`,
      );
    return fail(`limit -1 (a u32) should be refused as a parameter error, got ${describeAnswer(ex)}`, ex);
  });
}
