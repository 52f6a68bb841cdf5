import { COMMON_LIST_PARAMS } from '../../contract/core/common.ts';
import type { EndpointContract, JsonSchema, ParamSpec } from '../../contract/core/types.ts';
import { IndexedList, type ListVersion } from '../model/api/indexed-list.ts';
import { applyListQuery } from '../model/api/list-query.ts';
import { VersionedRows } from '../model/api/versioned-rows.ts';
import { OperationError } from '../model/errors/operation-error.ts';
import { validateFields, type ParamOrigin } from '../model/api/validate-params.ts';
import type { Cluster } from '../model/cluster/cluster.ts';
import { metaWritePolicy } from '../model/nodes/meta-write-gate.ts';
import { PathRateLimiter } from '../model/auth/rate-limiter.ts';
import { AppliedDeviations } from './hooks/applied-deviations.ts';
import type { Deviation, ExtraRoute } from './hooks/deviation.ts';
import { bodyText, headerOf, type ApiRequest, type ApiResponse } from './core/api-exchange.ts';
import { failureEnvelope, FAILURE_CODE, successEnvelope, type EnvelopeForm } from './envelope.ts';
import { RawBody, WithStatus, type Handler, type PeerReply, type PeerTransport } from './core/handler-types.ts';
import { bodyBytes, isJsonBodyType, MAX_BODY_BYTES, parseJsonBody, parseUrl } from './core/parse-request.ts';
import { failureWriter, successWriter, verifiedWriter, type BodyWriter } from './response-writers.ts';
import { ResponseCache, responseCacheFromEnv, type CachedResponse } from './response-cache.ts';
import { ListRequestMemo, type ResolvedListRequest } from './list-request-memo.ts';
import { Router } from './router.ts';
import { BUILT_IN_API, checkHandlers, type ServedApi } from './served-api.ts';

/** One HTTP request as the app sees it, independent of sockets. */
export interface AdminAppOptions {
  /** Envelope form of every answer except login and 401 (always form A). */
  envelope?: EnvelopeForm;
  /**
   * `manual` (default): virtual time moves only when the caller advances it (tests, chaos, replay).
   * A wall clock (the live mode of `mqsim serve`; SYSTEM_WALL_CLOCK in sim/io/serve/wall-clock.ts):
   * before each request, virtual time is advanced to epoch + wall time elapsed since start.
   */
  clock?: 'manual' | WallClock;
  /** Transport to other nodes; defaults to calling this app in-process. */
  peers?: PeerTransport;
  /** Called on every unexpected exception (a bug); the client gets a 500 envelope. */
  onInternalError?: (error: unknown, request: ApiRequest) => void;
  /**
   * Deliberately broken behaviours to switch on, to prove the conformance suites catch them, or a
   * dialect's behaviours (sim/dialects), in the order their hooks compose; never set in normal use.
   * Given resolved: callers turn the catalogue's ids into switches with resolveDeviations
   * (sim/switches/resolve-switches.ts), which throws on unknown ids.
   */
  deviations?: readonly Deviation[];
  /**
   * Called after every request whose handling changed the model (a write that recorded state
   * changes, answered or not), with what is needed to apply it again at the same virtual time:
   * `mqsim serve --state` journals these and replays them on restart (sim/io/state). When it
   * returns a promise, the answer waits for it (the journal's record is on disk); if it rejects,
   * the request gets no answer (`respond` rejects with its error): the write was not made durable.
   */
  onModelWrite?: (write: ModelWrite) => void | Promise<void>;
  /** The endpoints served and their handlers (default: the built-in API). */
  api?: ServedApi;
  /**
   * Writes every body with its compiled writer and with JSON.stringify and throws when they differ
   * (response-writers.ts), and computes every cached list response afresh and throws when it differs
   * (response-cache.ts). Default: on when the environment has MQSIM_VERIFY_WRITERS=1.
   */
  verifyWriters?: boolean;
  /**
   * Cache list responses per query until their records change (response-cache.ts); default on, off with
   * MQSIM_RESPONSE_CACHE=0 (or its former name MQSIM_KEEP_ANSWERS=0). Never with deviations switched on
   * (a switch may change a body on purpose).
   */
  responseCache?: boolean;
}

