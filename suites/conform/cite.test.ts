import { describe, expect, it } from 'vitest';
import { A, listedSortFields, sortAssertion } from './cite.ts';

describe('sortAssertion', () => {
  it("cites the list's statement only for the fields it gives sort_field, not for its filters", () => {
    // "Query: `tenant` (exact), `user_name` (fuzzy), plus the common list parameters (`sort_field` `username`)."
    expect(sortAssertion({ id: 'cluster.user.list' }, 'username')).toBe('endpoints.user.list.query');
    expect(sortAssertion({ id: 'cluster.user.list' }, 'tenant')).toBe(A.decisionExtraSortFields);
    // "Query: `tenant`, `name`, `resource_name` (all fuzzy…), `limit`, `page`, `sort_field` (`name`), `sort_by`."
    expect(sortAssertion({ id: 'cluster.acl.list' }, 'name')).toBe('endpoints.acl.list.query');
    expect(sortAssertion({ id: 'cluster.acl.list' }, 'resource_name')).toBe(A.decisionExtraSortFields);
    expect(sortAssertion({ id: 'cluster.topic.list' }, 'tenant')).toBe('endpoints.topic.list.query');
  });

  it('reads both forms of the sort field list, and none where the statement lists no field', () => {
    expect(listedSortFields('`limit`, `page`, `sort_field` (`topic_name`, `tenant`), `sort_by`.')).toEqual(['topic_name', 'tenant']);
    expect(listedSortFields('plus the common list parameters (`sort_field` `username`).')).toEqual(['username']);
    expect(listedSortFields('Query: `tenant` (fuzzy), `name` (fuzzy), `limit`, `page`, `sort_field`, `sort_by`.')).toEqual([]);
  });
});
