/**
 * Behaviours of the real server (reference notes §2, §11) that the spec allows or leaves open. A
 * conformance run must pass with any of them switched on: they prove the suites do not fail a
 * server for what the spec never promised. Each reproduces the real behaviour as the notes give it.
 */
import { OperationError, failed } from '../../model/errors/operation-error.ts';
import type { SwitchCluster } from '../../admin-api/hooks/deviation.ts';
import { bodyText, headerOf, type ApiRequest, type ApiResponse } from '../../admin-api/core/api-exchange.ts';
import { isJsonMediaType } from '../../admin-api/core/parse-request.ts';
import type { Deviation, DeviationHooks } from '../../admin-api/hooks/deviation.ts';
import { aroundOn, changeSpec, validationOn } from '../../admin-api/hooks/hook-helpers.ts';
import {
  emptyAnswer,
  endpointAt,
  endpointsAt,
  envelopeText,
  isEnvelope,
  jsonBody,
  LOGIN_PATH,
  methodNotAllowed,
  pathOf,
  staticFallback,
  textAnswer,
  toNowhere,
  withEnvelopeText,
  withJson,
  withPath,
} from './core/real-server-answers.ts';
import {
  BODY_LIMIT_TEXT,
  extractorOf,
  JSON_CONTENT_TYPE_TEXT,
  jsonSyntaxError,
  validatedJsonRejection,
} from './core/real-server-rejections.ts';

type Obj = Record<string, unknown>;
type Around = NonNullable<DeviationHooks['around']>;

// ---- ValidatedJson rejections and form B --------------------------------------------------------

/**
 * A ValidatedJson body without a JSON Content-Type is refused by the real extractor before anything
 * runs; the app is made to refuse it too (as a 415), and `validatedJsonAnswer` words it.
 */
function validatedJsonRequest(req: ApiRequest): ApiRequest {
  if (req.method.toUpperCase() !== 'POST') return req;
  const e = endpointAt('POST', pathOf(req.url));
  const type = headerOf(req, 'content-type');
  if (!e || extractorOf(e) !== 'validated-json' || (type && isJsonMediaType(type))) return req;
  return { ...req, headers: { ...req.headers, 'content-type': type || 'text/plain' }, body: bodyText(req) === '' ? ' ' : req.body };
}

/**
 * A refused ValidatedJson request answered with the real text (notes §2.3): `JSON parsing failed: …`
 * or `Parameter validation failed: <the §4 messages>`, HTTP 400, in the envelope the app uses.
 * Refusals the real extractor would not make (the model's own checks) keep the simulator's text.
 */
function validatedJsonAnswer(res: ApiResponse, path: string, req: ApiRequest): ApiResponse {
  const e = endpointAt(req.method, path);
  if (!e || extractorOf(e) !== 'validated-json' || (res.status !== 400 && res.status !== 415 && res.status !== 413)) return res;
  const body = jsonBody(res);
  if (!isEnvelope(body)) return res;
  if (res.status === 415)
    return withJson({ ...res, status: 400 }, withEnvelopeText({ ...body, code: 400 }, `JSON parsing failed: ${JSON_CONTENT_TYPE_TEXT}`));
  // axum's body limit (2 MB, as the app's) fails the extractor, which ValidatedJson answers as any rejection.
  if (res.status === 413)
    return withJson(
      { ...res, status: 400, headers: withoutClose(res.headers) },
      withEnvelopeText({ ...body, code: 400 }, `JSON parsing failed: ${BODY_LIMIT_TEXT}`),
    );
  const sent = bodyText(req);
  const text = validatedJsonRejection(e, sent.trim() === '' ? '' : sent);
  // An empty body is no JSON for the real extractor: serde's EOF error.
  if (sent.trim() === '' && !text)
    return withJson(res, withEnvelopeText(body, `JSON parsing failed: Failed to parse the request body as JSON: ${jsonSyntaxError('')}`));
  return text ? withJson(res, withEnvelopeText(body, text)) : res;
}

function withoutClose(headers: Record<string, string>): Record<string, string> {
  const { connection: _c, ...rest } = headers;
  return rest;
}

