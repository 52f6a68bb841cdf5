import type { WarmUpProgress } from '../../sim/model/cluster/cluster.ts';

/** Warm-up progress lines: one when 2 s of wall time have passed since the start or the last line. */
export function warmUpReporter(startedMs: number, write: (line: string) => void, now = () => performance.now()) {
  let lastMs = startedMs;
  return (p: WarmUpProgress): void => {
    const t = now();
    if (t - lastMs < 2_000) return;
    lastMs = t;
    write(
      `mqsim serve: warm-up ${(p.doneMs / 60_000).toFixed(0)} of ${(p.totalMs / 60_000).toFixed(0)} virtual minutes, ` +
        `${p.clients.toLocaleString('en-US')} clients (${p.connections.toLocaleString('en-US')} connected), ${((t - startedMs) / 1000).toFixed(1)} s\n`,
    );
  };
}
