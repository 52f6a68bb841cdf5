import { describe, expect, it } from 'vitest';
import { parseSubscriptionPath, topicFilterProblem, topicMatches, topicNameProblem } from './topic-filter.ts';

describe('topic filters', () => {
  it('matches single- and multi-level wildcards', () => {
    expect(topicMatches('sensors/+/temperature', 'sensors/s1/temperature')).toBe(true);
    expect(topicMatches('sensors/+/temperature', 'sensors/s1/humidity')).toBe(false);
    expect(topicMatches('sensors/#', 'sensors')).toBe(true);
    expect(topicMatches('sensors/#', 'sensors/a/b/c')).toBe(true);
    expect(topicMatches('sensors/+', 'sensors/a/b')).toBe(false);
    expect(topicMatches('a/b', 'a/b')).toBe(true);
    expect(topicMatches('a/b', 'a/b/c')).toBe(false);
    expect(topicMatches('#', 'anything/at/all')).toBe(true);
  });

  it('keeps $ topics away from leading wildcards', () => {
    expect(topicMatches('#', '$SYS/brokers/1/uptime')).toBe(false);
    expect(topicMatches('+/brokers/#', '$SYS/brokers/1/uptime')).toBe(false);
    expect(topicMatches('$SYS/#', '$SYS/brokers/1/uptime')).toBe(true);
  });

  it('validates filters, names and shared paths', () => {
    expect(topicFilterProblem('a/#/b')).toContain('#');
    expect(topicFilterProblem('a/b+')).toContain('+');
    expect(topicFilterProblem('')).toContain('empty');
    expect(topicNameProblem('a/+')).toContain('wildcards');
    expect(parseSubscriptionPath('$share/workers/jobs/#')).toEqual({ shared: true, group: 'workers', filter: 'jobs/#' });
    expect(parseSubscriptionPath('jobs/1')).toEqual({ shared: false, filter: 'jobs/1' });
    expect(() => parseSubscriptionPath('$share/workers')).toThrow(/shared subscription/);
    expect(() => parseSubscriptionPath('$share//x')).toThrow(/share name/);
  });
});
