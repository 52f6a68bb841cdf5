import type { WarmUpProgress } from '../../sim/model/cluster/cluster.ts';
import type { ReplayProgress } from '../../sim/io/state/state-replay.ts';

/** Wall time between two progress lines: anything that takes longer than this says what it is doing. */
const LINE_EVERY_MS = 2_000;

/** Calls `line(seconds since the start)` when LINE_EVERY_MS of wall time have passed since the start or the last line. */
function throttled(startedMs: number, now: () => number, line: (seconds: string) => void): () => void {
  let lastMs = startedMs;
  return () => {
    const t = now();
    if (t - lastMs < LINE_EVERY_MS) return;
    lastMs = t;
    line(`${((t - startedMs) / 1000).toFixed(1)} s`);
  };
}

/** Warm-up progress lines: one when 2 s of wall time have passed since the start or the last line. */
export function warmUpReporter(startedMs: number, write: (line: string) => void, now = () => performance.now()) {
  let last: WarmUpProgress | undefined;
  const tick = throttled(startedMs, now, (seconds) => {
    const p = last!;
    write(
      `mqsim serve: warm-up ${(p.doneMs / 60_000).toFixed(0)} of ${(p.totalMs / 60_000).toFixed(0)} virtual minutes, ` +
        `${p.clients.toLocaleString('en-US')} clients (${p.connections.toLocaleString('en-US')} connected), ${seconds}\n`,
    );
  });
  return (p: WarmUpProgress): void => {
    last = p;
    tick();
  };
}

/**
 * State-file replay progress lines, on the same 2 s rhythm: a long journal (100,000 writes take
 * seconds to apply again) says how far it is instead of sitting silent before the listeners open.
 */
export function replayReporter(startedMs: number, write: (line: string) => void, now = () => performance.now()) {
  let last: ReplayProgress | undefined;
  const tick = throttled(startedMs, now, (seconds) => {
    const p = last!;
    write(
      `mqsim serve: replaying the state file: ${p.applied.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} writes, ` +
        `virtual ${new Date(p.virtualMs).toISOString()}, ${seconds}\n`,
    );
  });
  return (p: ReplayProgress): void => {
    last = p;
    tick();
  };
}
