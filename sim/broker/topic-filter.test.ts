import { describe, expect, it } from 'vitest';
import { topicMatchesFilter } from './topic-filter.ts';

describe('topicMatchesFilter', () => {
  it.each([
    ['a/b/c', 'a/b/c', true],
    ['a/b/c', 'a/+/c', true],
    ['a/b/c', 'a/#', true],
    ['a', 'a/#', true],
    ['a/b', 'a/+', true],
    ['a/b/c', 'a/+', false],
    ['a/b', 'a/b/c', false],
    ['$SYS/x', '#', false],
    ['$SYS/x', '$SYS/#', true],
    ['jobs/1', '$share/workers/jobs/#', true],
  ])('%s against %s → %s', (topic, filter, expected) => {
    expect(topicMatchesFilter(topic, filter)).toBe(expected);
  });
});