/**
 * Wall time, for the live mode only: given by the I/O side (sim/io/serve/wall-clock.ts), so this
 * deterministic layer never reads the system clock or sets a timer itself.
 */
export interface WallClock {
  /** Wall time now, Unix ms. */
  now(): number;
  /** Resolves once `ms` of wall time have passed. */
  sleep(ms: number): Promise<void>;
}

/** A request that changed the model, as `onModelWrite` reports it. */
export interface ModelWrite {
  /** Virtual time at which it was handled (after the clock sync), Unix ms. */
  at: number;
  nodeId: number;
  method: string;
  url: string;
  /** The request body as sent (JSON text), if any. */
  body?: string;
  status: number;
  /** The answer's body, to check that a replay answers the same. */
  answer: string;
}

/**
 * POSTs that grow the trace without changing the model, so are not model writes: reads that ask other
 * nodes (their answers are recorded; not replayable offline, they need the other listeners), and
 * login (it records the attempt; a token is checked by its signature, not looked up).
 */
const NOT_MODEL_WRITES = new Set(['storage.segment.detail', 'storage.segment.replica-state', 'auth.login']);

const JSON_TYPE = 'application/json; charset=utf-8';

/** A versioned list query: its cache key, the version its records are at, and the response cached at that version, if any. */
interface CacheLookup {
  key: string;
  listVersion: ListVersion;
  cached: CachedResponse | undefined;
}

/** Field names of a list's records, per record schema (read once, not per request). */
const recordFieldsCache = new WeakMap<object, string[] | undefined>();

function recordFieldsOf(schema: JsonSchema | undefined): string[] | undefined {
  if (!schema) return undefined;
  if (recordFieldsCache.has(schema)) return recordFieldsCache.get(schema);
  const props = schema.properties as Record<string, unknown> | undefined;
  const fields = props ? Object.keys(props) : undefined;
  recordFieldsCache.set(schema, fields);
  return fields;
}

/**
 * The HTTP layer without sockets: parse → authenticate → rate-limit → validate against the contract
 * → call the model through the endpoint's handler → wrap in the envelope. Business rules live in
 * the model; this layer only maps requests and outcomes.
 */
export class AdminApp {
  readonly envelope: EnvelopeForm;
  private readonly router: Router;
  private readonly api: ServedApi;
  private readonly peers: PeerTransport;
  /** The wall clock followed in live mode; none on the manual clock. */
  private wall: WallClock | undefined;
  private wallStart = 0;
  /** Virtual time that `wallStart` maps to in live mode (the epoch, or where a resumed run stopped). */
  private virtualStart: number;
  private readonly deviations: AppliedDeviations;
  /** A switch's queuing rate limit in place of the 429 limiter, and its per-path queues. */
  private readonly queuedLimit: ReturnType<AppliedDeviations['rateLimit']>;
  private readonly queueLimiter: PathRateLimiter | undefined;
  /** Compiled body writers, except when a switch is on: a deviation may change a body's shape on purpose. */
  private readonly compiledWriters: boolean;
  private readonly verifyWriters: boolean;
  /** List responses cached until their records change; absent when off. */
  private readonly responseCache: ResponseCache | undefined;
  /** List requests served before and what they resolved to, to answer them from the cache; with the response cache only. */
  private readonly listRequestMemo: ListRequestMemo | undefined;

