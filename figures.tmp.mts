import { LIST_FAULT_NAMES, switchListFaults } from './sim/api/list-faults.ts';
import { checkListHistories, newHistoryStats, stepsThatRan } from './sim/http/list-differential/list-history.ts';
const MIXED = { keepAnswers: true, focus: 3, maxSteps: 600 };
const RUN = { seed: 20_261_127, numRuns: 25 };
for (const f of ['(none)', ...LIST_FAULT_NAMES]) {
  const restore = switchListFaults(f === '(none)' ? [] : [f]);
  const stats = newHistoryStats();
  const t0 = performance.now(); const cpu0 = process.cpuUsage();
  const d = await checkListHistories(MIXED, RUN, stats);
  const s = (performance.now() - t0) / 1000; const cpu = process.cpuUsage(cpu0); const cs = (cpu.user + cpu.system) / 1e6;
  console.log(`${f}: failed=${d.failed} runs=${d.numRuns} firstDiffAtStep=${stats.stepsToFirstDifference ?? '-'} shrinks=${d.numShrinks} shrunk=${d.failed ? stepsThatRan(d.counterexample![0]) : '-'} steps=${stats.steps} wall=${s.toFixed(1)}s cpu=${cs.toFixed(1)}s steps/cpu-s=${(stats.steps / cs).toFixed(0)}`);
  if (d.failed) console.log('   ', [...d.counterexample![0].steps].filter((c: any) => c.hasRan).map(String).join(' | ').slice(0, 600));
  restore();
}
