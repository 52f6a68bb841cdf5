/**
 * Test support: the RobustMQ web dashboard's API layer as it talks to a server, re-expressed on the
 * same HTTP client (axios, default serializer) from what socutes/robustmq-copilot's
 * `packages/web-ui/src/utils/requestApi.tsx` (d39caf17) and `services/mqtt/index.ts` (robustmq 154531c,
 * message paths also as in d39caf17/aa646b17) send. Only the wire matters here: base URL, headers,
 * the `robustmq_token` cookie sent as a Bearer token, GET params through axios' serializer (bracketed
 * keys for arrays and objects), POST JSON bodies, `code === 0` unwrapping to `data`, and the 401 flow
 * that clears the cookies. The functions keep the dashboard's names and argument shapes.
 */
import axios, { type AxiosInstance } from 'axios';

/** What js-cookie keeps for the dashboard in a browser. */
class CookieJar {
  private readonly values = new Map<string, string>();
  get(name: string): string | undefined {
    return this.values.get(name);
  }
  set(name: string, value: string): void {
    this.values.set(name, value);
  }
  remove(name: string): void {
    this.values.delete(name);
  }
}

const TOKEN_KEY = 'robustmq_token';

/** The dashboard's query option (services/common/query.ts). */
export interface QueryOption {
  pagination?: { offset: number; limit: number };
  sort?: { orderBy: string; direction: 0 | 1 };
  filers?: { field: string; valueList: string[]; exactMatch?: boolean }[];
}

/** An error the wrapper throws, with what the UI would show in its toast. */
export class DashboardRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: number | undefined,
    /** The answer's body, when there was one. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** `convertPaginationForHttpApi`: offset/limit to 1-based page/limit, sort to sort_field/sort_by. */
function convertPagination(query?: QueryOption): Record<string, unknown> | undefined {
  if (!query) return query;
  const { pagination, sort, ...rest } = query as QueryOption & Record<string, unknown>;
  const out: Record<string, unknown> = { ...rest };
  if (pagination) {
    out.limit = pagination.limit;
    out.page = Math.floor(pagination.offset / pagination.limit) + 1;
  }
  if (sort) {
    out.sort_field = sort.orderBy;
    out.sort_by = sort.direction === 0 ? 'asc' : 'desc';
  }
  return out;
}

const opt = <K extends string>(key: K, value: unknown): Partial<Record<K, unknown>> =>
  value ? ({ [key]: value } as Record<K, unknown>) : {};

export interface DashboardOptions {
  /** `config.js` `api.baseUrl`, or what the wrapper falls back to (http://localhost:58080). */
  baseUrl: string;
  /** Message paths of the dashboard version: `/api/cluster/message/*` (154531c) or `/api/mqtt/message/*` (d39caf17, aa646b17). */
  messagePrefix?: '/api/cluster/message' | '/api/mqtt/message';
}

export class DashboardApi {
  readonly cookies = new CookieJar();
  /** Where the 401 interceptor sent the browser (window.location.href), if it did. */
  redirectedTo: string | undefined;
  private readonly http: AxiosInstance;
  private readonly messagePrefix: string;

  constructor(private readonly options: DashboardOptions) {
    this.messagePrefix = options.messagePrefix ?? '/api/cluster/message';
    this.http = axios.create({ baseURL: options.baseUrl });
    this.http.interceptors.request.use((config) => {
      const token = this.cookies.get(TOKEN_KEY) ?? '';
      if (token) config.headers.Authorization = `Bearer ${token}`;
      return config;
    });
    this.http.interceptors.response.use(
      (res) => res,
      (err: unknown) => {
        if (axios.isAxiosError(err) && err.response?.status === 401) {
          this.cookies.remove(TOKEN_KEY);
          this.cookies.remove('isAuthenticated');
          this.redirectedTo = '/login';
        }
        return Promise.reject(err);
      },
    );
  }

