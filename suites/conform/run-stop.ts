import type { EndpointContract } from '../../contract/core/types.ts';
import { fail, type ConformContext } from './conform-context.ts';
import { TARGET_STOPPED_CHECK } from './findings.ts';
import type { CheckRecord, RequestRecord, RunStop } from './report-model.ts';
import type { TargetStop, WatchedTarget } from './target-watch.ts';

/** The transport error of a request the watch did not send because the target had stopped. */
const NOT_SENT = /^not sent: the target stopped answering/;

/**
 * Turns a stop of the target (target-watch.ts) into the report's one finding: every failed check
 * whose request got no answer because of the stop gets the cause `stopped` (so none is a finding of
 * its own), and one check on the endpoint of the first unanswered request states when and where the
 * target stopped and what the re-probe got. Returns the report's `stopped` record.
 */
export async function recordRunStop(
  ctx: ConformContext,
  watch: WatchedTarget,
  stop: TargetStop,
  /** The endpoints the report holds: the stop is recorded on one of them (the stopped request's, else the first). */
  inRun: readonly EndpointContract[],
  progress: { endpointsChecked: number; endpointsSelected: number },
): Promise<RunStop> {
  const lost = new Set<RequestRecord>(ctx.log.exchanges.filter((x) => watch.lostToStop(x.sent)).map((x) => x.record));
  const isLost = (c: CheckRecord) =>
    c.status === 'fail' && !!c.response?.error && ((c.request !== undefined && lost.has(c.request)) || NOT_SENT.test(c.response.error));
  for (const checks of ctx.results.values())
    for (const c of checks) {
      if (!isLost(c)) continue;
      c.cause = 'stopped';
      delete c.causeEndpoint;
    }
  const [method, path] = stop.request.split(' ');
  const where: EndpointContract | undefined = inRun.find((e) => e.method === method && e.path === path) ?? inRun[0];
  const message = `the target stopped answering at ${stop.at}: request ${stop.requestNumber} of the run (${stop.request}) got no answer (${stop.error}), nor did the ${stop.inARow - 1} after it; the re-probe got no answer either (${stop.probe}). The run ended there, after ${progress.endpointsChecked} of ${progress.endpointsSelected} endpoints`;
  if (where) {
    const record = await ctx.check(where, TARGET_STOPPED_CHECK, 'endpoints.health.ready.status', () => fail(message));
    record.cause = 'stopped';
  } else ctx.notes.push(message);
  return { at: stop.at, request: stop.request, requestNumber: stop.requestNumber, error: stop.error, probe: stop.probe, ...progress };
}