  constructor(
    readonly cluster: Cluster,
    private readonly options: AdminAppOptions = {},
  ) {
    this.api = options.api ?? BUILT_IN_API;
    checkHandlers(this.api);
    this.router = new Router(this.api.endpoints);
    this.envelope = options.envelope ?? 'A';
    this.virtualStart = cluster.options.epochMs;
    if (options.clock !== undefined && options.clock !== 'manual') this.followWallClockFrom(options.clock, this.virtualStart);
    this.peers = options.peers ?? new InProcessPeers(this);
    this.deviations = new AppliedDeviations(options.deviations ?? [], cluster);
    this.compiledWriters = (options.deviations ?? []).length === 0;
    this.verifyWriters = options.verifyWriters ?? process.env.MQSIM_VERIFY_WRITERS === '1';
    const cache = options.responseCache ?? responseCacheFromEnv();
    this.responseCache = cache && this.compiledWriters ? new ResponseCache() : undefined;
    this.listRequestMemo = this.responseCache ? new ListRequestMemo() : undefined;
    this.queuedLimit = this.deviations.rateLimit();
    if (this.queuedLimit) {
      const policy = this.queuedLimit;
      this.queueLimiter = new PathRateLimiter(() => policy.perPathRate(cluster));
    }
  }

  /** Live mode: maps wall time elapsed since start onto virtual time, running the events that fall due. */
  syncClock(): void {
    if (!this.wall) return;
    const target = this.virtualStart + (this.wall.now() - this.wallStart);
    if (target > this.cluster.now()) this.cluster.engine.runUntil(target);
  }

  /**
   * Switches to live mode from now on, following `wall`, with wall time "now" mapped to `virtualMs`: a
   * resumed run (`mqsim serve --state`) replays its history in manual mode, then continues where it stopped.
   */
  followWallClockFrom(wall: WallClock, virtualMs: number): void {
    this.wall = wall;
    this.wallStart = wall.now();
    this.virtualStart = virtualMs;
  }

  /** The answer to one request (see respond). */
  handle(req: ApiRequest): Promise<ApiResponse> {
    const answer = this.respond(req);
    return answer instanceof Promise ? answer : Promise.resolve(answer);
  }

  /**
   * The answer to one request: given at once, without a promise, when it is a remembered list request
   * whose cached response still holds (answerFromCache); otherwise through the whole pipeline. Listeners
   * call this and wait only when they must.
   */
  respond(req: ApiRequest): ApiResponse | Promise<ApiResponse> {
    return this.answerFromCache(req) ?? this.handleInFull(req);
  }

  private async handleInFull(req: ApiRequest): Promise<ApiResponse> {
    let response: ApiResponse;
    let journaled: void | Promise<void> = undefined;
    try {
      this.syncClock();
      const at = this.cluster.now();
      const outcome = { changedModel: false };
      const before = this.deviations.request(req);
      const request = before instanceof Promise ? await before : before;
      response = this.deviations.response(req, await this.dispatch(request, outcome));
      if (outcome.changedModel && this.options.onModelWrite) {
        const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : req.body.toString('utf8');
        journaled = this.options.onModelWrite({
          at,
          nodeId: req.nodeId,
          method: req.method,
          url: req.url,
          ...(body !== undefined && body.length > 0 ? { body } : {}),
          status: response.status,
          answer: response.body,
        });
      }
    } catch (error) {
      return this.internalError(error, req);
    }
    // Outside the catch: a write that could not be made durable is not answered at all (not a 500, not a success).
    if (journaled instanceof Promise) await journaled;
    return response;
  }

  /** The 500 answer to a request whose handling threw unexpectedly (a bug), reported to onInternalError. */
  private internalError(error: unknown, req: ApiRequest): ApiResponse {
    this.options.onInternalError?.(error, req);
    const body = failureEnvelope(this.envelope, 500, `internal server error: ${(error as Error)?.message ?? String(error)}`);
    return this.json(500, body, {}, this.failureWriter(this.envelope));
  }

