import { describe, expect, it } from 'vitest';
import { InvariantRegistry } from './invariant-registry.ts';

describe('invariant registry', () => {
  it('runs checkers by name, counts runs and reports violations', () => {
    const reg = new InvariantRegistry();
    let x = 0;
    reg.register('x.non-negative', () => (x < 0 ? `x is ${x}` : undefined));
    reg.register('always', () => undefined);
    expect(() => reg.register('always', () => undefined)).toThrow(/twice/);
    expect(reg.checkAll(0, 0)).toEqual([]);
    x = -1;
    expect(reg.checkAll(5, 1)).toEqual([{ name: 'x.non-negative', message: 'x is -1', at: 5, event: 1 }]);
    expect(reg.checkCounts()).toEqual({ 'x.non-negative': 2, always: 2 });
  });
});
