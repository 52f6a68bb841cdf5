import { describe, expect, it } from 'vitest';
import { endpointById } from '../../contract/index.ts';
import { SimTarget } from '../targets/sim-target.ts';
import { A, listedSortFields, pagedAssertion, sortAssertion } from './cite.ts';
import { runConform } from '../run/runner.ts';

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

/**
 * The common filter parameters (filter_field, filter_values, exact_match) are a rule of the spec only
 * on the lists whose endpoint paragraph names them — the tenant list; on the others, whose paragraphs
 * list their own query without them, taking them is the project's decision (INFO); on a path-only
 * list, the reference notes' shape (INFO).
 */
describe('the level of the common filter checks follows the list paragraph', () => {
  it('cites list-params.* on the tenant list, the decision on other Index lists, the notes on path-only lists', () => {
    expect(pagedAssertion(endpointById('cluster.tenant.list'), 'filter-values')).toBe('list-params.filter-values');
    expect(pagedAssertion(endpointById('cluster.tenant.list'), 'exact-match')).toBe('list-params.exact-match');
    for (const id of ['cluster.topic.list', 'cluster.user.list', 'mq9.mail.list', 'mqtt.client.list']) {
      expect(pagedAssertion(endpointById(id), 'filter-values'), id).toBe('decision.list.common-filters');
      expect(pagedAssertion(endpointById(id), 'exact-match'), id).toBe('decision.list.common-filters');
    }
    expect(pagedAssertion(endpointById('storage.shard.list'), 'filter-values')).toMatch(/^notes\./);
  });

  it('a server ignoring filter_values on the topic list gets an INFO finding there, a MUST one where the tenant list refuses it', async () => {
    // The real server: the tenant list refuses filter_values in a query, the other GET lists ignore it.
    const target = await SimTarget.start({ seed: 8, nodes: 1, workload: 'none', deviations: ['filter-values-unusable-in-query'] });
    try {
      const report = await runConform({ target, seed: 8, only: ['cluster.tenant.list', 'cluster.topic.list'], properties: false });
      const failed = (id: string) =>
        report.endpoints
          .find((e) => e.id === id)!
          .checks.filter((c) => c.status === 'fail' && c.id.startsWith('list.filter_values'))
          .map((c) => `${c.id} ${c.level} ${c.assertion}`);
      expect(failed('cluster.tenant.list')).toContain('list.filter_values.contains MUST list-params.filter-values');
      expect(failed('cluster.topic.list')).toContain('list.filter_values.contains INFO decision.list.common-filters');
      expect(failed('cluster.topic.list').filter((c) => !c.includes(' INFO '))).toEqual([]);
    } finally {
      await target.close();
    }
  }, 60_000);
});
