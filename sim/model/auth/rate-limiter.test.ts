import { describe, expect, it } from 'vitest';
import { PathRateLimiter } from './rate-limiter.ts';

describe('PathRateLimiter', () => {
  it('take: admits a burst of `rate` per path, then says how long until the next token', () => {
    const limiter = new PathRateLimiter(() => 2);
    expect([limiter.take('/a', 0), limiter.take('/a', 0), limiter.take('/a', 0)]).toEqual([0, 0, 500]);
    expect(limiter.take('/b', 0)).toBe(0);
    expect(limiter.take('/a', 500)).toBe(0);
  });

  it('reserve: queues excess requests behind each other instead of refusing them', () => {
    const limiter = new PathRateLimiter(() => 2);
    const waits = [0, 0, 0, 0, 0].map(() => limiter.reserve('/a', 1000));
    expect(waits).toEqual([0, 0, 500, 1000, 1500]);
    // Time passes: the queue drains at the rate, and a request arriving after it is admitted at once.
    expect(limiter.reserve('/a', 3000)).toBe(0);
    expect(limiter.reserve('/other', 1000)).toBe(0);
  });

  it('a rate of 0 means no limit', () => {
    const limiter = new PathRateLimiter(() => 0);
    for (let i = 0; i < 5; i++) expect(limiter.reserve('/a', 0) + limiter.take('/a', 0)).toBe(0);
  });
});
