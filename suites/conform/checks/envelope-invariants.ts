import type { EndpointContract } from '../../../fixtures/contract/types.ts';
import { type ConformContext, fail, pass, skip } from '../conform-context.ts';
import { envelopeProblems } from '../envelope.ts';

/**
 * Every JSON answer an envelope endpoint gave during the run — happy paths, refusals, fixtures,
 * cleanups, auth probes — follows the envelope rules: numeric code and a data field; a failure has a
 * text and empty data. Checked once per endpoint, at the end, over everything seen.
 */
export async function runEnvelopeInvariants(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const seen = ctx.log.exchanges.filter((x) => x.endpointId === e.id && x.response);
  await ctx.check(e, 'envelope-invariants', 'MUST', () => {
    // Text endpoints answer without an envelope on success; their failures still use one.
    const relevant = e.response.kind === 'envelope' ? seen : seen.filter((x) => x.response!.status >= 400);
    if (relevant.length === 0) return skip('no answer of this endpoint to look at');
    for (const x of relevant) {
      // The spec does not show the answer to an excess request: 429 bodies are not held to the envelope.
      if (x.response!.status === 429) continue;
      const problems = envelopeProblems(x.response!.json, x.response!.text);
      if (problems.length > 0) return fail(`${problems.join('; ')} (answer to ${x.record.method} ${x.record.path})`, x);
    }
    return pass(`${relevant.length} answers all carry a sound envelope`);
  });
}