  /**
   * The cached response of a remembered list request (ListRequestMemo: a body-less GET, or a POST list
   * with its JSON body, served before), when the list's records are still at the version it was computed at.
   * The request is not parsed, routed or validated again and nothing is awaited; it is still
   * authenticated (a peer that needs no token; a token to verify takes the full path) and counted
   * by the rate limit, a POST's acceptance is recorded, and the list's handler, a read, still gives
   * the list version. In any other case (the handler throwing included: the full path maps its refusal) it
   * returns undefined before anything observable happened, and the request takes the full path.
   */
  private answerFromCache(req: ApiRequest): ApiResponse | undefined {
    const resolved = this.listRequestMemo?.get(req);
    if (!resolved) return undefined;
    const { endpoint, params, key } = resolved;
    if (endpoint.auth === 'token' && !this.cluster.auth.needsNoToken(req.peer)) return undefined;
    // A POST that may write metadata answers only through the meta group (invoke).
    if (endpoint.method === 'POST' && metaWritePolicy(endpoint) !== 'none') return undefined;
    const node = this.cluster.nodes.get(req.nodeId);
    if (!node) return undefined;
    try {
      this.syncClock();
      const traceBefore = this.cluster.engine.trace.length;
      let data: unknown;
      try {
        data = this.api.handlers[endpoint.id]({ cluster: this.cluster, node, params, endpoint, peers: this.peers });
      } catch {
        return undefined;
      }
      if (data instanceof Promise) {
        // Not a list whose answer is at hand: the full path calls the handler again and waits for it.
        data.catch(() => undefined);
        return undefined;
      }
      if (!(data instanceof IndexedList || data instanceof VersionedRows)) return undefined;
      const listVersion = listVersionOf(data);
      const cached = listVersion && this.responseCache!.get(key, listVersion);
      if (!listVersion || !cached) return undefined;
      if (this.verifyWriters) this.verifyMemoizedRequest(req, resolved, traceBefore);
      // From here on the answer is given here.
      const limited = this.rateLimited(endpoint.path);
      if (limited) return limited;
      // An accepted POST is recorded, as in full (invoke).
      if (endpoint.method === 'POST') this.cluster.engine.record('api.accepted', { path: endpoint.path });
      if (!this.verifyWriters) return this.cachedResponse(cached);
      return this.cachedListResponse(endpoint, { key, listVersion, cached }, this.pageOf(endpoint, params, data));
    } catch (error) {
      return this.internalError(error, req);
    }
  }

  /**
   * Verification mode: a remembered request resolves now as it did when it was remembered (route,
   * validated parameters, cache key), and the handler that gave the list version changed nothing.
   */
  private verifyMemoizedRequest(req: ApiRequest, resolved: ResolvedListRequest, traceBefore: number): void {
    if (this.cluster.engine.trace.length !== traceBefore)
      throw new Error(`the list handler of ${resolved.endpoint.id} recorded trace entries: a list read must change nothing`);
    const { path, query } = parseUrl(req.url);
    const route = this.router.match(req.method, path);
    const [raw, origin]: [Record<string, unknown>, ParamOrigin] =
      req.method === 'POST' ? [JSON.parse(bodyText(req)) as Record<string, unknown>, 'body'] : [query, 'query'];
    const params = route.kind === 'found' ? this.validatedParams(route.endpoint, route.endpoint.params, raw, origin) : undefined;
    const key = params && ResponseCache.keyOf(resolved.endpoint.id, req.nodeId, this.envelope, params);
    if (route.kind !== 'found' || route.endpoint !== resolved.endpoint || key !== resolved.key)
      throw new Error(`the remembered list request ${req.method} ${req.url} resolves differently now than when it was remembered`);
  }

  private json(status: number, body: unknown, extra: Record<string, string> = {}, write: BodyWriter = JSON.stringify): ApiResponse {
    const res: ApiResponse = { status, headers: this.jsonHeaders(extra), body: write(body) };
    const code = (body as { code?: unknown }).code;
    if (this.compiledWriters && typeof code === 'number') res.code = code;
    return res;
  }

  /** A cached list response: a success envelope (the cache holds only those, made with no switch on), so code 0. */
  private cachedResponse(cached: CachedResponse): ApiResponse {
    return { status: 200, headers: this.jsonHeaders(), body: cached.body, bytes: cached.bytes, code: 0 };
  }

  /** Headers of a JSON answer, made per request (the virtual time moves). */
  private jsonHeaders(extra: Record<string, string> = {}): Record<string, string> {
    return { 'content-type': JSON_TYPE, 'x-mqsim-virtual-time': String(this.cluster.now()), ...extra };
  }