  /** The login page: plain axios (no interceptors), reads data.token and data.expires_in. */
  async login(username: string, password: string): Promise<{ token: string; expires_in: number }> {
    const res = await axios.post(`${this.options.baseUrl}/api/v1/login`, { username, password });
    const { token, expires_in } = (res.data?.data ?? {}) as { token?: string; expires_in?: number };
    if (!token) throw new DashboardRequestError('Login failed: no token returned', res.status, res.data?.code);
    this.cookies.set(TOKEN_KEY, token);
    this.cookies.set('isAuthenticated', 'true');
    return { token, expires_in: expires_in ?? Number.NaN };
  }

  /** `requestApi`: GET with params (no Content-Type), POST with a JSON body; code 0 or an error. */
  async requestApi<R = any>(api: string, data?: unknown, method: 'GET' | 'POST' = 'POST'): Promise<R> {
    let response;
    try {
      response =
        method === 'GET'
          ? await this.http.get(api, { params: data, headers: {} })
          : await this.http.post(api, data, { headers: { 'Content-Type': 'application/json' } });
    } catch (e) {
      // The toast shows `message` of the body (form A) or axios' own text: a form-B `error` is not read.
      if (axios.isAxiosError(e))
        throw new DashboardRequestError(
          e.response?.data?.message || e.message || 'Network error occurred',
          e.response?.status,
          e.response?.data?.code,
          e.response?.data,
        );
      throw e;
    }
    const body = response.data as { code: number; data: R; message?: string };
    if (body?.code !== 0) {
      const text = body?.data ? String(body.data) : body?.message || `Request failed with code ${body?.code}`;
      throw new DashboardRequestError(text, response.status, body?.code, body);
    }
    return body.data;
  }

  // ---- services/mqtt/index.ts, in the file's order --------------------------------------------

