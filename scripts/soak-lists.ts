/**
 * Lists soak: the differential test of list answers (sim/admin-api/list-differential) for as many steps as
 * asked, in batches of histories, with the response cache and remembered list requests on and off in turn. Every
 * list answer of the app is compared byte for byte with the reference answer; prints steps/s and the
 * steps run without a difference, and on a difference the shrunk history with what replays it, exit 1.
 *
 *   npm run soak:lists -- --steps 100000 [--cache on|off|both] [--focus 3] [--max-steps 1000] [--envelope A|B]
 *                         [--lists cluster.tenant.list,...] [--seed N] [--fault NAME]
 *   npm run soak:lists -- --cache on --seed N --path P --replay-path R [--focus ...]   # one shrunk history again
 *
 * --fault switches a seeded index fault on (sim/model/api/list-faults.ts), to see the soak find it.
 */
import { argNumber, argText } from './bench/script-args.ts';
import { LIST_FAULT_NAMES, switchListFaults } from '../sim/model/api/list-faults.ts';
import {
  checkListHistories,
  describeFailure,
  LIST_ENDPOINT_IDS,
  newHistoryStats,
  replayPathOf,
  type ListHistoryOptions,
} from '../sim/admin-api/list-differential/list-history.ts';

const steps = argNumber('steps', 100_000, { positive: true });
const cache = argText('cache', 'both');
const focus = Math.round(argNumber('focus', 3, { positive: true }));
const maxSteps = Math.round(argNumber('max-steps', 1000, { positive: true }));
const listsArg = argText('lists', '');
const lists = listsArg ? listsArg.split(',') : LIST_ENDPOINT_IDS;
const seed0 = Math.round(argNumber('seed', Date.now() % 1_000_000_000));
const path = argText('path', '');
const replayPath = argText('replay-path', '');
const fault = argText('fault', '');
const envelope = argText('envelope', 'A');
const BATCH = 10;

function fail(message: string): never {
  process.stderr.write(`soak-lists: ${message}\n`);
  process.exit(2);
}
if (!['on', 'off', 'both'].includes(cache)) fail(`--cache is on, off or both, got ${JSON.stringify(cache)}`);
if (envelope !== 'A' && envelope !== 'B') fail(`--envelope is A or B, got ${JSON.stringify(envelope)}`);
for (const id of lists) if (!LIST_ENDPOINT_IDS.includes(id)) fail(`--lists: ${id} is no list endpoint (${LIST_ENDPOINT_IDS.join(', ')})`);
if (fault) {
  if (!(LIST_FAULT_NAMES as string[]).includes(fault)) fail(`--fault: one of ${LIST_FAULT_NAMES.join(', ')}`);
  switchListFaults([fault]);
}
if (path && cache === 'both') fail('--path replays one history: give --cache on or off');

const modes = cache === 'both' ? [true, false] : [cache === 'on'];
const optionsOf = (responseCache: boolean): ListHistoryOptions => ({
  responseCache,
  lists,
  focus,
  maxSteps,
  envelope,
  ...(replayPath ? { replayPath } : {}),
});
const command = (responseCache: boolean, seed: number): string =>
  `npm run soak:lists -- --cache ${responseCache ? 'on' : 'off'} --envelope ${envelope} --focus ${focus} --max-steps ${maxSteps}${listsArg ? ` --lists ${listsArg}` : ''}${fault ? ` --fault ${fault}` : ''} --seed ${seed}`;

process.stderr.write(
  `soak-lists: ${steps} steps, histories of at most ${maxSteps} steps over at most ${focus} of ${lists.length} lists, response cache ${cache}, envelope ${envelope}, seeds from ${seed0}${fault ? `, fault ${fault} on` : ''}\n`,
);
const stats = newHistoryStats();
const started = performance.now();
let batch = 0;
while (stats.steps < steps) {
  const responseCache = modes[batch % modes.length];
  const seed = seed0 + batch;
  const details = await checkListHistories(optionsOf(responseCache), { seed, numRuns: path ? 1 : BATCH, ...(path ? { path } : {}) }, stats);
  const seconds = (performance.now() - started) / 1000;
  if (details.failed) {
    const found = stats.stepsToFirstDifference ?? stats.steps;
    console.log(
      `DIFFERENCE found after ${found} steps, response cache ${responseCache ? 'on' : 'off'} (shrinking ran ${stats.steps - found} more):`,
    );
    console.log(describeFailure(details));
    const rp = replayPathOf(details);
    console.log(
      `replay: ${command(responseCache, details.seed)} --path ${JSON.stringify(details.counterexamplePath)}${rp ? ` --replay-path ${JSON.stringify(rp)}` : ''}`,
    );
    process.exitCode = 1;
    break;
  }
  process.stderr.write(
    `  ${stats.steps} steps, ${stats.requests} requests compared, ${(stats.steps / seconds).toFixed(0)} steps/s (seed ${seed}, response cache ${responseCache ? 'on' : 'off'})\n`,
  );
  batch++;
  if (path) break;
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `steps         ${stats.steps} in ${seconds.toFixed(1)} s: ${(stats.steps / seconds).toFixed(0)} steps/s; ${stats.requests} list requests compared (${(stats.requests / seconds).toFixed(0)}/s)`,
);
if (process.exitCode !== 1) console.log(`differences   none: ${stats.steps} steps without a difference`);
console.log(
  `largest lists ${[...stats.largest.entries()]
    .sort()
    .map(([id, n]) => `${id} ${n}`)
    .join(', ')}`,
);
