import { describe, expect, it } from 'vitest';
import type { ListSpec, ParamSpec } from '../../../contract/core/types.ts';
import { referenceListPage } from './list-reference.ts';
import { OperationError } from '../errors/operation-error.ts';

interface Row {
  tenant: string;
  name: string;
  n?: number;
}

const rows: Row[] = [
  { tenant: 'b', name: 'ab', n: 2 },
  { tenant: 'a', name: 'abc', n: 1 },
  { tenant: 'b', name: 'x', n: 2 },
  { tenant: 'a', name: 'Ab' },
  { tenant: 'ab', name: 'b', n: 1 },
];
const named: ParamSpec[] = [
  { name: 'tenant', type: 'string', match: 'exact', description: 'tenant' },
  { name: 'q', type: 'string', match: 'fuzzy', field: 'name', description: 'name contains' },
];
const spec: ListSpec = { defaultLimit: 3, sortFields: ['name', 'n', 'tenant'] };
const fields = ['tenant', 'name', 'n'];
const names = (params: Record<string, unknown>, s: ListSpec = spec, records: Row[] = rows): string[] =>
  referenceListPage(records, params, named, s, fields).data.map((r) => r.name);
const total = (params: Record<string, unknown>, s: ListSpec = spec): number =>
  referenceListPage(rows, params, named, s, fields).total_count;

describe('the reference list answer', () => {
  it('filters exact named parameters by equality and fuzzy ones by a case-sensitive contains, on the field they name', () => {
    expect(names({ tenant: 'a', limit: 10 })).toEqual(['abc', 'Ab']);
    expect(names({ q: 'b', limit: 10 })).toEqual(['ab', 'abc', 'Ab', 'b']);
    expect(names({ q: 'A', limit: 10 })).toEqual(['Ab']);
    expect(names({ tenant: 'b', q: 'a', limit: 10 })).toEqual(['ab']);
    // An empty contains filter matches every record.
    expect(total({ q: '' })).toBe(5);
  });

  it('filters by filter_field: any value, equal with exact_match=true, contained otherwise; a record without the field never matches', () => {
    expect(names({ filter_field: 'name', filter_values: ['ab', 'x'], exact_match: 'true', limit: 10 })).toEqual(['ab', 'x']);
    expect(names({ filter_field: 'name', filter_values: ['ab'], exact_match: 'false', limit: 10 })).toEqual(['ab', 'abc']);
    expect(names({ filter_field: 'n', filter_values: ['2'], exact_match: 'true', limit: 10 })).toEqual(['ab', 'x']);
    expect(names({ filter_field: 'n', filter_values: [''], limit: 10 })).toEqual(['ab', 'abc', 'x', 'b']);
    // No values: no filter.
    expect(total({ filter_field: 'n', filter_values: [] })).toBe(5);
  });

  it('refuses a filter_field the records do not have (400 naming the parameter)', () => {
    const refusal = (): unknown => referenceListPage(rows, { filter_field: 'nope', filter_values: ['a'] }, named, spec, fields);
    expect(refusal).toThrow(OperationError);
    expect(refusal).toThrow(/invalid parameter 'filter_field'.*"nope"/);
  });

  it('counts every matching record, not the page; a scope list counts before the fuzzy filters', () => {
    expect(total({ q: 'b', limit: 1 })).toBe(4);
    expect(total({ tenant: 'a', q: 'zzz' }, { ...spec, totalCount: 'scope' })).toBe(2);
    expect(names({ tenant: 'a', q: 'zzz' }, { ...spec, totalCount: 'scope' })).toEqual([]);
  });

  it('sorts stably: ties keep the base order in both directions; desc for any sort_by but asc; asc when absent', () => {
    expect(names({ sort_field: 'n', limit: 10 })).toEqual(['Ab', 'abc', 'b', 'ab', 'x']);
    expect(names({ sort_field: 'n', sort_by: 'asc', limit: 10 })).toEqual(['Ab', 'abc', 'b', 'ab', 'x']);
    expect(names({ sort_field: 'n', sort_by: 'desc', limit: 10 })).toEqual(['ab', 'x', 'abc', 'b', 'Ab']);
    expect(names({ sort_field: 'n', sort_by: 'ASC', limit: 10 })).toEqual(['ab', 'x', 'abc', 'b', 'Ab']);
    // Text order is by UTF-16 code units: upper case before lower case.
    expect(names({ sort_field: 'name', limit: 10 })).toEqual(['Ab', 'ab', 'abc', 'b', 'x']);
  });

  it('ignores a sort field the list does not have (the base order)', () => {
    expect(names({ sort_field: 'nope', sort_by: 'desc', limit: 10 })).toEqual(rows.map((r) => r.name));
  });

  it('pages: limit 0 or absent is the default, page 0 is page 1, a page past the end is empty', () => {
    expect(names({})).toEqual(['ab', 'abc', 'x']);
    expect(names({ limit: 0, page: 0 })).toEqual(['ab', 'abc', 'x']);
    expect(names({ limit: 2, page: 3 })).toEqual(['b']);
    expect(names({ limit: 2, page: 4 })).toEqual([]);
    expect(total({ limit: 2, page: 4 })).toBe(5);
  });

  it('samples the first records in base order before sorting and paging, and counts past the sample', () => {
    const sampled: ListSpec = { ...spec, sampleLimit: 3 };
    expect(names({ sort_field: 'name', limit: 10 }, sampled)).toEqual(['ab', 'abc', 'x']);
    expect(names({ sort_field: 'name', sort_by: 'desc', limit: 10 }, sampled)).toEqual(['x', 'abc', 'ab']);
    expect(total({}, sampled)).toBe(5);
    expect(names({ q: 'b', limit: 10 }, sampled)).toEqual(['ab', 'abc', 'Ab']);
  });
});
