import { describe, expect, it } from 'vitest';
import { rangeCases } from './range-checks.ts';

describe('rangeCases', () => {
  it('numeric enums: one below and one above, and every allowed value', () => {
    const cases = rangeCases({ name: 'qos', type: 'u32', enum: [0, 1, 2], description: '' });
    expect(cases.map((c) => [c.id, c.value, c.valid])).toEqual([
      ['range.qos.3', 3, false],
      ['range.qos.0', 0, true],
      ['range.qos.1', 1, true],
      ['range.qos.2', 2, true],
    ]);
  });

  it('text enums: an unknown value (id enum.<name>) and every allowed value', () => {
    const cases = rangeCases({ name: 'action', type: 'string', enum: ['All', 'Publish'], description: '' });
    expect(cases.map((c) => [c.id, c.valid])).toEqual([
      ['enum.action', false],
      ['enum.action.All', true],
      ['enum.action.Publish', true],
    ]);
  });

  it('numeric ranges: just outside and at each end; a large maximum is not created', () => {
    expect(rangeCases({ name: 'end_time', type: 'u64', minimum: 1, description: '' }).map((c) => [c.id, c.valid])).toEqual([
      ['range.end_time.0', false],
      ['range.end_time.1', true],
    ]);
    expect(rangeCases({ name: 'partition', type: 'u32', minimum: 1, maximum: 1000, description: '' }).map((c) => c.id)).toEqual([
      'range.partition.0',
      'range.partition.1',
      'range.partition.1001',
    ]);
    expect(rangeCases({ name: 'name', type: 'string', description: '' })).toEqual([]);
  });
});
