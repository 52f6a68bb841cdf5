import { expect } from 'vitest';
import type { PropertyResult } from '../../index.ts';

/** Every result of the list histories passed, and they reached the lists (hundreds of requests answered). */
export function expectPassed(results: readonly PropertyResult[]): void {
  expect(results.length).toBeGreaterThan(20);
  expect(results.filter((r) => r.status !== 'pass').map((r) => `${r.endpointId} ${r.status}: ${r.message.slice(0, 3000)}`)).toEqual([]);
  const requests = Number(/(\d+) requests/.exec(results[0].message)?.[1]);
  expect(requests).toBeGreaterThan(500);
}