  getMonitorData(data_type: string, topic_name?: string, client_id?: string, path?: string, connector_name?: string) {
    return this.requestApi(
      '/api/mqtt/monitor/data',
      {
        data_type,
        ...opt('topic_name', topic_name),
        ...opt('client_id', client_id),
        ...opt('path', path),
        ...opt('connector_name', connector_name),
      },
      'GET',
    );
  }
  getOverviewStatusData() {
    return this.requestApi('/api/mqtt/overview', undefined, 'GET');
  }
  getClientListHttp(query?: QueryOption & { tenant?: string; client_id?: string }) {
    const { tenant, client_id, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/client/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('client_id', client_id) },
      'GET',
    );
  }
  getSessionListHttp(query?: QueryOption & { tenant?: string; client_id?: string; sort_field?: string; sort_by?: string }) {
    const { tenant, client_id, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/session/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('client_id', client_id) },
      'GET',
    );
  }
  getTopicListHttp(query?: QueryOption & { tenant?: string; topic_name?: string; topic_type?: string }) {
    const { tenant, topic_name, topic_type, ...rest } = query ?? {};
    return this.requestApi(
      '/api/cluster/topic/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('topic_name', topic_name), ...opt('topic_type', topic_type) },
      'GET',
    );
  }
  getTopicDetail(topicName: string, tenant?: string) {
    return this.requestApi('/api/cluster/topic/detail', { topic_name: topicName, ...opt('tenant', tenant) }, 'GET');
  }
  deleteTopic(data: { topic_name: string; tenant?: string }) {
    return this.requestApi('/api/cluster/topic/delete', { topic_name: data.topic_name, tenant: data.tenant });
  }
  getSubscribeListHttp(query?: QueryOption & { tenant?: string; client_id?: string }) {
    const { tenant, client_id, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/subscribe/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('client_id', client_id) },
      'GET',
    );
  }
  getSubscribeDetail(params: { tenant: string; client_id: string; path: string }) {
    return this.requestApi('/api/mqtt/subscribe/detail', params, 'GET');
  }
  getUserList(query?: QueryOption & { tenant?: string; user_name?: string }) {
    const { tenant, user_name, ...rest } = query ?? {};
    return this.requestApi(
      '/api/cluster/user/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('user_name', user_name) },
      'GET',
    );
  }
  createUser(data: { tenant: string; username: string; password: string; is_superuser: boolean }) {
    return this.requestApi('/api/cluster/user/create', data);
  }
  deleteUser(data: { tenant: string; username: string }) {
    return this.requestApi('/api/cluster/user/delete', data);
  }
  getAclListHttp(query?: QueryOption & { tenant?: string; name?: string }) {
    const { tenant, name, ...rest } = query ?? {};
    return this.requestApi('/api/cluster/acl/list', { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) }, 'GET');
  }
  createAcl(data: Record<string, string>) {
    return this.requestApi('/api/cluster/acl/create', data);
  }
  deleteAcl(data: { tenant: string; name: string }) {
    return this.requestApi('/api/cluster/acl/delete', data);
  }
  getBlacklistListHttp(query?: QueryOption & { tenant?: string; name?: string }) {
    const { tenant, name, ...rest } = query ?? {};
    return this.requestApi(
      '/api/cluster/blacklist/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) },
      'GET',
    );
  }
  createBlacklist(data: { tenant: string; name: string; blacklist_type: string; resource_name: string; end_time: number; desc: string }) {
    return this.requestApi('/api/cluster/blacklist/create', data);
  }
  deleteBlacklist(data: { tenant: string; name: string }) {
    return this.requestApi('/api/cluster/blacklist/delete', data);
  }
  getConnectorListHttp(query?: QueryOption & { sort_field?: string; sort_by?: string }, tenant?: string, connector_name?: string) {
    return this.requestApi(
      '/api/cluster/connector/list',
      { ...convertPagination(query), ...opt('tenant', tenant), ...opt('connector_name', connector_name) },
      'GET',
    );
  }
  createConnector(data: {
    tenant: string;
    connector_name: string;
    connector_type: string;
    config: string;
    topic_name: string;
    failure_strategy: Record<string, unknown>;
  }) {
    return this.requestApi('/api/cluster/connector/create', data);
  }
  deleteConnector(data: { tenant: string; connector_name: string }) {
    return this.requestApi('/api/cluster/connector/delete', data);
  }
  getConnectorDetail(params: { tenant: string; connector_name: string }) {
    return this.requestApi('/api/cluster/connector/detail', params, 'GET');
  }
  getSchemaListHttp(query?: QueryOption & { tenant?: string; name?: string }) {
    if (!query) return this.requestApi('/api/cluster/schema/list', undefined, 'GET');
    const { tenant, name, ...rest } = query;
    return this.requestApi(
      '/api/cluster/schema/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) },
      'GET',
    );
  }
  createSchema(data: { tenant: string; schema_name: string; schema_type: string; schema: string; desc?: string }) {
    return this.requestApi('/api/cluster/schema/create', data);
  }
  deleteSchema(data: { tenant: string; schema_name: string }) {
    return this.requestApi('/api/cluster/schema/delete', data);
  }
  getSchemaBindList(tenant?: string, resource_name?: string, schema_name?: string) {
    return this.requestApi(
      '/api/cluster/schema-bind/list',
      { ...opt('tenant', tenant), ...opt('resource_name', resource_name), ...opt('schema_name', schema_name) },
      'GET',
    );
  }
  createSchemaBind(data: { tenant?: string; schema_name: string; resource_name: string }) {
    return this.requestApi('/api/cluster/schema-bind/create', data);
  }
  deleteSchemaBind(data: { tenant?: string; schema_name: string; resource_name: string }) {
    return this.requestApi('/api/cluster/schema-bind/delete', data);
  }
  getAutoSubscribeListHttp(query?: QueryOption & { tenant?: string; name?: string }) {
    const { tenant, name, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/auto-subscribe/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) },
      'GET',
    );
  }
  createAutoSubscribe(data: {
    tenant: string;
    name: string;
    desc: string;
    topic: string;
    qos: number;
    no_local: boolean;
    retain_as_published: boolean;
    retained_handling: number;
  }) {
    return this.requestApi('/api/mqtt/auto-subscribe/create', data);
  }
  deleteAutoSubscribe(data: { tenant: string; name: string }) {
    return this.requestApi('/api/mqtt/auto-subscribe/delete', data);
  }
  getSlowSubscribeListHttp(query?: QueryOption & { tenant?: string; client_id?: string }) {
    const { tenant, client_id, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/slow-subscribe/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('client_id', client_id) },
      'GET',
    );
  }
  getTopicRewriteListHttp(query?: QueryOption & { tenant?: string; name?: string }) {
    const { tenant, name, ...rest } = query ?? {};
    return this.requestApi(
      '/api/cluster/topic-rewrite/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) },
      'GET',
    );
  }
  createTopicRewrite(data: {
    name: string;
    tenant: string;
    action: string;
    source_topic: string;
    dest_topic: string;
    regex: string;
    desc?: string;
  }) {
    return this.requestApi('/api/cluster/topic-rewrite/create', data);
  }
  deleteTopicRewrite(data: { tenant: string; name: string }) {
    return this.requestApi('/api/cluster/topic-rewrite/delete', data);
  }
  getMailboxList(query?: QueryOption & { tenant?: string; mail_address?: string }) {
    const { tenant, mail_address, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mq9/mail/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('mail_address', mail_address) },
      'GET',
    );
  }
  getAgentList(query?: QueryOption & { tenant?: string; name?: string }) {
    const { tenant, name, ...rest } = query ?? {};
    return this.requestApi('/api/mq9/agent/list', { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('name', name) }, 'GET');
  }
  getShardList(query: { pagination: { offset: number; limit: number }; shard_name?: string; topic_name?: string }) {
    const { limit, page } = convertPagination(query) as { limit: number; page: number };
    return this.requestApi('/api/storage-engine/shard/list', {
      limit,
      page,
      ...opt('shard_name', query.shard_name),
      ...opt('topic_name', query.topic_name),
    });
  }
  getSegmentList(shardName: string) {
    return this.requestApi('/api/storage-engine/segment/list', { shard_name: shardName });
  }
  getSegmentDetail(shardName: string, segmentSeq: number) {
    return this.requestApi('/api/storage-engine/segment/detail', { shard_name: shardName, segment_seq: segmentSeq });
  }
  getSystemAlarmListHttp(query?: QueryOption) {
    return this.requestApi('/api/mqtt/system-alarm/list', convertPagination(query), 'GET');
  }
  getConnectionJitterListHttp(query?: QueryOption & { tenant?: string; client_id?: string }) {
    const { tenant, client_id, ...rest } = query ?? {};
    return this.requestApi(
      '/api/mqtt/flapping_detect/list',
      { ...convertPagination(rest), ...opt('tenant', tenant), ...opt('client_id', client_id) },
      'GET',
    );
  }
  getBanLogListHttp(query?: QueryOption & { tenant?: string }) {
    const { tenant, ...rest } = query ?? {};
    return this.requestApi('/api/mqtt/ban-log/list', { ...convertPagination(rest), ...opt('tenant', tenant) }, 'GET');
  }
  sendMessage(data: { tenant: string; topic: string; payload: string; retain: boolean }) {
    return this.requestApi(`${this.messagePrefix}/send`, data);
  }
  readMessages(data: { tenant: string; topic: string; offset: number }) {
    return this.requestApi(`${this.messagePrefix}/read`, data);
  }
  getClusterConfig(brokerId?: number) {
    return this.requestApi(
      brokerId !== undefined ? `/api/cluster/config/get?broker_id=${brokerId}` : '/api/cluster/config/get',
      undefined,
      'GET',
    );
  }
  getClusterStatus() {
    return this.requestApi('/api/info', undefined, 'GET');
  }
  /** Passed raw, not converted: the server sees pagination[offset]/pagination[limit] (and ignores them). */
  getTenantList(query?: QueryOption) {
    return this.requestApi('/api/cluster/tenant/list', query ?? {}, 'GET');
  }
  createTenant(data: { tenant_name: string; desc?: string; config?: Record<string, number> }) {
    return this.requestApi('/api/cluster/tenant/create', data);
  }
  deleteTenant(data: { tenant_name: string }) {
    return this.requestApi('/api/cluster/tenant/delete', data);
  }
  updateTenant(data: { tenant_name: string; desc?: string; config?: Record<string, number> }) {
    return this.requestApi('/api/cluster/tenant/update', data);
  }
}
