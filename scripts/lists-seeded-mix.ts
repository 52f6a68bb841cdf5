/**
 * The user report's measurement of wrong list answers: a seeded random mix of tenant, user and ACL
 * creates, updates and deletes and about 630 list reads through the app (response cache on, then off),
 * counting the reads whose answer differs from the reference answer (sim/admin-api/list-differential/seeded-mix.ts).
 * Exit 1 when any differs.
 *
 *   npx tsx scripts/lists-seeded-mix.ts [--seed 7] [--ops 1000]
 */
import { argNumber } from './bench/script-args.ts';
import { runSeededMix } from '../sim/admin-api/list-differential/seeded-mix.ts';

const seed = Math.round(argNumber('seed', 7));
const ops = Math.round(argNumber('ops', 1000, { positive: true }));
let differing = 0;
for (const responseCache of [true, false]) {
  const r = await runSeededMix({ seed, ops, responseCache });
  differing += r.differing;
  console.log(
    `response cache ${responseCache ? 'on ' : 'off'}: ${r.writes} writes, ${r.reads} list reads, ${r.differing} answers differing from the reference (seed ${seed})`,
  );
  for (const e of r.examples) console.log(`  ${e.split('\n').join('\n  ')}`);
}
process.exitCode = differing === 0 ? 0 : 1;
