import type { Cluster } from '../../model/cluster/cluster.ts';
import { controlHttpAnswer } from '../control/control-http.ts';
import type { AdminApp } from '../../admin-api/admin-app.ts';
import type { EnvelopeForm } from '../../admin-api/envelope.ts';
import { applyWireOp, decodeWireOp, wireAnswerText } from '../../model/cluster-ops/wire-ops.ts';
import { answerDigest, StateFileError, type JournaledWrite } from './state-file.ts';
import { sealPassword, unsealForReplay } from './journal-secrets.ts';

/** How a replay proceeds, for a caller that replays part of a run or must be able to stop it. */
export interface ReplaySteps {
  /** Index of the first write to apply (the ones before it are in the model already). */
  from?: number;
  /** Moves virtual time to `to`, running what falls due (default: at once; a checkpoint build goes in slices). */
  advance?: (cluster: Cluster, to: number) => void;
  /** Told after each write applied again and every 65,536 engine events (for progress lines: a long journal takes seconds). */
  onProgress?: (progress: ReplayProgress) => void;
}

/** How far a replay is: writes applied again of all the journal's, and the virtual time reached. */
export interface ReplayProgress {
  applied: number;
  total: number;
  virtualMs: number;
}

/**
 * Brings a freshly started cluster (same seed and options as the recorded run) back to where the run
 * stopped: each journaled write is applied again at the virtual time it was handled, the simulation
 * running in between exactly as it did (it is deterministic from the seed), then time runs on to
 * `virtualNow`. Every write must answer as it did; a different answer means this mqsim simulates
 * differently from the one that wrote the file, and resuming would silently give another state, so
 * it stops with an error instead. `app` must be in manual clock mode.
 *
 * A user create journaled with its password's stored hash (journal-secrets.ts) stores that hash
 * again. One journaled by an older mqsim with the password in clear is replayed as it is, and
 * `onSealed` is given its body with the hash instead, so the caller can save the file without it.
 */
export async function replayWrites(
  cluster: Cluster,
  app: AdminApp,
  envelope: EnvelopeForm,
  writes: readonly JournaledWrite[],
  virtualNow: number,
  where: string,
  onSealed?: (index: number, body: string) => void,
  steps: ReplaySteps = {},
): Promise<void> {
  const progress = { applied: steps.from ?? 0 };
  const report = (): void => steps.onProgress?.({ applied: progress.applied, total: writes.length, virtualMs: cluster.now() });
  const unhook = steps.onProgress ? reportEvery(cluster.engine, EVENTS_PER_REPORT, report) : undefined;
  try {
    await applyWrites({ cluster, app, envelope, writes, where, onSealed, steps, progress, report });
    const advance = steps.advance ?? ((c: Cluster, to: number) => c.engine.runUntil(to));
    if (virtualNow > cluster.now()) advance(cluster, virtualNow);
  } finally {
    unhook?.();
  }
  report();
}

/**
 * Engine events between two progress reports inside a stretch of simulation: a single write can run
 * hours of it (a control clock advance), and so can the time between two writes. Cheap enough to
 * count (one increment an event); a report itself is a wall-clock read, its caller prints at most one
 * line per 2 s.
 */
const EVENTS_PER_REPORT = 1 << 16;

/**
 * Calls `report` every `every` engine events through the engine's onEvent hook (which observes and
 * changes nothing in the model: the same events run in the same order), until the returned unhook.
 */
function reportEvery(engine: Cluster['engine'], every: number, report: () => void): () => void {
  const previous = engine.onEvent;
  let events = 0;
  engine.onEvent = (event) => {
    previous?.(event);
    if (++events % every === 0) report();
  };
  return () => {
    engine.onEvent = previous;
  };
}

interface ApplyRun {
  cluster: Cluster;
  app: AdminApp;
  envelope: EnvelopeForm;
  writes: readonly JournaledWrite[];
  where: string;
  onSealed: ((index: number, body: string) => void) | undefined;
  steps: ReplaySteps;
  progress: { applied: number };
  report: () => void;
}

/** Applies the journal's writes from `steps.from` on, each at its virtual time, checking each answer. */
async function applyWrites(run: ApplyRun): Promise<void> {
  const { cluster, app, envelope, writes, where, onSealed, steps, progress, report } = run;
  const advance = steps.advance ?? ((c: Cluster, to: number) => c.engine.runUntil(to));
  for (let i = steps.from ?? 0; i < writes.length; i++) {
    const w = writes[i];
    if (w.at > cluster.now()) advance(cluster, w.at);
    const unsealed = w.source === 'mqtt' ? ({ kind: 'plain', body: w.body } as const) : unsealForReplay(w.body);
    if (unsealed.kind === 'withheld')
      throw new StateFileError(
        `${where}: write ${i + 1} (${w.method} ${w.url}) had its password withheld from the file, so it cannot be replayed; refusing to use it`,
      );
    const body = unsealed.body;
    const headers = body !== undefined ? { 'content-type': 'application/json' } : {};
    cluster.users.useRecordedHash(unsealed.kind === 'sealed' ? unsealed.hash : undefined);
    let answer;
    try {
      answer =
        w.source === 'mqtt'
          ? replayMqtt(cluster, w, i, where)
          : w.source === 'control'
            ? controlHttpAnswer(cluster, envelope, () => {}, { method: w.method, url: w.url, body, peer: '127.0.0.1' })
            : await app.handle({ method: w.method, url: w.url, headers, body, peer: '127.0.0.1', nodeId: w.node });
    } finally {
      cluster.users.useRecordedHash(undefined);
    }
    const status = answer?.status;
    const digest = answer ? answerDigest(answer.body) : 'no answer';
    if (status !== w.status || digest !== w.answer) {
      throw new StateFileError(
        `${where}: replaying write ${i + 1} of ${writes.length} (${w.method} ${w.url} at virtual ${new Date(w.at).toISOString()}) answered HTTP ${status} ${answer?.body.slice(0, 160) ?? ''} instead of what it answered when recorded (HTTP ${w.status}); this mqsim does not reproduce the recorded run, so resuming would lose or change state — the file is left untouched`,
      );
    }
    if (unsealed.kind === 'plain' && onSealed) {
      const sealed = sealPassword(w.body, cluster.users);
      if (sealed !== undefined && sealed !== w.body) onSealed(i, sealed);
    }
    progress.applied = i + 1;
    report();
  }
}

/**
 * An MQTT listener operation applied again: the same model call the connection made, without its
 * socket (deliveries go nowhere; the client is long gone), answering as an HTTP-like answer so the
 * check below is the same as for the other writes.
 */
function replayMqtt(cluster: Cluster, w: JournaledWrite, i: number, where: string): { status: number; body: string } {
  let op;
  try {
    op = decodeWireOp(w.body ?? '');
  } catch (e) {
    throw new StateFileError(`${where}: write ${i + 1} is not a readable MQTT operation (${(e as Error).message}); refusing to use it`);
  }
  return { status: 200, body: wireAnswerText(applyWireOp(cluster, op)) };
}