  /** The compiled writer of a success of `endpoint` in `form` (checked against JSON.stringify in verification mode). */
  private successWriter(endpoint: EndpointContract, form: EnvelopeForm): BodyWriter {
    if (!this.compiledWriters) return JSON.stringify;
    const writer = successWriter(endpoint, form);
    return this.verifyWriters ? verifiedWriter(writer, `${endpoint.id} (form ${form})`) : writer;
  }

  private failureWriter(form: EnvelopeForm): BodyWriter {
    if (!this.compiledWriters) return JSON.stringify;
    const writer = failureWriter(form);
    return this.verifyWriters ? verifiedWriter(writer, `the failure envelope (form ${form})`) : writer;
  }

  private fail(status: number, code: number, text: string, extra: Record<string, string> = {}): ApiResponse {
    return this.json(status, failureEnvelope(this.envelope, code, text), extra, this.failureWriter(this.envelope));
  }

  /** The 401 answer, always form A as the spec gives it. */
  private unauthorized(message: string): ApiResponse {
    return this.json(401, { code: 401, message, data: null }, {}, this.failureWriter('A'));
  }

  private async dispatch(req: ApiRequest, outcome: { changedModel: boolean }): Promise<ApiResponse> {
    const method = req.method.toUpperCase();
    const { path, query } = parseUrl(req.url);
    if (this.queuedLimit) {
      const refused = await this.waitForSlot(path);
      if (refused) return refused;
    }
    const extra = this.deviations.route(method, path);
    if (extra) return this.serveExtraRoute(extra, req, path, outcome);
    const route = this.router.match(method, path);
    if (route.kind === 'unknown-path')
      return this.fail(404, 404, `no endpoint at ${path}; see GET /api/status or mqsim openapi for the list of endpoints`);
    if (route.kind === 'wrong-method') {
      return this.fail(405, 400, `method ${method} is not allowed on ${path}; use ${route.allowed.join(' or ')}`, {
        allow: route.allowed.join(', '),
      });
    }
    const endpoint = route.endpoint;

    if (endpoint.auth === 'token') {
      const decision = await this.cluster.auth.authorize(req.peer, headerOf(req, 'authorization'));
      if (!decision.ok) return this.unauthorized(decision.message);
    }

    const limited = this.rateLimited(path);
    if (limited) return limited;

    const body = req.body === undefined ? undefined : bodyBytes(req.body);
    if (req.bodyTooLarge || (body && body.size > MAX_BODY_BYTES))
      return this.fail(413, 400, `request body exceeds the limit of ${MAX_BODY_BYTES} bytes`);
    const contentType = headerOf(req, 'content-type');
    if (body && body.size > 0 && !isJsonBodyType(contentType)) {
      return this.fail(
        415,
        400,
        `unsupported Content-Type ${JSON.stringify(contentType)}: send the body as JSON with Content-Type: application/json`,
      );
    }
    const parsed = this.parsedBody(req, body?.text);
    if (!parsed.ok) return this.fail(400, 400, parsed.message);
    if (parsed.value !== undefined && (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value))) {
      return this.fail(400, 400, 'request body must be a JSON object');
    }
    const bodyFields = (parsed.value ?? {}) as Record<string, unknown>;

