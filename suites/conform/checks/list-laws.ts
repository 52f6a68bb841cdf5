import type { EndpointContract } from '../../../contract/core/types.ts';
import { pagedAssertion } from '../cite.ts';
import { type ConformContext, describeAnswer, skip } from '../conform-context.ts';
import type { Exchange } from '../exchange.ts';
import { pageOf, type SeenPages } from './list-pages.ts';
import { runPageZero, runPagingLaws } from './list-paging.ts';
import { runBaseOrder, runSortDefault, runSortLaws } from './list-sorting.ts';

/**
 * Paging, sorting and filtering laws of every list (spec: Response envelope — paged list; Common list
 * parameters; each list's query parameters). Each check passes only on evidence a wrong server would
 * have failed: a filter needs records that do not match it, a sort two distinct keys, a default page
 * size more records than the sizes it must be told from; otherwise it is inconclusive.
 */

/** The paging and sorting laws of a list, then the project's decisions, in the order the report lists them. */
export async function runListLaws(ctx: ConformContext, e: EndpointContract, happy: Exchange, base: Record<string, unknown>): Promise<void> {
  const first = pageOf(happy);
  if (!first) {
    await ctx.check(e, 'list.laws', pagedAssertion(e, 'data'), () =>
      skip(`the valid list request did not succeed (${describeAnswer(happy)})`),
    );
    return;
  }

  // Pages the laws fetch that the decisions compare with (saving their requests).
  const seen: SeenPages = {};
  await runPagingLaws(ctx, e, first, base, seen);
  await runSortLaws(ctx, e, base, seen);
  await runSortDefault(ctx, e, base, seen);
  await runPageZero(ctx, e, first, base, seen);
  await runBaseOrder(ctx, e, first);
}
