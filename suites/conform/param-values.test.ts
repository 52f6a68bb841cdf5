import { describe, expect, it } from 'vitest';
import type { EndpointContract } from '../../contract/core/types.ts';
import { lengthCases } from './checks/limit-checks.ts';
import { fingerprint } from './checks/list-pages.ts';
import { reversedAfterIntersect } from './checks/list-sorting.ts';
import { buildParams, declaredParams, minimalValue } from '../../contract/minimal-params.ts';
import { requestParts, textOfLength, toQuery } from './param-values.ts';

const endpoint: EndpointContract = {
  id: 't.create',
  method: 'POST',
  path: '/api/t/create',
  summary: 't',
  tag: 't',
  auth: 'token',
  specTable: 'index',
  params: [
    { name: 'name', type: 'string', required: true, minLength: 3, maxLength: 8, description: 'n' },
    { name: 'qos', type: 'u8', required: true, enum: [2, 1], description: 'q' },
    { name: 'limit', type: 'u64', required: true, minimum: 1, description: 'l' },
    { name: 'flag', type: 'bool', required: true, description: 'f' },
    {
      name: 'strategy',
      type: 'object',
      required: true,
      description: 's',
      properties: [
        { name: 'kind', type: 'string', required: true, enum: ['a'], description: 'k' },
        { name: 'opt', type: 'u8', description: 'o' },
      ],
    },
    { name: 'desc', type: 'string', description: 'optional' },
    { name: 'mode', type: 'string', default: 'fast', description: 'defaulted' },
  ],
  response: { kind: 'envelope', source: 'spec' },
  errors: [],
};

describe('request values from the contract', () => {
  it('gives the smallest valid value of each type', () => {
    const [name, qos, limit, flag, strategy, , mode] = endpoint.params;
    expect(minimalValue(name)).toBe('xxx');
    expect(minimalValue(qos)).toBe(2);
    expect(minimalValue(limit)).toBe(1);
    expect(minimalValue(flag)).toBe(false);
    expect(minimalValue(strategy)).toEqual({ kind: 'a' });
    expect(minimalValue(mode)).toBe('fast');
    expect(minimalValue({ name: 'v', type: 'string-array', description: '' })).toEqual([]);
  });

  it('merges known fields by name, fills required ones and drops undeclared ones', () => {
    const params = buildParams(endpoint, { name: 'abcd', desc: 'hello', not_declared: 1, flag: undefined });
    expect(params).toEqual({ name: 'abcd', qos: 2, limit: 1, strategy: { kind: 'a' }, desc: 'hello' });
  });

  it('adds the common list parameters to list endpoints', () => {
    const list = { ...endpoint, list: { defaultLimit: 10, sortFields: [] } };
    expect(declaredParams(list).map((p) => p.name)).toContain('filter_values');
    expect(declaredParams(endpoint).map((p) => p.name)).not.toContain('limit_values');
  });

  it('turns parameters into a query for GET and a body for POST', () => {
    expect(toQuery({ a: 'x', b: 2, c: ['p', 'q'], d: { k: 1 }, e: undefined })).toEqual({ a: 'x', b: 2, c: ['p', 'q'], d: '{"k":1}' });
    expect(requestParts({ ...endpoint, method: 'GET' }, { a: 1 })).toEqual({ query: { a: 1 } });
    expect(requestParts(endpoint, { a: 1 })).toEqual({ body: { a: 1 } });
  });

  it('writes texts of an exact length', () => {
    for (const n of [0, 1, 5, 300]) expect([...textOfLength('stem-', n)].length).toBe(n);
    expect(textOfLength('abc', 2)).toBe('bc');
  });
});

describe('length cases', () => {
  it('covers empty, 1, max and max+1 around the limits', () => {
    expect(lengthCases({ name: 'n', type: 'string', minLength: 1, maxLength: 128, description: '' })).toEqual([
      { length: 0, inRange: false },
      { length: 1, inRange: true },
      { length: 128, inRange: true },
      { length: 129, inRange: false },
    ]);
    expect(lengthCases({ name: 'd', type: 'string', maxLength: 500, description: '' })).toEqual([
      { length: 0, inRange: true },
      { length: 1, inRange: true },
      { length: 500, inRange: true },
      { length: 501, inRange: false },
    ]);
    expect(lengthCases({ name: 'n', type: 'string', minLength: 3, maxLength: 8, description: '' })).toEqual([
      { length: 2, inRange: false },
      { length: 3, inRange: true },
      { length: 8, inRange: true },
      { length: 9, inRange: false },
    ]);
  });
});

describe('list law helpers', () => {
  it('compares sort orders on the keys both answers hold, ties collapsed', () => {
    expect(reversedAfterIntersect(['a', 'b', 'c'], ['c', 'b', 'a'])).toBe(true);
    expect(reversedAfterIntersect(['a', 'a', 'b'], ['b', 'a', 'a'])).toBe(true);
    expect(reversedAfterIntersect(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(false);
    // A record that came or went between the two requests is left out.
    expect(reversedAfterIntersect(['a', 'b', 'c'], ['d', 'c', 'a'])).toBe(true);
  });

  it('fingerprints records by identity fields, ignoring changing counters', () => {
    expect(fingerprint({ tenant: 't', name: 'n', hits: 1 })).toBe(fingerprint({ tenant: 't', name: 'n', hits: 2 }));
    expect(fingerprint({ value: 1 })).not.toBe(fingerprint({ value: 2 }));
  });
});

describe('time forms', async () => {
  const { plausibleTime, DataValidator } = await import('./data-validator.ts');
  it('tells seconds from milliseconds', () => {
    expect(plausibleTime('unix-seconds', 1_767_225_600)).toBe(true);
    expect(plausibleTime('unix-seconds', 1_767_225_600_000)).toBe(false);
    expect(plausibleTime('unix-millis', 1_767_225_600_000)).toBe(true);
    expect(plausibleTime('unix-millis', 1_767_225_600)).toBe(false);
    expect(plausibleTime('unix-seconds', 0)).toBe(true);
  });
  it('leaves the unit to the time-forms check: the schema check accepts it, timeProblem names it', async () => {
    const { collectTimeValues, timeProblem } = await import('./data-validator.ts');
    const v = new DataValidator();
    const schema = { type: 'object', properties: { t: { type: 'integer', 'x-time-form': 'unix-seconds' } } };
    expect(v.checkSchema('t', schema, { t: 1_767_225_600 })).toEqual({ ok: true });
    // One rule, one finding: a wrong unit is not also a schema error.
    expect(v.checkSchema('t', schema, { t: 1_767_225_600_000 })).toEqual({ ok: true });
    const [good] = collectTimeValues(schema, { t: 1_767_225_600 });
    expect(timeProblem(good)).toBeUndefined();
    const [bad] = collectTimeValues(schema, { t: 1_767_225_600_000 });
    expect(timeProblem(bad)).toMatch(/^\.t 1767225600000 is not plausible as unix-seconds \(milliseconds where seconds are due\?\)/);
  });
});