/** Every envelope in form B; failures with code 100 and data "" (notes §2.1). Login and 401 keep form A. */
function formB100(res: ApiResponse, path: string): ApiResponse {
  if (path === LOGIN_PATH || res.status === 401) return res;
  const body = jsonBody(res);
  if (!isEnvelope(body)) return res;
  return withJson(
    res,
    body.code === 0 ? { code: 0, data: body.data, error: null } : { code: 100, data: '', error: envelopeText(body) ?? '' },
  );
}

/** Empty bodies of ValidatedJson POSTs reach the model as `{}`; the real extractor refuses them. */
function emptyBodyRefused(req: ApiRequest): ApiRequest {
  if (req.method.toUpperCase() !== 'POST' || bodyText(req).trim() !== '') return req;
  const e = endpointAt('POST', pathOf(req.url));
  return e && extractorOf(e) === 'validated-json' ? { ...req, body: '\u0000' } : req;
}

// ---- meta-service errors ------------------------------------------------------------------------

/** Mutations answered by the meta service over gRPC (notes §2.4, §4): their refusals come wrapped. */
const META_MUTATIONS = new Set([
  'cluster.tenant.create',
  'cluster.tenant.update',
  'cluster.tenant.delete',
  'cluster.topic.delete',
  'cluster.topic-rewrite.create',
  'cluster.topic-rewrite.delete',
  'cluster.user.create',
  'cluster.user.delete',
  'cluster.acl.create',
  'cluster.acl.delete',
  'cluster.blacklist.create',
  'cluster.blacklist.delete',
  'cluster.schema.create',
  'cluster.schema.delete',
  'cluster.schema-bind.create',
  'cluster.schema-bind.delete',
  'cluster.connector.create',
  'cluster.connector.delete',
  'mqtt.auto-subscribe.create',
  'mqtt.auto-subscribe.delete',
  'cluster.node.leave',
]);

/** `CommonError::GrpcServerStatus` Display around a tonic `Status::internal` (the older tonic form, notes §2.4). */
export function grpcWrapped(inner: string): string {
  return `Grpc call of the node failed,Grpc status was status: Internal, message: ${JSON.stringify(inner)}, details: [], metadata: MetadataMap { headers: {} }`;
}

const grpcWrap: Around = async (params, next, cx) => {
  if (!META_MUTATIONS.has(cx.endpoint.id)) return next(params);
  try {
    return await next(params);
  } catch (e) {
    // The node-leave refusal of a still-registered node is the admin handler's own, not the meta service's.
    if (e instanceof OperationError && e.kind === 'failed' && !/is still registered/.test(e.message)) throw failed(grpcWrapped(e.message));
    throw e;
  }
};

// ---- extra routes -------------------------------------------------------------------------------

const PPROF_PATH = '/debug/pprof/flamegraph';
const PPROF_DISABLED = 'pprof is disabled. Set runtime.pprof_enable = true in config to enable it.';
const MESSAGE_ALIASES: Readonly<Record<string, string>> = {
  '/api/cluster/message/send': '/api/mqtt/message/send',
  '/api/cluster/message/read': '/api/mqtt/message/read',
};

function pprofAnswer(res: ApiResponse, method: string): ApiResponse {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' ? textAnswer(res, 200, PPROF_DISABLED) : emptyAnswer(res, 405, { allow: 'GET,HEAD' });
}

// ---- state kept for a cluster by a switch ------------------------------------------------------

/** Sections of the two extra config types, as set (config-set-extra-types). */
const extraConfig = new WeakMap<SwitchCluster, { MetaRuntime?: Obj; KafkaDynamic?: Obj }>();
const EXTRA_CONFIG_TYPES = ['MetaRuntime', 'KafkaDynamic'] as const;

/** Where fresh topic ids of duplicate creates come from: the cluster's seed, so a run repeats. */
const topicIds = new WeakMap<SwitchCluster, ReturnType<SwitchCluster['engine']['random']['fork']>>();

function freshTopicId(cluster: SwitchCluster): string {
  let rng = topicIds.get(cluster);
  if (!rng) topicIds.set(cluster, (rng = cluster.engine.random.fork('deviation/topic-create-idempotent')));
  return rng.id();
}

