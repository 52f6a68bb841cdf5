import { describe, expect, it } from 'vitest';
import { planGroups, propertyLanes } from './endpoint-lanes.ts';

const TAGS = ['auth', 'config', 'tenants', 'topics', 'users', 'acl', 'connectors', 'mqtt', 'auto-subscribe'];
const INDEPENDENT = new Set(['tenants', 'users', 'acl', 'auto-subscribe']);

describe('planGroups', () => {
  it('puts neighbouring independent families in one group and every other family alone, in the given order', () => {
    expect(planGroups(TAGS, 4, INDEPENDENT)).toEqual([
      ['auth'],
      ['config'],
      ['tenants'],
      ['topics'],
      ['users', 'acl'],
      ['connectors'],
      ['mqtt'],
      ['auto-subscribe'],
    ]);
  });

  it('with concurrency 1 is the sequential run: one family per group, in order', () => {
    expect(planGroups(TAGS, 1, INDEPENDENT)).toEqual(TAGS.map((t) => [t]));
  });

  it('keeps the default list of independent families to families that exist apart from connectors', () => {
    const groups = planGroups(['schemas', 'connectors', 'users', 'acl'], 4);
    expect(groups).toEqual([['schemas'], ['connectors'], ['users', 'acl']]);
  });
});

describe('propertyLanes', () => {
  it("runs 4 properties at once in a sequential run, as before, and twice the families' lanes otherwise", () => {
    expect(propertyLanes(1)).toBe(4);
    expect(propertyLanes(4)).toBe(8);
    expect(propertyLanes(2)).toBe(4);
  });
});
