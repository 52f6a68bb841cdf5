import type { EndpointContract } from '../../../contract/core/types.ts';
import { A } from '../cite.ts';
import { type ConformContext, envelopeOf, fail, pass, skip } from '../conform-context.ts';
import { envelopeProblems, readEnvelope } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';

/**
 * Statuses whose answers the spec does not describe, so they are not held to the envelope: 404 and
 * 405 (no such path or method: the spec defines neither), 413 (a body past the project's limit) and
 * 429 ("Behaviour of the service when the admin request rate is exceeded: not shown").
 */
const UNDESCRIBED = new Set([404, 405, 413, 429]);

/**
 * The answers of the run the envelope rules apply to: those to the endpoint's own method (a probe with
 * another method asks something the spec never defines), not the auth probes (their 401 bodies are
 * the auth checks' business, spec rule 5), and for text endpoints (GET /, /metrics) only failures.
 */
function envelopeAnswers(ctx: ConformContext, e: EndpointContract): Exchange[] {
  return ctx.log.exchanges.filter((x) => {
    if (x.endpointId !== e.id || !x.response || x.purpose === 'auth') return false;
    if (x.sent.method !== e.method || x.sent.asRemotePeer || x.sent.asLoopbackPeer) return false;
    if (UNDESCRIBED.has(x.response.status)) return false;
    return e.response.kind === 'envelope' || x.response.status >= 400;
  });
}

/**
 * Every answer an envelope endpoint gave during the run — valid requests, refusals, fixtures,
 * cleanups — is an envelope (spec: "Two envelope forms occur. Both carry `code` … and `data`."), and
 * every failure among them has the failure shape (non-zero code, data null or "", a text). Checked once
 * per endpoint, at the end, over everything seen.
 */
export async function runEnvelopeInvariants(ctx: ConformContext, e: EndpointContract): Promise<void> {
  const seen = envelopeAnswers(ctx, e);
  await ctx.check(e, 'envelope.answers-are-envelopes', A.envelopeForms, () => {
    if (seen.length === 0) return skip('no answer of this endpoint to look at');
    for (const x of seen) {
      const read = readEnvelope(x.response!.json, x.response!.text);
      if (!read.ok) return fail(`${read.problem} (HTTP ${x.response!.status} answer to ${x.record.method} ${x.record.path})`, x);
    }
    return pass(`${seen.length} answers are all envelopes`);
  });
  // A status the endpoint answers as part of its success (the readiness probe's 503 with code 0) is no failure.
  const documented = new Set(e.response.otherStatuses ?? []);
  const failures = seen.filter((x) => {
    const read = readEnvelope(x.response!.json, x.response!.text);
    return read.ok && (read.envelope.code !== 0 || (x.response!.status >= 400 && !documented.has(x.response!.status)));
  });
  await ctx.check(e, 'envelope.failure-shape', A.envelopeFailure, () => {
    if (failures.length === 0) return skip('no failure answer of this endpoint to look at');
    for (const x of failures) {
      const problems = envelopeProblems(x.response!.json, x.response!.text);
      const read = readEnvelope(x.response!.json, x.response!.text);
      if (read.ok && read.envelope.code === 0) problems.push(`HTTP ${x.response!.status} with code 0, which means success`);
      if (problems.length > 0) return fail(`${problems.join('; ')} (answer to ${x.record.method} ${x.record.path})`, x);
    }
    return pass(`${failures.length} failure answers all have a non-zero code, a text and empty data`);
  });
  // Decision (the spec shows no HTTP status for failures other than 401 and 503): a generic failure (code 1 or
  // 100) with 200, 400, 404, 409 or 500; a parameter error (code 400) with HTTP 400. Recorded where such failures were seen.
  const judged = failures.filter((x) => [1, 100, 400].includes(envelopeOf(x)?.code ?? -1));
  if (judged.length > 0) {
    await ctx.check(e, 'envelope.failure-http-status', 'decision.failure-http-status', () => {
      for (const x of judged) {
        const code = envelopeOf(x)!.code;
        const status = x.response!.status;
        if (code === 400 && status !== 400)
          return fail(
            `a parameter error (code 400) answered with HTTP ${status}; the contract answers parameter errors with HTTP 400 (answer to ${x.record.method} ${x.record.path})`,
            x,
          );
        if (code !== 400 && !GENERIC_FAILURE_STATUSES.includes(status))
          return fail(
            `a failure with code ${code} answered with HTTP ${status}, none of ${GENERIC_FAILURE_STATUSES.join(', ')} (answer to ${x.record.method} ${x.record.path})`,
            x,
          );
      }
      return pass(
        `${judged.length} failures (codes ${[...new Set(judged.map((x) => envelopeOf(x)!.code))].join(', ')}) with HTTP ${[...new Set(judged.map((x) => x.response!.status))].join(', ')}`,
      );
    });
  }
}

/** HTTP statuses the contract accepts for a generic failure (code 1 or 100). */
const GENERIC_FAILURE_STATUSES: readonly number[] = [200, 400, 404, 409, 500];
