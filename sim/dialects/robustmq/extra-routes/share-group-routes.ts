/**
 * `GET /api/cluster/share-group/list` and `/detail` (reference notes §4.8, §1.2; the real
 * `cluster/share_group.rs`), on the broker's shared subscriptions. Both read a `Query<T>`: a bad
 * parameter is axum's 400 plain text; an unknown group is a form-B failure with HTTP 200.
 */
import type { ListSpec, ParamSpec } from '../../../../contract/core/types.ts';
import { applyListQuery } from '../../../model/api/list-query.ts';
import type { SwitchCluster } from '../../../admin-api/hooks/deviation.ts';
import { findShareGroup, shareGroupDetail, shareGroupRows, type ShareGroupRow } from '../../../model/mqtt/share-group-views.ts';
import type { ApiRequest, ApiResponse } from '../../../admin-api/core/api-exchange.ts';
import { parseUrl } from '../../../admin-api/core/parse-request.ts';
import type { ExtraRoute } from '../../../admin-api/hooks/deviation.ts';
import { QUERY_REJECTION_PREFIX, queryFieldsRejection } from '../core/real-server-rejections.ts';
import { formBFailure, formBSuccess, methodNotAllowed, plainText } from './route-answers.ts';

const SHARE_GROUP_LIST_PATH = '/api/cluster/share-group/list';
const SHARE_GROUP_DETAIL_PATH = '/api/cluster/share-group/detail';

/** `ShareGroupListReq`: `tenant` exact, `group_name` substring, then the paging of `build_query_params`. */
const LIST_FIELDS: readonly ParamSpec[] = [
  { name: 'tenant', type: 'string', match: 'exact', description: 'tenant, exact' },
  { name: 'group_name', type: 'string', match: 'fuzzy', description: 'full group name (<group>/<filter>), substring' },
  { name: 'limit', type: 'u32', description: 'page size; absent or 0: 10' },
  { name: 'page', type: 'u32', description: 'page, from 1; absent or 0: the first' },
  { name: 'sort_field', type: 'string', description: 'tenant or group_name; another field is ignored' },
  { name: 'sort_by', type: 'string', description: 'asc, else descending' },
];

/** `ShareGroupDetailReq`. */
const DETAIL_FIELDS: readonly ParamSpec[] = [
  { name: 'tenant', type: 'string', required: true, description: 'tenant' },
  { name: 'group_name', type: 'string', required: true, description: 'full group name (<group>/<filter>)' },
];

/** The real list semantics (notes §3): 10 a page; the `Queryable` fields of ShareGroup sort. */
const LIST_SPEC: ListSpec = { defaultLimit: 10, sortFields: ['tenant', 'group_name'] };
const ROW_FIELDS: readonly (keyof ShareGroupRow)[] = ['uuid', 'tenant', 'group_name', 'leader_broker', 'sub_params', 'create_time'];

type Query = Record<string, string | string[]>;

/** The query as `Query<T>` reads it, or axum's rejection. */
function readQuery(
  req: ApiRequest,
  fields: readonly ParamSpec[],
): { ok: true; query: Record<string, string> } | { ok: false; answer: ApiResponse } {
  const query: Query = parseUrl(req.url).query;
  const problem = queryFieldsRejection(fields, query);
  if (problem) return { ok: false, answer: plainText(400, `${QUERY_REJECTION_PREFIX}${problem}`) };
  const known = fields.filter((f) => f.name in query).map((f) => [f.name, query[f.name] as string]);
  return { ok: true, query: Object.fromEntries(known) };
}

function listAnswer(req: ApiRequest, cluster: SwitchCluster): ApiResponse {
  const read = readQuery(req, LIST_FIELDS);
  if (!read.ok) return read.answer;
  const q = read.query;
  const params: Record<string, unknown> = {
    ...(q.tenant !== undefined ? { tenant: q.tenant } : {}),
    ...(q.group_name !== undefined ? { group_name: q.group_name } : {}),
    ...(q.limit !== undefined ? { limit: Number(q.limit) } : {}),
    ...(q.page !== undefined ? { page: Number(q.page) } : {}),
    // build_query_params: a sort only with sort_field, ascending only for exactly "asc".
    ...(q.sort_field !== undefined ? { sort_field: q.sort_field, sort_by: q.sort_by === 'asc' ? 'asc' : 'desc' } : {}),
  };
  return formBSuccess(applyListQuery(shareGroupRows(cluster.mqtt), params, LIST_FIELDS, LIST_SPEC, ROW_FIELDS));
}

function detailAnswer(req: ApiRequest, cluster: SwitchCluster): ApiResponse {
  const read = readQuery(req, DETAIL_FIELDS);
  if (!read.ok) return read.answer;
  const { tenant, group_name: groupName } = read.query;
  const group = findShareGroup(cluster.mqtt, tenant, groupName);
  if (!group) return formBFailure(`Share group '${tenant}/${groupName}' not found`);
  return formBSuccess(shareGroupDetail(cluster.mqtt, group));
}

export const SHARE_GROUP_ROUTES: readonly ExtraRoute[] = [
  { method: 'GET', path: SHARE_GROUP_LIST_PATH, auth: 'token', handle: (req, { cluster }) => listAnswer(req, cluster) },
  { method: 'GET', path: SHARE_GROUP_DETAIL_PATH, auth: 'token', handle: (req, { cluster }) => detailAnswer(req, cluster) },
  // Inside the /api nest the auth layer runs before axum's method router answers a wrong method.
  { method: '*', path: SHARE_GROUP_LIST_PATH, auth: 'token', handle: () => methodNotAllowed(['GET']) },
  { method: '*', path: SHARE_GROUP_DETAIL_PATH, auth: 'token', handle: () => methodNotAllowed(['GET']) },
];
