import fc from 'fast-check';
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

  it('refuses a set naming an invariant already registered, or one name twice', () => {
    const reg = new InvariantRegistry();
    reg.register('a', () => undefined);
    expect(() => reg.registerSet(['b', 'a'], () => undefined)).toThrow(/a is registered twice/);
    expect(() => reg.registerSet(['c', 'c'], () => undefined)).toThrow(/given twice/);
    reg.registerSet(['b', 'c'], () => undefined);
    expect(reg.names()).toEqual(['a', 'b', 'c']);
  });

  it('checks a set as it checks each of its names registered alone with () => check().get(name)', () => {
    // Registrations of singles and sets interleaved; each set keeps its violations in a map that the
    // steps fill (a part keeps its first violations so); both registries see the same maps.
    const names = ['s1.a', 's1.b', 'single.x', 's2.a', 's2.b', 's2.c'];
    const sets = { s1: ['s1.a', 's1.b'], s2: ['s2.a', 's2.b', 's2.c'] };
    const step = fc.oneof(
      fc.record({ kind: fc.constant('report' as const), name: fc.constantFrom(...names), text: fc.string({ minLength: 0, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('check' as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const found = { s1: new Map<string, string>(), s2: new Map<string, string>() };
        let single: string | undefined;
        const bySets = new InvariantRegistry();
        const alone = new InvariantRegistry();
        bySets.registerSet(sets.s1, () => (found.s1.size > 0 ? found.s1 : undefined));
        bySets.register('single.x', () => single);
        bySets.registerSet(sets.s2, () => found.s2);
        for (const name of sets.s1) alone.register(name, () => found.s1.get(name));
        alone.register('single.x', () => single);
        for (const name of sets.s2) alone.register(name, () => found.s2.get(name));
        let event = 0;
        for (const s of steps) {
          if (s.kind === 'check') {
            event++;
            expect(bySets.checkAll(event * 10, event)).toEqual(alone.checkAll(event * 10, event));
          } else if (s.name === 'single.x') single = s.text;
          else found[s.name.startsWith('s1') ? 's1' : 's2'].set(s.name, s.text);
        }
        expect(bySets.checkCounts()).toEqual(alone.checkCounts());
        expect(Object.keys(bySets.checkCounts())).toEqual(names);
      }),
      { numRuns: 2_000 },
    );
  });
});
