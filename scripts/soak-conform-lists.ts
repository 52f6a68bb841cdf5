/**
 * Soak of the list histories (`history.lists`, `mqsim conform`'s stateful list suite) against the
 * embedded simulator, in-process: one invocation per seed, each with histories of --depth steps.
 * The simulator answers as the spec says (or as --dialect robustmq, a correct-but-different
 * server), so every history must pass: a failure is a false alarm of the suite or a bug of the
 * simulator, printed with its shrunk history and replay command. Prints steps/s per seed. Exit 1 on
 * any failure.
 *
 *   npm run soak:conform-lists -- [--seeds 20] [--first 1] [--depth 2000] [--runs 2] [--dialect spec|robustmq]
 */
import { argNumber, argText } from './bench/script-args.ts';
import { runPropertySuites } from '../suites/properties/index.ts';
import { DEFAULT_HISTORY_RUNS } from '../suites/properties/list-histories/history-property.ts';
import { SimTarget } from '../suites/targets/sim-target.ts';
import { dialectByName } from '../sim/switches/dialects.ts';

const seeds = Math.round(argNumber('seeds', 20, { positive: true }));
const first = Math.round(argNumber('first', 1));
const depth = Math.round(argNumber('depth', 2000, { positive: true }));
const runs = Math.round(argNumber('runs', DEFAULT_HISTORY_RUNS, { positive: true }));
const dialect = dialectByName(argText('dialect', 'spec'));
if (!dialect) {
  process.stderr.write(`soak-conform-lists: --dialect must be spec or robustmq\n`);
  process.exit(2);
}

process.stderr.write(
  `soak-conform-lists: seeds ${first}..${first + seeds - 1}, ${runs} histories of ${depth} steps each, in-process simulator (dialect ${dialect.name})\n`,
);
const started = performance.now();
let failures = 0;
let steps = 0;
for (let seed = first; seed < first + seeds; seed++) {
  // A minute of demo history: other tenants' records around the run's, started quickly.
  const target = await SimTarget.start({ seed, deviations: dialect.switches, envelope: dialect.envelope, warmUpMs: 60_000 });
  const t0 = performance.now();
  try {
    const results = await runPropertySuites(target, {
      seed,
      families: ['history'],
      historyDepth: depth,
      historyRuns: runs,
      onProgress: (line) => process.stderr.write(`    ${line.trim()}\n`),
    });
    const seconds = (performance.now() - t0) / 1000;
    const bad = results.filter((r) => r.status !== 'pass');
    steps += depth * runs;
    const requests = /(\d+) requests/.exec(results[0]?.message ?? '')?.[1] ?? '?';
    console.log(
      `seed ${String(seed).padStart(3)}  ${seconds.toFixed(1).padStart(6)} s  ${Math.round((depth * runs) / seconds)
        .toString()
        .padStart(6)} steps/s  ${requests} requests  ${bad.length === 0 ? 'pass' : `${bad[0].status.toUpperCase()} ${bad[0].endpointId}`}`,
    );
    for (const r of bad.filter((x) => x.status === 'fail' || x.message.includes('harness error'))) {
      failures++;
      console.log(r.message);
    }
  } finally {
    await target.close();
  }
}
const total = (performance.now() - started) / 1000;
console.log(`${seeds} seeds, ${steps} steps in ${total.toFixed(1)} s (${Math.round(steps / total)} steps/s overall); ${failures} failures`);
process.exitCode = failures === 0 ? 0 : 1;
