import { describe, expect, it } from 'vitest';
import { API } from '../../../contract/index.ts';
import { historyFamilies, orderAgreeing } from './list-families.ts';
import { cutOf } from './run-query.ts';
import { resolveRun } from './history-steps.ts';

const byTag = Object.fromEntries(historyFamilies(API).map((h) => [h.tag, h]));

describe('the families a list history covers, read from the contract', () => {
  it('every writable family with a list that shows its instances by name; schema bindings ride with schemas; shards are not listed by name', () => {
    expect(Object.keys(byTag).sort()).toEqual([
      'acl',
      'auto-subscribe',
      'blacklist',
      'connectors',
      'schemas',
      'tenants',
      'topic-rewrite',
      'topics',
      'users',
    ]);
    expect(byTag.schemas.binding?.list.id).toBe('cluster.schema-bind.list');
    expect(byTag.tenants.endpoints.update?.id).toBe('cluster.tenant.update');
  });

  it('sorts by the fields whose values the writes give, each cited as the list laws cite it; server-set fields are not judged', () => {
    // The ACL paragraph gives `sort_field` (`name`); tenant and resource_name are its filters, not its sort fields.
    expect(byTag.acl.sortFields.map((s) => [s.field, s.assertion])).toEqual([
      ['name', 'endpoints.acl.list.query'],
      ['tenant', 'decision.list.extra-sort-fields'],
      ['resource_type', 'decision.list.extra-sort-fields'],
      ['resource_name', 'decision.list.extra-sort-fields'],
    ]);
    expect(byTag.tenants.unjudgedSortFields.map((u) => u.field)).toEqual(['create_time']);
    expect(byTag.connectors.unjudgedSortFields.map((u) => u.field)).toEqual(['status']);
    expect(byTag.blacklist.sortFields.every((s) => s.assertion === 'notes.path-only.list-sort-fields')).toBe(true);
  });

  it("filters with the list query's named parameters, exact or contains as the contract says, the tenant first", () => {
    expect(byTag.users.filters.map((f) => `${f.param}:${f.field}:${f.match}`)).toEqual(['tenant:tenant:exact', 'user_name:username:fuzzy']);
    expect(byTag.acl.filters.map((f) => `${f.param}:${f.match}`)).toEqual(['tenant:fuzzy', 'name:fuzzy', 'resource_name:fuzzy']);
    expect(byTag.tenants.filters.map((f) => f.param)).toEqual(['tenant_name']);
  });

  it('gives a sort field closed values only where every collation orders them alike', () => {
    expect(orderAgreeing(['ClientId', 'User', 'Ip', 'ClientIdMatch', 'UserMatch', 'IPCIDR'])).toEqual([
      'ClientId',
      'User',
      'Ip',
      'ClientIdMatch',
      'UserMatch',
    ]);
    expect(byTag.blacklist.visible.find((v) => v.param === 'blacklist_type')?.values).toEqual([
      'ClientId',
      'User',
      'ClientIdMatch',
      'UserMatch',
    ]);
    expect(byTag.acl.visible.find((v) => v.param === 'resource_type')?.values).toEqual(['ClientId', 'User']);
    expect(byTag.connectors.examples?.examples.every((ex) => /^[a-z0-9]+$/.test(String(ex.connector_type)))).toBe(true);
  });
});

describe('names and references of a history', () => {
  it('resolves the run base name deeply', () => {
    expect(resolveRun({ tenant: '{B}s', list: ['a{B}b'], n: 1 }, 'h1x')).toEqual({ tenant: 'h1xs', list: ['ah1xb'], n: 1 });
  });

  it('cuts a prefix, a middle or a suffix out of a written value', () => {
    expect(['whole', 'prefix', 'middle', 'suffix'].map((c) => cutOf('abcde', c as 'whole'))).toEqual(['abcde', 'abc', 'bcd', 'cde']);
    expect(cutOf('ab', 'middle')).toBe('ab');
    expect(cutOf('a', 'suffix')).toBe('a');
  });
});
