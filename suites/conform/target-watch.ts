import { ForwardingTarget, TransportError, type Target, type TargetRequest, type TargetResponse } from '../targets/target.ts';

/**
 * Notices a target that went away in the middle of a run (killed, crashed, frozen, its host gone):
 * without it, every check after that point fails with "no answer", one finding per endpoint. The
 * watch counts consecutive requests that got no answer at all (isNoAnswer); once they span two paths
 * (one endpoint that never answers is that endpoint's finding, not the target's), it asks
 * `GET /health/ready` and then `GET /` with no token. When neither answers either, the target has stopped: every later
 * request fails at once without being sent, and the runner ends the run with one finding
 * (`stopped`), the report marks the run incomplete, and the CLI exits 2.
 */

/** Consecutive requests without an answer, over at least two paths, before the target is probed. */
export const LOST_IN_A_ROW = 3;

/**
 * A transport error that means nothing came back from a server: no connection (refused, unreachable,
 * no such host), no answer within the timeout, or not sent because the target is already known to be
 * unresponsive. A reset in the middle of an answer, bytes that are not HTTP or a body over the cap
 * show a server that is there, answering badly: those are findings of the endpoints that got them.
 */
function isNoAnswer(message: string): boolean {
  return /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|no answer within|not sent:|target is closed/.test(message);
}

/** When and where the target stopped answering. */
export interface TargetStop {
  /** Wall time of the first request of the run of unanswered ones (ISO). */
  at: string;
  /** That request, `METHOD /path`, and its number among the run's requests (1-based). */
  request: string;
  requestNumber: number;
  /** The transport error it got. */
  error: string;
  /** Unanswered requests in a row when the target was probed. */
  inARow: number;
  /** What the probe asked and got. */
  probe: string;
}

/** A target whose requests are watched for the target going away (see above); everything else is the inner target's. */
export class WatchedTarget extends ForwardingTarget {
  /** Set once the target is found stopped. */
  stopped?: TargetStop;
  private sent = 0;
  /** The current run of unanswered requests: each with its number, time and error. */
  private streak: { req: TargetRequest; n: number; at: Date; error: string }[] = [];
  /** Requests that got no answer because the target had stopped (the streak that showed it, and all after). */
  private readonly lost = new WeakSet<TargetRequest>();
  private probing?: Promise<void>;

  constructor(
    inner: Target,
    private readonly now: () => Date = () => new Date(),
  ) {
    super(inner);
  }

  /** Did this request go unanswered because the target had stopped? */
  lostToStop(req: TargetRequest): boolean {
    return this.lost.has(req);
  }

  override async request(req: TargetRequest): Promise<TargetResponse> {
    const n = ++this.sent;
    if (this.stopped) {
      this.lost.add(req);
      throw new TransportError(`not sent: the target stopped answering at ${this.stopped.at} (${this.stopped.request})`, 0);
    }
    try {
      const answer = await this.inner.request(req);
      this.streak = [];
      return answer;
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      this.streak.push({ req, n, at: this.now(), error: e.message });
      // Answers that are merely broken (resets, not HTTP, too large) alone never make the watch probe.
      if (
        this.streak.length >= LOST_IN_A_ROW &&
        new Set(this.streak.map((s) => s.req.path)).size >= 2 &&
        this.streak.some((s) => isNoAnswer(s.error))
      )
        await this.probe();
      if (this.stopped) this.lost.add(req);
      throw e;
    }
  }

  /** Asks the readiness probe, then the base URL; stopped when neither answers. One probe at a time. */
  private probe(): Promise<void> {
    this.probing ??= (async () => {
      const asked: string[] = [];
      for (const path of ['/health/ready', '/']) {
        try {
          const r = await this.inner.request({ method: 'GET', path, auth: 'none' });
          asked.push(`GET ${path}: HTTP ${r.status}`);
          this.streak = [];
          return;
        } catch (e) {
          if (!(e instanceof TransportError)) throw e;
          // Something came back, however broken: the target is there.
          if (!isNoAnswer(e.message)) {
            this.streak = [];
            return;
          }
          asked.push(`GET ${path}: ${e.message}`);
        }
      }
      const first = this.streak[0];
      for (const s of this.streak) this.lost.add(s.req);
      this.stopped = {
        at: first.at.toISOString(),
        request: `${first.req.method} ${first.req.path}`,
        requestNumber: first.n,
        error: first.error,
        inARow: this.streak.length,
        probe: asked.join('; '),
      };
    })().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }
}