    return this.invoke(endpoint, method, query, bodyFields, req, outcome);
  }

  /**
   * The request body parsed: the value an in-process caller handed along with its text
   * (ApiRequest.bodyValue), else the text parsed. Not with switches on: a request hook may rewrite
   * the text. Verification mode parses the text anyway and fails on a handed value that is not what
   * the text parses to.
   */
  private parsedBody(req: ApiRequest, text: (() => string) | undefined): ReturnType<typeof parseJsonBody> {
    if (req.bodyValue === undefined || text === undefined || !this.compiledWriters) return parseJsonBody(text?.());
    if (this.verifyWriters) {
      const parsed = parseJsonBody(text());
      if (!parsed.ok || JSON.stringify(parsed.value) !== JSON.stringify(req.bodyValue))
        throw new Error(`the body value handed along with ${req.method} ${req.url} is not what its text parses to`);
    }
    return { ok: true, value: req.bodyValue };
  }

  /**
   * A route a switch brings beyond the contract (deviation.ts ExtraRoute): authenticated like the
   * real server's /api nest when it says so, rate-limited like every /api path, and journaled as a
   * model write when a POST changed the model.
   */
  private async serveExtraRoute(
    route: ExtraRoute,
    req: ApiRequest,
    path: string,
    outcome: { changedModel: boolean },
  ): Promise<ApiResponse> {
    if (route.auth === 'token') {
      const decision = await this.cluster.auth.authorize(req.peer, headerOf(req, 'authorization'));
      if (!decision.ok) return this.unauthorized(decision.message);
    }
    const limited = this.rateLimited(path);
    if (limited) return limited;
    const traceBefore = this.cluster.engine.trace.length;
    try {
      const res = await route.handle(req, { cluster: this.cluster, nodeId: req.nodeId, peers: this.peers });
      if (req.method.toUpperCase() === 'POST' && this.cluster.engine.trace.length > traceBefore) outcome.changedModel = true;
      return { ...res, headers: { 'x-mqsim-virtual-time': String(this.cluster.now()), ...res.headers } };
    } catch (e) {
      if (e instanceof OperationError)
        return e.kind === 'invalid' ? this.fail(400, 400, e.message) : this.fail(200, FAILURE_CODE[this.envelope], e.message);
      throw e;
    }
  }

  /**
   * A switch's queuing rate limit (deviation.ts `rateLimit`), before routing and authentication as a
   * middleware wrapping the whole router: the request waits for its slot on its path. Live mode waits
   * on the wall clock; manual mode runs the simulation forward to the slot (deterministic).
   */
  private async waitForSlot(path: string): Promise<ApiResponse | undefined> {
    const policy = this.queuedLimit!;
    if (!(policy.perPathRate(this.cluster) > 0)) {
      return {
        status: policy.refusal.status,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'x-mqsim-virtual-time': String(this.cluster.now()) },
        body: policy.refusal.text,
      };
    }
    const waitMs = this.queueLimiter!.reserve(path, this.cluster.now());
    if (waitMs <= 0) return undefined;
    if (this.wall) {
      await this.wall.sleep(waitMs);
      this.syncClock();
    } else {
      this.cluster.engine.runUntil(this.cluster.now() + waitMs);
    }
    return undefined;
  }

  /** The 429 answer when an /api path is over max_admin_http_uri_rate at this virtual second. */
  private rateLimited(path: string): ApiResponse | undefined {
    if (this.queuedLimit || !path.startsWith('/api/')) return undefined;
    const waitMs = this.cluster.auth.rateLimiter.take(path, this.cluster.now());
    if (waitMs <= 0) return undefined;
    const rate = this.cluster.config.current().ClusterLimit.max_admin_http_uri_rate;
    return this.fail(
      429,
      429,
      `rate limit exceeded: at most ${rate} requests per second on ${path} (max_admin_http_uri_rate); retry after ${waitMs} ms`,
      {
        'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
      },
    );
  }

  private async invoke(
    endpoint: EndpointContract,
    method: string,
    query: Record<string, string | string[]>,
    bodyFields: Record<string, unknown>,
    req: ApiRequest,
    outcome: { changedModel: boolean },
  ): Promise<ApiResponse> {
    const node = this.cluster.nodes.get(req.nodeId);
    if (!node) return this.fail(503, FAILURE_CODE[this.envelope], `node ${req.nodeId} is not part of this cluster`);
    const read = this.readParams(endpoint, method, query, bodyFields);
    if (!('params' in read)) return read;
    const { params, fromQuery } = read;

    const handler: Handler = this.api.handlers[endpoint.id];
    let result: unknown;
    // A metadata write goes through the meta consensus group: refused before it changes anything
    // while that group has no leader.
    const metaPolicy = metaWritePolicy(endpoint);
    const metaRefusal = metaPolicy === 'check-then-commit' ? this.cluster.raft.metaWriteRefusal() : null;
    if (metaRefusal !== null) {
      this.cluster.engine.record('api.refused', { path: endpoint.path, kind: 'unavailable', message: metaRefusal });
      return this.fail(200, FAILURE_CODE[this.envelope], metaRefusal);
    }
    const traceBefore = this.cluster.engine.trace.length;
    // A versioned list's response to this query, when cached from records at the same version (response-cache.ts).
    let lookup: CacheLookup | undefined;
    try {
      result = await this.deviations.around(endpoint, params, async (p, e = endpoint) => {
        const data = await handler({ cluster: this.cluster, node, params: p, endpoint: e, peers: this.peers });
        if (!e.list) return data;
        if (!Array.isArray(data) && !(data instanceof IndexedList) && !(data instanceof VersionedRows))
          throw new Error(`list handler ${e.id} returned ${typeof data}, not an array, an IndexedList or VersionedRows`);
        const listVersion = listVersionOf(data);
        if (listVersion && this.responseCache) {
          const key = ResponseCache.keyOf(e.id, node.id, this.envelope, p);
          lookup = { key, listVersion, cached: this.responseCache.get(key, listVersion) };
          // The same request can next be answered from the cache (the cache comes with no switches on: p and e are params and endpoint).
          if (fromQuery || method === 'POST') this.listRequestMemo?.remember(req, { endpoint: e, params: p, key });
          // Verification computes the page anyway, to compare it with the cached one below.
          if (lookup.cached && !this.verifyWriters) return undefined;
        }
        return this.pageOf(e, p, data);
      });
    } catch (e) {
      if (e instanceof OperationError) {
        if (method === 'POST') this.cluster.engine.record('api.refused', { path: endpoint.path, kind: e.kind, message: e.message });
        if (e.kind === 'invalid') return this.fail(400, 400, e.message);
        return this.fail(200, FAILURE_CODE[this.envelope], e.message);
      }
      throw e;
    }
    if (method === 'POST') {
      const refusal = this.acceptWrite(endpoint, metaPolicy, traceBefore, outcome);
      if (refusal) return refusal;
    }
    return this.resultResponse(endpoint, result, lookup);
  }

  /**
   * A request's validated parameters and where they came from; a 400 response when they are invalid.
   * GET parameters come from the query. The spec shows some listings sending them as a JSON object
   * instead, so a GET whose query names none of its parameters reads them from a JSON body.
   */
  private readParams(
    endpoint: EndpointContract,
    method: string,
    query: Record<string, string | string[]>,
    bodyFields: Record<string, unknown>,
  ): { params: Record<string, unknown>; fromQuery: boolean } | ApiResponse {
    const declared = endpoint.list ? [...endpoint.params, ...COMMON_LIST_PARAMS] : endpoint.params;
    const queryNamesAny = declared.some((p) => p.name in query);
    const fromQuery = method === 'GET' && (queryNamesAny || Object.keys(bodyFields).length === 0);
    const raw = fromQuery ? query : bodyFields;
    const origin = fromQuery ? 'query' : 'body';
    try {
      const checked = this.deviations.validation(endpoint, endpoint.params, raw);
      return { params: this.validatedParams(endpoint, checked.specs, checked.raw, origin), fromQuery };
    } catch (e) {
      if (e instanceof OperationError) return this.fail(400, 400, e.message);
      throw e;
    }
  }

  /**
   * Records an accepted POST. A metadata write that changed the model (it recorded state changes) is an
   * entry of the meta consensus group, answered once committed (the simulation runs forward until then,
   * bounded by raft_write_timeout_sec). A no-op (a node leave without effect) writes nothing.
   * Returns the refusal when the commit fails.
   */
  private acceptWrite(
    endpoint: EndpointContract,
    metaPolicy: ReturnType<typeof metaWritePolicy>,
    traceBefore: number,
    outcome: { changedModel: boolean },
  ): ApiResponse | undefined {
    const changed = this.cluster.engine.trace.length > traceBefore;
    if (changed && !NOT_MODEL_WRITES.has(endpoint.id)) outcome.changedModel = true;
    this.cluster.engine.record('api.accepted', { path: endpoint.path });
    if (!changed || metaPolicy === 'none') return undefined;
    try {
      this.cluster.raft.commitMetaWrite(`api:${endpoint.path}`);
      return undefined;
    } catch (e) {
      if (e instanceof OperationError) return this.fail(200, FAILURE_CODE[this.envelope], e.message);
      throw e;
    }
  }

  /** The response carrying a handler's result, in the shape its kind asks for. */
  private resultResponse(endpoint: EndpointContract, result: unknown, lookup: CacheLookup | undefined): ApiResponse {
    if (result instanceof RawBody) {
      return {
        status: result.status,
        headers: { 'content-type': result.contentType, 'x-mqsim-virtual-time': String(this.cluster.now()) },
        body: result.body,
      };
    }
    if (result instanceof WithStatus)
      return this.json(result.status, successEnvelope(this.envelope, result.data), {}, this.successWriter(endpoint, this.envelope));
    // Login answers in form A whatever the configured form, as the spec shows it.
    if (endpoint.id === 'auth.login') return this.json(200, successEnvelope('A', result), {}, this.successWriter(endpoint, 'A'));
    if (lookup) return this.cachedListResponse(endpoint, lookup, result);
    return this.json(200, successEnvelope(this.envelope, result), {}, this.successWriter(endpoint, this.envelope));
  }

  /** Validated parameters of a request to `endpoint` (with the common list parameters for a list). */
  private validatedParams(
    endpoint: EndpointContract,
    specs: readonly ParamSpec[],
    raw: Record<string, unknown>,
    origin: ParamOrigin,
  ): Record<string, unknown> {
    const params = validateFields(specs, raw, origin);
    return endpoint.list ? { ...validateFields(COMMON_LIST_PARAMS, raw, origin), ...params } : params;
  }

  /** The page a list query asks for, of the records a list handler returned. */
  private pageOf(
    endpoint: EndpointContract,
    params: Record<string, unknown>,
    data: readonly object[] | IndexedList<unknown, object> | VersionedRows<object>,
  ): unknown {
    const records = data instanceof VersionedRows ? data.rows() : data;
    return applyListQuery(records, params, endpoint.params, endpoint.list!, recordFieldsOf(endpoint.response.data));
  }

  /** A versioned list's response: the cached one, or computed from `page` and cached (verified against a fresh one in verification mode). */
  private cachedListResponse(endpoint: EndpointContract, lookup: CacheLookup, page: unknown): ApiResponse {
    const { key, listVersion, cached } = lookup;
    if (cached && !this.verifyWriters) return this.cachedResponse(cached);
    const fresh = this.json(200, successEnvelope(this.envelope, page), {}, this.successWriter(endpoint, this.envelope));
    if (cached && cached.body !== fresh.body)
      throw new Error(
        `the cached response of ${endpoint.id} differs from a fresh one at the same list version: its records changed without a write`,
      );
    return { ...fresh, bytes: this.responseCache!.put(key, listVersion, fresh.body).bytes };
  }
}

/** The version of a list handler's records, when its owner gives one (IndexedListSource.listVersion, VersionedRows). */
function listVersionOf(data: unknown): ListVersion | undefined {
  return data instanceof IndexedList ? data.source.listVersion : data instanceof VersionedRows ? data.listVersion : undefined;
}

/** Reaches another node by calling this same app as that node's listener would, from loopback. */
class InProcessPeers implements PeerTransport {
  constructor(private readonly app: AdminApp) {}

  async call(nodeId: number, method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<PeerReply> {
    const node = this.app.cluster.nodes.get(nodeId);
    if (!node || !node.httpAddr) throw new Error(`node ${nodeId} has no registered HTTP address`);
    if (!node.online) throw new Error(`connect ECONNREFUSED ${node.httpAddr}`);
    const res = await this.app.handle({
      method,
      url: pathAndQuery,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      peer: '127.0.0.1',
      nodeId,
    });
    return { status: res.status, body: res.body };
  }
}
