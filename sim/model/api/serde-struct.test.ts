import { describe, expect, it } from 'vitest';
import { readStruct, readStructText, seqOf, STRING, U32, U64, type StructDef } from './serde-struct.ts';

const REQ: StructDef = {
  name: 'Req',
  fields: [
    { name: 'name', type: STRING },
    { name: 'count', type: U32, optional: true },
    { name: 'ids', type: seqOf(U64), optional: true },
    { name: 'mode', type: { kind: 'enum', name: 'Mode', variants: ['earliest', 'from_id'] }, optional: true },
  ],
};

const error = (v: unknown) => {
  try {
    readStruct(REQ, v);
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
};

describe('serde-like struct reading', () => {
  it('reads fields by name or by position, ignores unknown keys, takes null for None', () => {
    expect(readStruct(REQ, { name: 'a', count: null, other: 1, ids: [1, 2] })).toEqual({ name: 'a', ids: [1, 2] });
    expect(readStruct(REQ, ['a', 3, null, 'from_id'])).toEqual({ name: 'a', count: 3, mode: 'from_id' });
  });

  it('words every refusal as serde does', () => {
    expect(error({})).toBe('missing field `name`');
    expect(error({ name: 1 })).toBe('invalid type: integer `1`, expected a string');
    expect(error({ name: 'a', count: -1 })).toBe('invalid value: integer `-1`, expected u32');
    expect(error({ name: 'a', count: 4_294_967_296 })).toBe('invalid value: integer `4294967296`, expected u32');
    expect(error({ name: 'a', count: 1.5 })).toBe('invalid type: floating point `1.5`, expected u32');
    expect(error({ name: 'a', ids: [1, 'x'] })).toBe('invalid type: string "x", expected u64');
    expect(error({ name: 'a', ids: {} })).toBe('invalid type: map, expected a sequence');
    expect(error({ name: 'a', mode: 'latest' })).toBe('unknown variant `latest`, expected one of `earliest`, `from_id`');
    expect(error('a')).toBe('invalid type: string "a", expected struct Req');
    expect(error(['a'])).toBe('invalid length 1, expected struct Req with 4 elements');
    expect(error(['a', null, null, null, 5])).toBe('invalid length 5, expected fewer elements in array');
  });

  it('reads JSON text with serde_json syntax errors and its recursion limit', () => {
    expect(readStructText(REQ, '{"name":"x"}')).toEqual({ name: 'x' });
    expect(() => readStructText(REQ, '')).toThrow('EOF while parsing a value at line 1 column 0');
    expect(() => readStructText(REQ, '{"name":"x"')).toThrow('EOF while parsing a value at line 1 column 11');
    expect(() => readStructText(REQ, '['.repeat(200) + ']'.repeat(200))).toThrow(/^recursion limit exceeded/);
  });
});
