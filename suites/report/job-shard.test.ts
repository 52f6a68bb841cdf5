import { describe, expect, it } from 'vitest';
import { parseShardCount, resolveShard } from './job-shard.ts';
import { SelectionError } from './selection.ts';

describe('the shard of a scheduled process', () => {
  it('is --shard as given, or JOB_COMPLETION_INDEX (0-based) + 1 of --shard-count', () => {
    expect(resolveShard({}, {})).toBeUndefined();
    expect(resolveShard({ shard: { index: 2, count: 4 } }, { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 2, count: 4 });
    expect(resolveShard({ shardCount: 4 }, { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 1, count: 4 });
    expect(resolveShard({ shardCount: 4 }, { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 4, count: 4 });
    expect(resolveShard({ shardCount: 1 }, { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 1, count: 1 });
  });

  it('refuses what the flags and the environment cannot mean, naming the fix', () => {
    const cases: [Parameters<typeof resolveShard>[0], NodeJS.ProcessEnv, RegExp][] = [
      [
        { shardCount: 4 },
        {},
        /--shard-count 4 takes this process's shard from JOB_COMPLETION_INDEX \(0 … 3; .*not set: set it, or give --shard i\/n/,
      ],
      [{ shardCount: 4 }, { JOB_COMPLETION_INDEX: ' ' }, /not set/],
      [
        { shardCount: 4 },
        { JOB_COMPLETION_INDEX: '4' },
        /JOB_COMPLETION_INDEX=4 is out of range for --shard-count 4 \(0 … 3\): the Job's completions must equal the shard count/,
      ],
      [{ shardCount: 4 }, { JOB_COMPLETION_INDEX: '-1' }, /must be a whole number from 0 to 3, got "-1"/],
      [{ shardCount: 4 }, { JOB_COMPLETION_INDEX: 'pod-2' }, /must be a whole number from 0 to 3/],
      [{ shardCount: 4, shard: { index: 1, count: 4 } }, { JOB_COMPLETION_INDEX: '0' }, /either --shard i\/n or --shard-count n/],
    ];
    for (const [flags, env, message] of cases) {
      expect(() => resolveShard(flags, env)).toThrow(SelectionError);
      expect(() => resolveShard(flags, env)).toThrow(message);
    }
    expect(() => parseShardCount('0')).toThrow(/--shard-count must be a whole number from 1 to 1000, got "0"/);
    expect(() => parseShardCount('1001')).toThrow(/from 1 to 1000/);
    expect(() => parseShardCount('2/4')).toThrow(/whole number/);
    expect(parseShardCount('16')).toBe(16);
  });
});