/** Real names of the consensus groups: `{group}_{index}` (notes §4.1). */
function realGroupName(name: string): string {
  const m = /^([a-z]+)(?:_(\d+))?$/.exec(name);
  if (!m) return name;
  return `${m[1] === 'meta' ? 'metadata' : m[1]}_${m[2] ?? 0}`;
}

const notFound = /does not exist|not found|is not bound/;

export const REAL_SERVER_VARIANTS: readonly Deviation[] = [
  {
    id: 'failure-code-100',
    spec: 'allows',
    notes: 'notes §11.1, §2.1, §2.3, §4',
    rule: 'Errors: "| 1 (and in one sample 100) | generic failure of an operation, with a text in `message` or `error` |"; Response envelope: form B `code`, `data`, `error` and "`data` is null or an empty string"',
    endpoint: 'cluster.tenant.create',
    description:
      'every answer in envelope form B; failures carry code 100 and data "" (handler failures with HTTP 200, validation failures with HTTP 400 and the real texts "Parameter validation failed: …" / "JSON parsing failed: …")',
    checks: [],
    caught: false,
    reason:
      'allowed by the spec: code 100 is one of the spec\'s failure codes, form B one of its envelopes, data "" one of the empty failure values',
    hooks: {
      request: (req) => emptyBodyRefused(validatedJsonRequest(req)),
      response: (res, path, _cluster, req) => formB100(validatedJsonAnswer(res, path, req), path),
    },
  },
  {
    id: 'validation-texts-in-words',
    spec: 'allows',
    notes: 'notes §2.3, §4',
    rule: 'Errors: "| rejected request body (example) | code 400, message naming the invalid parameter |" — the texts name the field in words (`Tenant name length must be between 1-128`), which still names it',
    endpoint: 'cluster.tenant.create',
    alsoEndpoints: [
      'cluster.user.create',
      'cluster.acl.create',
      'cluster.connector.create',
      'cluster.topic-rewrite.create',
      'cluster.schema.create',
      'mqtt.auto-subscribe.create',
    ],
    description:
      'refusals of JSON bodies worded as the real ValidatedJson extractor does: "Parameter validation failed: Tenant name length must be between 1-128", "JSON parsing failed: Failed to deserialize the JSON body into the target type: missing field `tenant_name` at line 1 column 2" (code and envelope stay)',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: the message still names the parameter, in words or by its identifier',
    hooks: {
      request: (req) => emptyBodyRefused(validatedJsonRequest(req)),
      response: (res, path, _cluster, req) => validatedJsonAnswer(res, path, req),
    },
  },
  {
    id: 'grpc-wrapped-errors',
    spec: 'allows',
    notes: 'notes §2.4',
    rule: 'Errors: "generic failure of an operation, with a text in `message` or `error`" and the cases give the text only in words ("text that tenant `<tenant_name>` was not found"); the wrapped text contains it',
    endpoint: 'cluster.tenant.update',
    alsoEndpoints: [...META_MUTATIONS].filter((id) => id !== 'cluster.tenant.update'),
    description:
      'refusals of the meta service come wrapped: "Grpc call of the node failed,Grpc status was status: Internal, message: \\"<inner>\\", details: [], metadata: MetadataMap { headers: {} }"',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: the failure text still holds the inner text; checks match it as a substring',
    hooks: { around: grpcWrap },
  },
  {
    id: 'wrong-method-empty-405',
    spec: 'allows',
    notes: 'notes §1.2 (Method mismatch)',
    rule: 'The spec does not say how a method an endpoint does not have is answered',
    endpoint: 'cluster.tenant.create',
    alsoEndpoints: ['cluster.tenant.list', 'cluster.topic.list'],
    description:
      'a wrong method on an existing route answers 405 with an empty body and Allow (axum), after authentication: a remote peer without a token gets 401',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it leaves the answer to a wrong method open',
    hooks: {
      request: async (req, cluster) => {
        const path = pathOf(req.url);
        const routes = endpointsAt(path);
        if (routes.length === 0 || endpointAt(req.method, path) || !routes.some((e) => e.auth === 'token')) return req;
        // The auth layer runs before the method router: a refused peer gets 401, as from the route itself.
        const decision = await cluster.auth.authorize(req.peer, headerOf(req, 'authorization'));
        return decision.ok ? req : { ...req, method: routes[0].method, body: undefined };
      },
      response: (res, path) => (res.status === 405 && endpointsAt(path).length > 0 ? methodNotAllowed(res, path) : res),
    },
  },
  {
    id: 'unknown-path-empty-404',
    spec: 'allows',
    notes: 'notes §1.1, §1.2',
    rule: 'The spec does not say how a path that is no endpoint is answered',
    endpoint: 'root',
    description: 'a path no route matches falls to the static fallback: GET 404 with an empty body, other methods 405 (no ./dist deployed)',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it says nothing about unknown paths',
    hooks: {
      response: (res, path, _cluster, req) => {
        if (res.status !== 404 || endpointsAt(path).length > 0) return res;
        const body = jsonBody(res);
        return isEnvelope(body) && /^no endpoint at /.test(envelopeText(body) ?? '') ? staticFallback(res, req.method) : res;
      },
    },
  },
  {
    id: 'extra-routes',
    spec: 'allows',
    notes: 'notes §11.4, §1.2',
    rule: 'The spec lists the endpoints it describes; it does not forbid others',
    endpoint: 'mqtt.message.send',
    alsoEndpoints: ['mqtt.message.read'],
    description:
      'routes beyond the spec: /api/cluster/message/send|read (besides the spec\'s paths) and GET /debug/pprof/flamegraph ("pprof is disabled…"); the MCP routes are the mcp-server switch',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: extra paths do not change the endpoints it describes',
    hooks: {
      request: (req) => {
        const path = pathOf(req.url);
        if (MESSAGE_ALIASES[path]) return withPath(req, MESSAGE_ALIASES[path]);
        return path === PPROF_PATH ? toNowhere(req) : req;
      },
      response: (res, path, _cluster, req) => (path === PPROF_PATH ? pprofAnswer(res, req.method) : res),
    },
  },
  {
    id: 'sort-lenient',
    spec: 'allows',
    notes: 'notes §11.7, §3',
    rule: 'Common list parameters: "| sort_field | string | no | sort field (the allowed fields are listed per endpoint) |", "| sort_by | string | no | `asc` or `desc` |" — neither the default direction nor the answer to other values is given',
    endpoint: 'cluster.user.list',
    alsoEndpoints: ['cluster.tenant.list', 'cluster.topic.list', 'cluster.acl.list', 'mqtt.client.list'],
    description:
      'lists ignore an unknown sort_field (base order kept) and sort descending unless sort_by is exactly "asc" (absent included)',
    checks: [],
    caught: false,
    reason:
      'allowed by the spec: it lists the values without saying what others do or which direction is the default. The simulator reads unknown fields and other sort_by values the same way (decisions); this switch differs in an absent sort_by (descending; the decision says ascending: INFO)',
    hooks: {
      validation: (input, cx) => {
        const list = cx.endpoint.list;
        if (!list) return input;
        const { sort_field: field, sort_by: by, ...rest } = input.raw;
        if (typeof field !== 'string' || !list.sortFields.includes(field)) return { specs: input.specs, raw: rest };
        return { specs: input.specs, raw: { ...rest, sort_field: field, sort_by: by === 'asc' ? 'asc' : 'desc' } };
      },
    },
  },
  {
    id: 'connector-names-global',
    spec: 'allows',
    notes: 'notes §11.9, §4.5',
    rule: 'Resources, Connector: "| connector_name | string | name |" — unlike ACL rules ("unique within the tenant") the spec gives no scope for connector names',
    endpoint: 'cluster.connector.create',
    alsoEndpoints: ['cluster.connector.delete'],
    description:
      'connector names are unique across tenants: a create with a name another tenant uses fails "Connector [<name>] already exist"; a delete finds the connector by name whatever tenant it names',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it does not say connector names are per tenant',
    hooks: {
      around: async (params, next, cx) => {
        const id = cx.endpoint.id;
        if (id !== 'cluster.connector.create' && id !== 'cluster.connector.delete') return next(params);
        const name = String(params.connector_name);
        const elsewhere = cx.cluster.connectors.all().find((c) => c.connector_name === name && c.tenant !== params.tenant);
        if (!elsewhere) return next(params);
        if (id === 'cluster.connector.create') throw failed(`Connector [${name}] already exist`);
        return cx.cluster.connectors.get(String(params.tenant), name) ? next(params) : next({ ...params, tenant: elsewhere.tenant });
      },
    },
  },
  {
    id: 'tenant-update-clears-desc',
    spec: 'allows',
    notes: 'notes §11.12, §4.2',
    rule: 'Endpoints, Tenants: "**POST /api/cluster/tenant/update**. Body: `tenant_name` (required, 1-128), `desc` (optional, at most 500), `config` (optional; when omitted the existing quota stays)." — only for config does it say an omitted value stays',
    endpoint: 'cluster.tenant.update',
    description: 'tenant update without desc sets the description to ""',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it promises that an omitted config keeps the quota, and says nothing of an omitted desc',
    hooks: {
      validation: validationOn('cluster.tenant.update', ({ specs, raw }) => ({
        specs,
        raw: raw.desc === undefined || raw.desc === null ? { ...raw, desc: '' } : raw,
      })),
    },
  },
  {
    id: 'idempotent-deletes',
    spec: 'allows',
    notes: 'notes §11.12, §4.2, §4.4, §4.6',
    rule: 'The spec gives no error case for deleting a tenant, ACL rule, blacklist entry or schema binding that does not exist',
    endpoint: 'cluster.tenant.delete',
    alsoEndpoints: ['cluster.acl.delete', 'cluster.blacklist.delete', 'cluster.schema-bind.delete'],
    description: 'deleting an unknown tenant, ACL rule, blacklist entry or schema binding succeeds',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: no error case is given for these deletes',
    hooks: {
      around: async (params, next, cx) => {
        if (
          !['cluster.tenant.delete', 'cluster.acl.delete', 'cluster.blacklist.delete', 'cluster.schema-bind.delete'].includes(
            cx.endpoint.id,
          )
        )
          return next(params);
        try {
          return await next(params);
        } catch (e) {
          if (e instanceof OperationError && e.kind === 'failed' && notFound.test(e.message)) return 'success';
          throw e;
        }
      },
    },
  },
  {
    id: 'schema-create-needs-desc',
    spec: 'allows',
    notes: 'notes §11.13, §4.6',
    rule: 'Endpoints: "| POST | /api/cluster/schema/create, /schema/delete, /schema-bind/create, /schema-bind/delete |" is in the table of endpoints "whose request and response shapes are given only by method and path"',
    endpoint: 'cluster.schema.create',
    description: 'schema create refuses a body without desc (a required field of the request struct)',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it does not show the request of schema create',
    hooks: {
      validation: validationOn('cluster.schema.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'desc', (p) => ({ ...p, required: true })),
        raw,
      })),
    },
  },
  {
    id: 'topic-create-needs-source',
    spec: 'allows',
    notes: 'notes §4.3',
    rule: 'Endpoints: "| POST | /api/cluster/topic/create |" is in the table of endpoints "whose request and response shapes are given only by method and path"',
    endpoint: 'cluster.topic.create',
    description: 'topic create refuses a body without source ("missing field `source`": a required field of the request struct)',
    checks: [],
    caught: false,
    reason: "allowed by the spec: it does not show the request of topic create (the run sends source, as the real server's own tests do)",
    hooks: {
      validation: validationOn('cluster.topic.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'source', (p) => ({ ...p, required: true })),
        raw,
      })),
    },
  },
  {
    id: 'schema-bind-list-needs-tenant',
    spec: 'allows',
    notes: 'notes §11.13, §4.6',
    rule: 'Endpoints: "| GET | /api/cluster/schema/list, /api/cluster/schema-bind/list |" is in the table of endpoints "whose request and response shapes are given only by method and path"',
    endpoint: 'cluster.schema-bind.list',
    description: 'schema-bind list without tenant answers an empty page (tenant defaults to "")',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it does not show the parameters of the schema-bind list',
    hooks: {
      around: aroundOn('cluster.schema-bind.list', async (params, next) =>
        params.tenant === undefined ? { data: [], total_count: 0 } : next(params),
      ),
    },
  },
  {
    id: 'health-cluster-placeholder',
    spec: 'allows',
    notes: 'notes §11.16, §4.12, §7',
    rule: 'Endpoints, Health: "**GET /health/cluster**: deep check of the cluster; response body: not shown."',
    endpoint: 'health.cluster',
    description:
      '/health/cluster is a placeholder: {status "ok", check_type "cluster", message "health check placeholder"} whatever the cluster\'s state',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it does not show the body',
    hooks: {
      around: aroundOn('health.cluster', async () => ({ status: 'ok', check_type: 'cluster', message: 'health check placeholder' })),
    },
  },
  {
    id: 'mq9-real-texts',
    spec: 'allows',
    notes: 'notes §11.17, §4.10',
    rule: 'Endpoints, mq9: "otherwise an error stating that the component is not running is returned"',
    endpoint: 'mq9.mail.list',
    alsoEndpoints: ['mq9.agent.list'],
    description: 'mq9 lists while the component is off fail with "nats-broker is not running"',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: the text states that the component is not running',
    hooks: {
      around: async (params, next, cx) => {
        if (!cx.endpoint.id.startsWith('mq9.')) return next(params);
        try {
          return await next(params);
        } catch (e) {
          if (e instanceof OperationError && /not running/.test(e.message)) throw new OperationError(e.kind, 'nats-broker is not running');
          throw e;
        }
      },
    },
  },
  {
    id: 'status-meta-keys-indexed',
    spec: 'allows',
    notes: 'notes §11.19, §4.1',
    rule: 'Resources, SwitchCluster status: "| meta | a Raft state object; in one form it is a map from group name (`mqtt`, `offset`, `meta`) to such an object |" — read as a map keyed by group name, the names in parentheses as examples',
    endpoint: 'cluster.info',
    alsoEndpoints: ['cluster.status'],
    description: 'status/info meta keys are "{group}_{index}": metadata_0, offset_0, data_0 (the simulator\'s mqtt group shows as mqtt_0)',
    checks: [],
    caught: false,
    reason: 'allowed by the spec as read here: the map is keyed by group name; the contract accepts any keys',
    hooks: {
      around: async (params, next, cx) => {
        const data = await next(params);
        if ((cx.endpoint.id !== 'cluster.info' && cx.endpoint.id !== 'cluster.status') || data === null || typeof data !== 'object')
          return data;
        const meta = (data as Obj).meta as Obj | undefined;
        if (!meta || typeof meta !== 'object') return data;
        return { ...(data as Obj), meta: Object.fromEntries(Object.entries(meta).map(([k, v]) => [realGroupName(k), v])) };
      },
    },
  },
  {
    id: 'config-set-extra-types',
    spec: 'allows',
    notes: 'notes §11.26, §4.1',
    rule: 'Endpoints, Configuration: "Allowed `config_type` values and the `config` fields:" lists eight types; the spec does not say other types are refused',
    endpoint: 'cluster.config.set',
    alsoEndpoints: ['cluster.config.get'],
    description: "config set also takes MetaRuntime (shown in config get's meta_runtime) and KafkaDynamic",
    checks: [],
    caught: false,
    reason:
      'allowed by the spec: accepting more types than it lists breaks no rule (the current check enum.config_type refuses only an invented type)',
    hooks: {
      validation: validationOn('cluster.config.set', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'config_type', (p) => ({ ...p, enum: [...(p.enum ?? []), ...EXTRA_CONFIG_TYPES] })),
        raw,
      })),
      around: async (params, next, cx) => {
        if (cx.endpoint.id === 'cluster.config.set' && (EXTRA_CONFIG_TYPES as readonly string[]).includes(String(params.config_type))) {
          const type = params.config_type as (typeof EXTRA_CONFIG_TYPES)[number];
          let section: unknown;
          try {
            section = JSON.parse(String(params.config));
          } catch {
            throw failed(`Failed to update in-memory config: ${jsonSyntaxError(String(params.config))}`);
          }
          if (section === null || typeof section !== 'object' || Array.isArray(section))
            throw failed(`Failed to update in-memory config: invalid type: expected struct ${type}`);
          const stored = extraConfig.get(cx.cluster) ?? {};
          extraConfig.set(cx.cluster, { ...stored, [type]: { ...(stored[type] ?? {}), ...(section as Obj) } });
          return 'success';
        }
        const out = await next(params);
        const meta = extraConfig.get(cx.cluster)?.MetaRuntime;
        if (cx.endpoint.id !== 'cluster.config.get' || !meta || out === null || typeof out !== 'object') return out;
        return { ...(out as Obj), meta_runtime: { ...((out as Obj).meta_runtime as Obj), ...meta } };
      },
    },
  },
  {
    id: 'topic-create-idempotent',
    spec: 'allows',
    notes: 'notes §11.28, §4.3',
    rule: 'Endpoints: "| POST | /api/cluster/topic/create |" is in the table of endpoints "whose request and response shapes are given only by method and path"',
    endpoint: 'cluster.topic.create',
    description:
      'creating a topic that exists succeeds and answers a freshly made topic (new topic_id, never stored); the stored topic is unchanged',
    checks: [],
    caught: false,
    reason: "allowed by the spec: it does not show topic create's answers",
    hooks: {
      around: aroundOn('cluster.topic.create', async (params, next, cx) => {
        const existing = cx.cluster.topics.get(String(params.tenant), String(params.topic_name));
        if (!existing) return next(params);
        const id = freshTopicId(cx.cluster);
        const partition = Math.max(1, Number(params.partition ?? 1));
        const view = cx.cluster.topics.view(existing);
        return {
          ...view,
          topic_id: id,
          storage_type: params.storage_type ?? view.storage_type,
          source: params.source ?? view.source,
          partition,
          replication: Math.max(1, Number(params.replication ?? 1)),
          storage_name_list: Array.from({ length: partition }, (_, p) => `${id}-${p}`),
          mark_delete: false,
          create_time: Math.floor(cx.cluster.now() / 1000),
        };
      }),
    },
  },
  {
    id: 'rate-limit-delays',
    spec: 'allows',
    notes: 'notes §11.14, §5 (rate_limit_middleware)',
    rule: 'Limits: "| `max_admin_http_uri_rate` | default 50 requests per second for admin HTTP endpoints |" and "Behaviour of the service when the admin request rate is exceeded: not shown."',
    endpoint: 'cluster.tenant.list',
    description:
      'rate limiting per exact path on every path at cluster_limit.max_network_connection_rate (default 10000/s; max_admin_http_uri_rate is never read), excess requests queued until their slot instead of refused; a rate of 0 answers 429 "Rate limit value must be greater than 0, parameter name: network_connection_rate"',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it does not show what happens beyond the rate, and a queued request is still answered',
    hooks: {
      rateLimit: {
        perPathRate: (cluster) => cluster.config.current().ClusterLimit.max_network_connection_rate,
        refusal: { status: 429, text: 'Rate limit value must be greater than 0, parameter name: network_connection_rate' },
      },
    },
  },
  {
    id: 'segment-detail-unknown-null',
    spec: 'allows',
    notes: 'notes §11.29, §4.11',
    rule: 'Endpoints, Storage engine: "**POST /api/storage-engine/segment/detail**. Body: `shard_name` (string, required), `segment_seq` (u32, required). Response `data`: {segment, segment_meta (optional), replicas (array of replica state)}." — no error case is given for an unknown segment',
    endpoint: 'storage.segment.detail',
    description: 'segment detail of an unknown shard or segment answers code 0 with data null',
    checks: [],
    caught: false,
    reason: 'allowed by the spec: it gives no answer for an unknown segment',
    hooks: {
      around: aroundOn('storage.segment.detail', async (params, next) => {
        try {
          return await next(params);
        } catch (e) {
          if (e instanceof OperationError && e.kind === 'failed' && /does not exist/.test(e.message)) return null;
          throw e;
        }
      }),
    },
  },
];
