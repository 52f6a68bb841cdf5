import { describe, expect, it } from 'vitest';
import { API } from '../../contract/index.ts';
import type { ApiContract } from '../../contract/core/types.ts';
import { effectOf, historyList } from './api-history.ts';

describe('the acknowledged history reads visibility from the contract', () => {
  it("a family's create makes its instance appear and its delete makes it disappear, in its tenant", () => {
    const body = { tenant: 'chaos-a', name: 'acl-1', resource_type: 'ClientId' };
    expect(effectOf({ method: 'POST', path: '/api/cluster/acl/create', body }, API)).toEqual({
      family: 'acl',
      tenant: 'chaos-a',
      name: 'acl-1',
      present: true,
    });
    expect(effectOf({ method: 'POST', path: '/api/cluster/acl/delete', body })?.present).toBe(false);
    expect(effectOf({ method: 'POST', path: '/api/cluster/tenant/create', body: { tenant_name: 't-1' } })).toEqual({
      family: 'tenant',
      tenant: '',
      name: 't-1',
      present: true,
    });
  });

  it("a family's own rule: publishing creates the topic it names", () => {
    const send = { method: 'POST' as const, path: '/api/mqtt/message/send', body: { tenant: 'default', topic: 'a/b', payload: 'x' } };
    expect(effectOf(send)).toEqual({ family: 'topic', tenant: 'default', name: 'a/b', present: true });
  });

  it('reads, and families without a listing by name, leave the history alone', () => {
    expect(effectOf({ method: 'GET', path: '/api/cluster/tenant/list' })).toBeNull();
    expect(effectOf({ method: 'POST', path: '/api/storage-engine/shard/create', body: { shard_name: 's' } })).toBeNull();
    expect(effectOf({ method: 'POST', path: '/api/cluster/schema-bind/create', body: { tenant: 't' } })).toBeNull();
  });

  it('lists a scoped family per tenant and an unscoped one whole, on one page', () => {
    expect(historyList('tenant', '')).toEqual({
      method: 'GET',
      path: '/api/cluster/tenant/list',
      query: 'limit=10000',
      nameField: 'tenant_name',
    });
    expect(historyList('connector', 'a b')).toEqual({
      method: 'GET',
      path: '/api/cluster/connector/list',
      query: 'tenant=a%20b&limit=10000',
      nameField: 'connector_name',
    });
  });

  it('follows a rule the contract adds, with nothing else changed', () => {
    const topic = API.families.find((f) => f.key === 'topic')!;
    const api: ApiContract = {
      endpoints: API.endpoints,
      families: API.families.map((f) =>
        f === topic
          ? { ...f, visibility: [...(f.visibility ?? []), { endpoint: 'cluster.topic.detail', effect: 'disappears', why: 'test' }] }
          : f,
      ),
    };
    const detail = { method: 'GET' as const, path: '/api/cluster/topic/detail', body: { tenant: 't', topic_name: 'x' } };
    expect(effectOf(detail)).toBeNull();
    expect(effectOf(detail, api)).toEqual({ family: 'topic', tenant: 't', name: 'x', present: false });
  });
});
