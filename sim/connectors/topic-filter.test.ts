import { describe, expect, it } from 'vitest';
import { topicFilterProblem, topicMatchesFilter } from './topic-filter.ts';

describe('topic filters', () => {
  it.each([
    ['sensors/#', 'sensors', true],
    ['sensors/#', 'sensors/a/b', true],
    ['sensors/#', 'sensorsx/a', false],
    ['#', 'a/b/c', true],
    ['#', '$SYS/x', false],
    ['+/temperature', '$SYS/temperature', false],
    ['$SYS/#', '$SYS/broker', true],
    ['factory/+/temperature', 'factory/f1/temperature', true],
    ['factory/+/temperature', 'factory/f1/humidity', false],
    ['factory/+/temperature', 'factory/temperature', false],
    ['factory/+/temperature', 'factory/a/b/temperature', false],
    ['+', 'a', true],
    ['+', 'a/b', false],
    ['+/+', '/a', true],
    ['a/b', 'a/b', true],
    ['a/b', 'a/b/c', false],
    ['/test/t1', '/test/t1', true],
  ])('%s matches %s: %s', (filter, topic, expected) => {
    expect(topicMatchesFilter(filter, topic)).toBe(expected);
  });

  it('accepts valid filters and explains invalid ones', () => {
    for (const ok of ['a', 'a/b', '#', '+', 'a/+/b', 'a/#', '/', '+/#']) expect(topicFilterProblem(ok)).toBeNull();
    expect(topicFilterProblem('')).toContain('empty');
    expect(topicFilterProblem('a/#/b')).toContain("'#'");
    expect(topicFilterProblem('a/b#')).toContain("'#'");
    expect(topicFilterProblem('a/b+/c')).toContain("'+'");
  });
});
