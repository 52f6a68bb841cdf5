/** Paging, sorting, filtering and write-visibility bugs of list endpoints. */
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, dropWrite, withParam } from '../admin-api/hooks/hook-helpers.ts';
import {
  keptFilteredAnswers,
  pageCutBeforeSort,
  searchIndexMissesDeletes,
  sortIndexKeptOnUpsert,
  totalBeforeContainsFilters,
} from './stale-list-hooks.ts';

type Page = { data: unknown[]; total_count: number };

export const LIST_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'tenant-list-total-count-is-page-length',
    spec: 'breaks',
    endpoint: 'cluster.tenant.list',
    description: 'tenant list: total_count is the length of the page instead of the number of matching tenants',
    checks: ['list.page-past-end'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.tenant.list', async (params, next) => {
        const page = (await next(params)) as Page;
        return { ...page, total_count: page.data.length };
      }),
    },
  },
  {
    id: 'topic-list-limit-ignored',
    spec: 'breaks',
    endpoint: 'cluster.topic.list',
    description: 'topic list: limit and page are ignored, every request answers the whole list',
    checks: ['list.page-past-end', 'list.pages-partition'],
    caught: true,
    hooks: { around: aroundOn('cluster.topic.list', (params, next) => next({ ...params, limit: undefined, page: undefined })) },
  },
  {
    id: 'user-list-page-past-end-is-last-page',
    spec: 'breaks',
    endpoint: 'cluster.user.list',
    description: 'user list: a page past the end answers the last page instead of an empty one',
    checks: ['list.page-past-end'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.user.list', async (params, next, cx) => {
        const page = (await next(params)) as Page;
        if (page.data.length > 0 || page.total_count === 0) return page;
        const limit = Number(params.limit) || cx.endpoint.list!.defaultLimit;
        return next({ ...params, page: Math.ceil(page.total_count / limit) });
      }),
    },
  },
  {
    id: 'acl-list-sort-desc-ignored',
    spec: 'breaks',
    endpoint: 'cluster.acl.list',
    description: 'ACL list: sort_by=desc is ignored, records always come in ascending order',
    checks: ['list.sort.name', 'list.sort.tenant', 'list.sort.resource_type', 'list.sort.resource_name'],
    caught: true,
    hooks: { around: aroundOn('cluster.acl.list', (params, next) => next({ ...params, sort_by: 'asc' })) },
  },
  {
    id: 'blacklist-list-fuzzy-filter-as-exact',
    spec: 'breaks',
    endpoint: 'cluster.blacklist.list',
    description: 'blacklist list: the name filter matches exactly instead of "contains"',
    checks: ['list.filter.name'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.blacklist.list', (params, next, cx) =>
        next(
          params,
          withParam(cx.endpoint, 'name', (p) => ({ ...p, match: 'exact' })),
        ),
      ),
    },
  },
  {
    id: 'connector-list-exact-filter-as-fuzzy',
    spec: 'breaks',
    endpoint: 'cluster.connector.list',
    description: 'connector list: the tenant filter matches "contains" instead of exactly',
    checks: ['list.filter.tenant.not-partial'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.connector.list', (params, next, cx) =>
        next(
          params,
          withParam(cx.endpoint, 'tenant', (p) => ({ ...p, match: 'fuzzy' })),
        ),
      ),
    },
  },
  {
    id: 'subscribe-list-default-limit-10',
    spec: 'breaks',
    notes: 'notes §11.5, §3',
    rule: 'Common list parameters: "| limit | u32 | no | page size; general default 10000 |"',
    endpoint: 'mqtt.subscribe.list',
    description: 'subscription list: without limit a page holds 10 records instead of 10000',
    finding: 'limits.list-limit-default',
    checks: ['list.total-count'],
    caught: true,
    hooks: {
      around: aroundOn('mqtt.subscribe.list', (params, next, cx) =>
        next(params, { ...cx.endpoint, list: { ...cx.endpoint.list!, defaultLimit: 10 } }),
      ),
    },
  },
  {
    id: 'mq9-lists-answer-every-record',
    spec: 'breaks',
    endpoint: 'mq9.mail.list',
    alsoEndpoints: ['mq9.agent.list'],
    description: 'mq9 mailbox and agent lists: without limit a page holds every record instead of 20',
    checks: ['mq9.default-limit-20', 'list.default-limit'],
    caught: true,
    hooks: {
      around: (params, next, cx) =>
        cx.endpoint.id === 'mq9.mail.list' || cx.endpoint.id === 'mq9.agent.list'
          ? next(params, { ...cx.endpoint, list: { ...cx.endpoint.list!, defaultLimit: 10_000 } })
          : next(params),
    },
  },
  {
    id: 'tenant-list-default-limit-10',
    spec: 'breaks',
    notes: 'notes §11.5, §3',
    rule: 'Endpoints, Tenants: "**GET /api/cluster/tenant/list**. Query: `tenant_name` (fuzzy, contains match), `page` (default 1), `limit` (default 100)"',
    endpoint: 'cluster.tenant.list',
    description: 'tenant list: without limit a page holds 10 records instead of 100',
    finding: 'limits.list-limit-default',
    checks: ['tenant.default-limit-100'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.tenant.list', (params, next, cx) =>
        next(params, { ...cx.endpoint, list: { ...cx.endpoint.list!, defaultLimit: 10 } }),
      ),
    },
  },
  {
    id: 'acl-create-write-dropped',
    spec: 'breaks',
    endpoint: 'cluster.acl.list',
    description: 'ACL create answers success but stores nothing, so the ACL list never shows the rule',
    checks: ['list.shows-created'],
    caught: true,
    hooks: { around: dropWrite('cluster.acl.create') },
  },
  {
    id: 'blacklist-delete-write-dropped',
    spec: 'breaks',
    endpoint: 'cluster.blacklist.delete',
    description: 'blacklist delete answers success but removes nothing, so the entry stays listed',
    checks: ['delete.gone-from-list'],
    caught: true,
    hooks: { around: dropWrite('cluster.blacklist.delete') },
  },
  {
    id: 'tenant-update-not-applied',
    spec: 'breaks',
    endpoint: 'cluster.tenant.update',
    description: 'tenant update answers success but keeps the old description',
    checks: ['update.visible-in-list'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.tenant.update', async (params, next, cx) => {
        // Existence is still checked (so the unknown-tenant error stays right); only the write is lost.
        if (!cx.cluster.tenants.has(String(params.tenant_name))) return next(params);
        return 'success';
      }),
    },
  },
  // Faults of lists that show only after some histories (a filter with a direction, a write between
  // two reads): the list laws, which read one fixed state, pass them; the list histories catch each.
  {
    id: 'tenant-list-filter-keeps-first-direction',
    spec: 'breaks',
    rule: 'Common list parameters: "| sort_by | string | no | `asc` or `desc` |"; Tenants: "`sort_field` (`tenant_name`), `sort_by`"',
    endpoint: 'cluster.tenant.list',
    description:
      'tenant list: the sorted matches of a tenant_name filter are kept until a tenant write, keyed without sort_by, so the first direction asked answers every later query of that filter',
    checks: ['property.history.lists'],
    finding: 'endpoints.tenant.list.query',
    caught: true,
    hooks: {
      around: keptFilteredAnswers('cluster.tenant.list', 'tenant_name', [
        'cluster.tenant.create',
        'cluster.tenant.update',
        'cluster.tenant.delete',
      ]),
    },
  },
  {
    id: 'blacklist-list-upsert-keeps-sort-position',
    spec: 'breaks',
    rule: 'notes §3: the blacklist list sorts by name, tenant, blacklist_type, resource_name',
    endpoint: 'cluster.blacklist.list',
    description:
      'blacklist list: sorted through an index of the keys each entry had when first created, so a create that replaces an entry (an upsert with a new resource_name or type) leaves it at its old place',
    checks: ['property.history.lists'],
    finding: 'notes.path-only.list-sort-fields',
    caught: true,
    hooks: {
      around: sortIndexKeptOnUpsert('cluster.blacklist.list', 'cluster.blacklist.create', 'cluster.blacklist.delete', ['tenant', 'name']),
    },
  },
  {
    id: 'user-list-delete-kept-in-name-filter',
    spec: 'breaks',
    rule: 'What the service does: "manage tenants, … users, …" (an acknowledged delete is applied)',
    endpoint: 'cluster.user.list',
    description:
      'user list: the user_name filter reads a search index that deletes do not update, so a deleted user keeps showing in lists filtered by name (not in the others) until it is created again',
    checks: ['property.history.lists'],
    finding: 'service.manage',
    caught: true,
    hooks: {
      around: searchIndexMissesDeletes('cluster.user.list', 'cluster.user.create', 'cluster.user.delete', 'user_name', (params, cx) => {
        const user = cx.cluster.users.get(String(params.tenant), String(params.username));
        return user ? { ...cx.cluster.users.view(user) } : undefined;
      }),
    },
  },
  {
    id: 'acl-list-total-before-name-filters',
    spec: 'breaks',
    rule: 'Response envelope, paged list: "| total_count | number | total number of matching records |"',
    endpoint: 'cluster.acl.list',
    description: "ACL list: total_count counts the tenant's rules before the name and resource_name filters",
    checks: ['property.history.lists'],
    finding: 'envelope.paged.total-count',
    caught: true,
    hooks: { around: totalBeforeContainsFilters('cluster.acl.list') },
  },
  {
    id: 'rewrite-list-page-cut-before-sort',
    spec: 'breaks',
    rule: 'Response envelope, paged list: "| data | array | the records of the requested page |"',
    endpoint: 'cluster.topic-rewrite.list',
    description:
      'topic-rewrite list: the page is cut from the unsorted rules and then sorted, so each page is in order but not the requested slice of the sorted list',
    checks: ['property.history.lists'],
    finding: 'envelope.paged.data',
    caught: true,
    hooks: { around: pageCutBeforeSort('cluster.topic-rewrite.list') },
  },
];
