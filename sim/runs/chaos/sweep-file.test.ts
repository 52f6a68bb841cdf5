import { describe, expect, it } from 'vitest';
import { formatSeedList, parseSeedList, summarize, type SeedOutcome } from './seed-sweep.ts';
import { mergeSweepFiles, parseSweepFile, sweepFileName, sweepFileOf, type SweepMergeInput } from './sweep-file.ts';

const coverage = (n: number) => ({
  leader_changes: n,
  node_crashes: n,
  partitions: 0,
  connector_failures: 0,
  bans: 0,
  bans_lifted: 0,
  api_ok: n,
  api_refused: 0,
  faults: { crash: n },
});
const outcome = (seed: string, passed = true): SeedOutcome => ({
  seed,
  passed,
  events: 10,
  trace_hash: 'h',
  first_violation: passed ? null : `raft.x: seed ${seed}`,
  coverage: coverage(1),
  replay: null,
});
const options = { steps: 10, nodes: 3, faults: ['crash' as const], bug: null };

/** The sweep file shard `index` of `count` of `seeds` writes when `failing` fail. */
function shardFile(seeds: string[], index: number, count: number, failing: string[] = []): SweepMergeInput {
  const mine = seeds.filter((_, i) => i % count === index - 1);
  const summary = summarize(mine.map((s) => outcome(s, !failing.includes(s))));
  return { file: `s${index}.json`, sweep: sweepFileOf({ options, seeds, shard: { index, count }, summary, seconds: 1, workers: 1 }) };
}

describe('seed lists written back', () => {
  it('collapse consecutive integers into ranges and read back as the same list', () => {
    for (const spec of ['1..1000', '3,1..2,abc', '0..2,5..7,9', '10,9,8', '007,7..8']) {
      const seeds = parseSeedList(spec);
      expect(parseSeedList(formatSeedList(seeds))).toEqual(seeds);
    }
    expect(formatSeedList(parseSeedList('1..1000000'))).toBe('1..1000000');
    expect(formatSeedList(['3', '1', '2', 'abc', '4'])).toBe('3,1..2,abc,4');
  });
});

describe('sweep files', () => {
  it('are named per shard and read back', () => {
    expect(sweepFileName(undefined)).toBe('sweep.json');
    expect(sweepFileName({ index: 2, count: 4 })).toBe('sweep-2-of-4.json');
    const f = shardFile(parseSeedList('1..5'), 1, 2).sweep;
    expect(parseSweepFile(JSON.stringify(f), 'x')).toEqual(f);
    expect(() => parseSweepFile('{"format":"mqsim-chaos-replay/1"}', 'r.json')).toThrow(/r\.json is not a sweep summary/);
    expect(() => parseSweepFile(JSON.stringify({ ...f, shard: { index: 3, count: 2 } }), 'x')).toThrow(/shard must be null or/);
  });

  it('of every shard merge into the summary of the whole sweep, failing seeds in seed order', () => {
    const seeds = parseSeedList('1..7');
    const whole = summarize(seeds.map((s) => outcome(s, !['2', '6', '3'].includes(s))));
    const merged = mergeSweepFiles([shardFile(seeds, 3, 3, ['3', '6']), shardFile(seeds, 1, 3), shardFile(seeds, 2, 3, ['2'])]);
    expect(merged.summary).toEqual(whole);
    expect(merged.summary.failed.map((f) => f.seed)).toEqual(['2', '3', '6']);
    expect(merged.shards.map((s) => s.file)).toEqual(['s1.json', 's2.json', 's3.json']);
  });

  it('refuse shards of different sweeps, duplicates, gaps, and a shard of the wrong size', () => {
    const seeds = parseSeedList('1..7');
    const [a, b, c] = [1, 2, 3].map((i) => shardFile(seeds, i, 3));
    expect(() => mergeSweepFiles([a, b])).toThrow(/missing shard 3\/3/);
    expect(() => mergeSweepFiles([a, b, c, { ...b, file: 'again.json' }])).toThrow(
      /shard 2\/3 is given twice \(s2\.json and again\.json\)/,
    );
    expect(() => mergeSweepFiles([a, b, shardFile(parseSeedList('1..8'), 3, 3)])).toThrow(/not shards of one sweep/);
    expect(() => mergeSweepFiles([a, b, { ...c, sweep: { ...c.sweep, options: { ...options, steps: 11 } } }])).toThrow(
      /not shards of one sweep/,
    );
    expect(() => mergeSweepFiles([a, shardFile(seeds, 2, 4)])).toThrow(/one count/);
    const short = { ...c, sweep: { ...c.sweep, summary: summarize([outcome('3')]) } };
    expect(() => mergeSweepFiles([a, b, short])).toThrow(/s3\.json ran 1 seeds, but shard 3\/3 of 1\.\.7 has 2/);
    expect(() => mergeSweepFiles([])).toThrow(/nothing to merge/);
  });
});
