/** Test support for the crash torture (crash-torture.ts): its tally as text, and whether it failed. */
import type { CrashTortureResult } from './crash-torture.ts';

/** At most this many examples of each kind of failure are printed. */
const EXAMPLES = 5;

export function crashTortureFailed(r: CrashTortureResult): boolean {
  return (
    r.lost.length + r.halfApplied.length + r.unstable.length + r.outOfOrder.length + r.failedAnswers.length + r.refusedStarts.length > 0
  );
}

export function formatCrashTally(r: CrashTortureResult, seconds: number): string {
  const modes = Object.entries(r.modes)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  const resume = r.resumeSeconds.length > 0 ? Math.max(...r.resumeSeconds).toFixed(2) : '-';
  const list = (name: string, items: string[]): string =>
    `${name.padEnd(24)}${items.length}${items
      .slice(0, EXAMPLES)
      .map((x) => `\n    ${x}`)
      .join('')}${items.length > EXAMPLES ? `\n    ... and ${items.length - EXAMPLES} more` : ''}`;
  return [
    `crash torture: seed ${r.seed}, ${r.kills} kill(s) (${modes})${r.startKills > 0 ? ` + ${r.startKills} kill(s) of a start` : ''}, ${seconds.toFixed(1)} s, slowest resume ${resume} s`,
    `${'acknowledged writes'.padEnd(24)}${r.acknowledged}`,
    `${'checkpoints'.padEnd(24)}${r.checkpointsMade} made and waited for, ${r.checkpointStarts} start(s) restored from one`,
    list('LOST acknowledged', r.lost),
    list('half-applied', r.halfApplied),
    list('out of order', r.outOfOrder),
    list('unstable across starts', r.unstable),
    list('refused starts', r.refusedStarts),
    list('failed answers', r.failedAnswers),
    `${'unanswered at a kill'.padEnd(24)}${r.unansweredKept + r.unansweredDropped} (${r.unansweredKept} kept whole, ${r.unansweredDropped} absent)`,
  ].join('\n');
}
