import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointById } from '../../../contract/index.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { byNameThenTenant, byTenantThenName, isSystemTopic, Topics, type TopicRecord } from '../storage/topics.ts';
import { IndexedList } from './indexed-list.ts';
import { applyListQuery } from './list-query.ts';
import { referenceListPage } from './list-reference.ts';
import { OperationError } from '../errors/operation-error.ts';
import { SortedList } from './sorted-list.ts';
import type { TopicRecord as ApiTopicRecord } from '../../../contract/records.ts';

const endpoint = endpointById('cluster.topic.list');
const recordFields = Object.keys((endpoint.response as unknown as { data: { properties: Record<string, unknown> } }).data.properties);
// view and viewField read only the record, never the cluster.
const topics = new Topics({} as Cluster);

const topicArb = fc.record({
  tenant: fc.constantFrom('a', 'b', 'B', 'tenant-1', 'ä'),
  topic_name: fc.stringMatching(/^[ab$/+]{1,4}$/),
  partition: fc.integer({ min: 1, max: 3 }),
  replication: fc.integer({ min: 1, max: 3 }),
  storage_type: fc.constantFrom('EngineMemory', 'EngineSegment'),
  createdAt: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }),
  mark_delete: fc.boolean(),
});

const topicRecords = fc.uniqueArray(topicArb, { maxLength: 60, selector: (t) => `${t.tenant}\u0000${t.topic_name}` }).map((ts) =>
  ts.map((t, i): TopicRecord => ({
    topic_id: `id${i}`,
    topic_name: t.topic_name,
    tenant: t.tenant,
    storage_type: t.storage_type as TopicRecord['storage_type'],
    source: 'MQTT',
    partition: t.partition,
    replication: t.replication,
    storage_name_list: Array.from({ length: t.partition }, (_, p) => `id${i}-${p}`),
    config: { max_segment_size: 1024, max_record_num: null, retention_sec: 60 },
    mark_delete: t.mark_delete,
    createdAt: t.createdAt,
    retained: null,
  })),
);

const filterQueryArb = fc.record(
  {
    limit: fc.constantFrom(0, 1, 2, 3, 7, 10_000),
    page: fc.integer({ min: 0, max: 12 }),
    // 'nope' is no sort field of the list (ignored); 'sideways' and 'ASC' sort descending (decisions).
    sort_field: fc.constantFrom('tenant', 'topic_name', 'partition', 'nope'),
    sort_by: fc.constantFrom('asc', 'desc', 'sideways', 'ASC'),
    filter_field: fc.constantFrom('tenant', 'topic_name', 'partition', 'create_time', 'storage_name_list', 'config', 'mark_delete', 'nope'),
    filter_values: fc.array(fc.constantFrom('a', 'b', '$', '1', 'true', 'id1', 'Engine', '"retention_sec":60', 'B'), {
      minLength: 1,
      maxLength: 2,
    }),
    exact_match: fc.constantFrom('true', 'false'),
    tenant: fc.constantFrom('a', 'b', 'c', 'B', 'ä', 'tenant-1'),
    topic_name: fc.constantFrom('a', '$', 'b/', '+'),
    topic_type: fc.constantFrom('all', 'normal', 'system'),
  },
  { requiredKeys: [] },
);
// Paging and sorting alone (the indexed path reads by position there), as often as with filters.
const pagingQueryArb = fc.record(
  {
    limit: fc.constantFrom(0, 1, 2, 3, 7),
    page: fc.integer({ min: 0, max: 12 }),
    sort_field: fc.constantFrom('tenant', 'topic_name', 'nope'),
    sort_by: fc.constantFrom('asc', 'desc', 'sideways'),
  },
  { requiredKeys: [] },
);
const queryArb = fc.oneof(filterQueryArb, pagingQueryArb);

/** The list as the handler built it before the index: every topic sorted, filtered by type, as views. */
function naiveList(records: TopicRecord[], type: string): ApiTopicRecord[] {
  return records
    .slice()
    .sort(byTenantThenName)
    .filter((t) => type === 'all' || (type === 'system') === isSystemTopic(t.topic_name))
    .map((t) => topics.view(t));
}

function indexedList(records: TopicRecord[], type: string): IndexedList<TopicRecord, ApiTopicRecord> {
  const base = new SortedList<TopicRecord>(byTenantThenName);
  const byName = new SortedList<TopicRecord>(byNameThenTenant);
  for (const r of records) {
    base.insert(r);
    byName.insert(r);
  }
  return new IndexedList<TopicRecord, ApiTopicRecord>({
    base,
    sorted: { tenant: base, topic_name: byName },
    leadingField: new Map([
      [base, 'tenant'],
      [byName, 'topic_name'],
    ]),
    ...(type === 'all' ? {} : { where: (t: TopicRecord) => (type === 'system') === isSystemTopic(t.topic_name) }),
    field: (t, name) => topics.viewField(t, name),
    view: (t) => topics.view(t),
  });
}

const outcome = (run: () => unknown): unknown => {
  try {
    return { ok: run() };
  } catch (e) {
    if (e instanceof OperationError) return { error: e.message };
    throw e;
  }
};

describe('indexed list query (topic list)', () => {
  it('answers exactly what the reference (filter, sort, slice over the full array) answers, for random topics and queries', () => {
    fc.assert(
      fc.property(topicRecords, queryArb, (records, query) => {
        const type = 'topic_type' in query ? (query.topic_type ?? 'all') : 'all';
        const params: Record<string, unknown> = { ...query, topic_type: type };
        const naive = outcome(() => referenceListPage(naiveList(records, type), params, endpoint.params, endpoint.list!, recordFields));
        const indexed = outcome(() => applyListQuery(indexedList(records, type), params, endpoint.params, endpoint.list!, recordFields));
        expect(indexed).toEqual(naive);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads every view field like the view itself', () => {
    fc.assert(
      fc.property(topicRecords, (records) => {
        for (const r of records) {
          const view = topics.view(r) as unknown as Record<string, unknown>;
          for (const f of recordFields) expect(topics.viewField(r, f)).toEqual(view[f]);
        }
      }),
    );
  });
});
