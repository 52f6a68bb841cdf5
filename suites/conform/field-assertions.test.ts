import { describe, expect, it } from 'vitest';
import type { EndpointContract } from '../../contract/core/types.ts';
import { DataValidator } from './data-validator.ts';
import { fieldEvidence, schemaAt, valuesAt } from './field-assertions.ts';

// A cut-down overview contract: node_list of node records whose extend is a byte array.
const node = {
  type: 'object',
  required: ['node_id', 'extend'],
  properties: { node_id: { type: 'integer' }, extend: { type: 'array', items: { type: 'integer' } } },
};
const overview = {
  id: 'mqtt.overview',
  response: {
    kind: 'envelope',
    source: 'spec',
    data: { type: 'object', properties: { node_list: { type: 'array', items: node }, connection_num: { type: 'integer' } } },
  },
} as unknown as EndpointContract;

const evidence = (data: unknown) => fieldEvidence(overview, [data], new DataValidator(), 'MUST');

describe('field rows', () => {
  it('finds values and schemas along a path, * for every element', () => {
    const data = { node_list: [{ node_id: 1 }, { node_id: 2 }], m: { a: { x: 1 }, b: { x: 2 } } };
    expect(valuesAt(data, 'node_list.*.node_id')).toEqual([1, 2]);
    expect(valuesAt(data, 'm.*.x')).toEqual([1, 2]);
    expect(valuesAt(data, 'missing.x')).toEqual([]);
    expect(schemaAt(overview.response.data, 'node_list.*')).toBe(node);
    expect(schemaAt(overview.response.data, 'node_list.*.nope')).toBeUndefined();
  });

  it('names the rows an answer shows when it matches', () => {
    const ev = evidence({ node_list: [{ node_id: 1, extend: [1, 2] }], connection_num: 3 });
    expect(ev.broken).toEqual([]);
    expect(ev.shown).toEqual(
      expect.arrayContaining(['resources.overview.node_list', 'resources.node.record', 'resources.overview.connection_num']),
    );
  });

  it('cites the deepest broken row: a wrong field of a node record is not also a broken node_list', () => {
    const ev = evidence({ node_list: [{ node_id: 1, extend: { mqtt: {} } }], connection_num: 3 });
    expect(ev.broken.map((b) => b.assertion)).toEqual(['resources.node.record']);
    expect(ev.broken[0].problem).toMatch(/^node_list\.\* .*extend must be array/);
    expect(ev.shown).toContain('resources.overview.connection_num');
  });

  it('cites the outer row when it is broken itself, and each independent row once', () => {
    const ev = evidence({ node_list: 'n1,n2', connection_num: '3' });
    expect(ev.broken.map((b) => b.assertion)).toEqual(['resources.overview.node_list', 'resources.overview.connection_num']);
  });

  it('a field the schema requires and the record lacks breaks its row', () => {
    const ev = evidence({ node_list: [{ node_id: 1 }] });
    expect(ev.broken.map((b) => b.assertion)).toEqual(['resources.node.record']);
  });
});
