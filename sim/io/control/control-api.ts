import { OperationError } from '../../model/errors/operation-error.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { flappingStorm } from '../../model/mqtt/flapping-storm.ts';
import { failureEnvelope, successEnvelope, type EnvelopeForm } from '../../admin-api/envelope.ts';

/** Path prefix of the simulator's control interface, apart from the spec's `/api/...`. */
export const CONTROL_PREFIX = '/_sim/';

export interface ControlReply {
  status: number;
  body: Record<string, unknown>;
}

/** A request the caller got wrong: answered 400 with the text. */
class BadRequest extends Error {}

type Body = Record<string, unknown>;
type Route = (cluster: Cluster, body: Body, query: URLSearchParams) => unknown;

const bad = (text: string): BadRequest => new BadRequest(text);

function str(body: Body, name: string, required: true): string;
function str(body: Body, name: string, required?: false): string | undefined;
function str(body: Body, name: string, required = false): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) {
    if (required) throw bad(`${name} is required (a string)`);
    return undefined;
  }
  if (typeof v !== 'string') throw bad(`${name} must be a string, got ${JSON.stringify(v)}`);
  return v;
}

function int(body: Body, name: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) {
    if (opts.required) throw bad(`${name} is required (an integer)`);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) throw bad(`${name} must be an integer, got ${JSON.stringify(v)}`);
  if (opts.min !== undefined && v < opts.min) throw bad(`${name} must be >= ${opts.min}, got ${v}`);
  if (opts.max !== undefined && v > opts.max) throw bad(`${name} must be <= ${opts.max}, got ${v}`);
  return v;
}

function bool(body: Body, name: string, required = false): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === null) {
    if (required) throw bad(`${name} is required (true or false)`);
    return undefined;
  }
  if (typeof v !== 'boolean') throw bad(`${name} must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function nodeList(body: Body, name: string): number[] {
  const v = body[name];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => Number.isInteger(x)))
    throw bad(`${name} must be a non-empty array of node ids`);
  return v as number[];
}

function fraction(body: Body, name: string): number | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw bad(`${name} must be a number from 0 to 1, got ${JSON.stringify(v)}`);
  return v;
}

const tenantOf = (body: Body): string => str(body, 'tenant') ?? 'default';

/**
 * A model result as the control interface answers it: a refusal's `refusal` kind is for the MQTT
 * listener's reason codes and is left out, so control answers (and the state files that digest
 * them) read as they did before it existed.
 */
function answerOf<T extends { ok: true }>(result: T | { ok: false; reason: string }): T | { ok: false; reason: string } {
  if (result.ok) return result;
  return { ok: false, reason: result.reason };
}

/** Node lifecycle through `cluster.nodes`. */
function nodeAction(action: 'crash' | 'restart' | 'stop' | 'start'): Route {
  return (cluster, body) => {
    const nodeId = int(body, 'node_id', { required: true, min: 1 })!;
    const wiped = bool(body, 'wiped') ?? false;
    if (!cluster.nodes.get(nodeId)) throw bad(`node ${nodeId} does not exist`);
    if (action === 'start') cluster.nodes.startNode(nodeId, { wiped });
    else cluster.nodes[action](nodeId);
    const n = cluster.nodes.get(nodeId)!;
    return { node_id: nodeId, online: n.online };
  };
}

const ROUTES: Record<string, Route> = {
  'GET clock': (cluster) => ({
    now_ms: cluster.now(),
    events_processed: cluster.engine.eventsProcessed,
    queued_events: cluster.engine.queue.size,
  }),
  'POST clock/advance': (cluster, body) => {
    const ms = int(body, 'ms', { required: true, min: 0, max: 366 * 86_400_000 })!;
    const ran = cluster.engine.advance(ms);
    return { now_ms: cluster.now(), events_run: ran };
  },
  'POST nodes/crash': nodeAction('crash'),
  'POST nodes/restart': nodeAction('restart'),
  'POST nodes/stop': nodeAction('stop'),
  'POST nodes/start': nodeAction('start'),
  'POST network/partition': (cluster, body) => {
    cluster.network.partition(nodeList(body, 'side_a'), nodeList(body, 'side_b'), bool(body, 'one_way') ?? false);
    return 'success';
  },
  'POST network/heal': (cluster, body) => {
    cluster.network.heal(bool(body, 'reset_faults') ?? true);
    return 'success';
  },
  'POST network/configure': (cluster, body) => {
    const settings = {
      loss: fraction(body, 'loss'),
      duplicate: fraction(body, 'duplicate'),
      jitterMs: int(body, 'jitter_ms', { min: 0, max: 60_000 }),
    };
    const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
    if (Object.keys(given).length === 0) throw bad('give at least one of loss, duplicate (0..1), jitter_ms');
    const from = int(body, 'from', { min: 1 });
    const to = int(body, 'to', { min: 1 });
    if ((from === undefined) !== (to === undefined)) throw bad('from and to go together (one directed link), or neither (all links)');
    if (from !== undefined) cluster.network.configureLink(from, to!, given);
    else cluster.network.configureAll(given);
    return 'success';
  },
  'POST clients/connect': (cluster, body) => {
    const protocol = int(body, 'protocol');
    const result = cluster.mqtt.connect({
      tenant: tenantOf(body),
      clientId: str(body, 'client_id', true),
      ...(str(body, 'username') !== undefined ? { username: str(body, 'username') } : {}),
      ...(str(body, 'ip') !== undefined ? { ip: str(body, 'ip') } : {}),
      ...(protocol !== undefined ? { protocol: protocol as 3 | 4 | 5 } : {}),
      ...(str(body, 'connection_type') !== undefined ? { connectionType: str(body, 'connection_type') as never } : {}),
      ...(bool(body, 'clean_start') !== undefined ? { cleanStart: bool(body, 'clean_start') } : {}),
      ...(int(body, 'session_expiry', { min: 0 }) !== undefined ? { sessionExpiry: int(body, 'session_expiry') } : {}),
      ...(int(body, 'keep_alive', { min: 0 }) !== undefined ? { keepAlive: int(body, 'keep_alive') } : {}),
      ...(int(body, 'node_id', { min: 1 }) !== undefined ? { nodeId: int(body, 'node_id') } : {}),
    });
    return answerOf(result);
  },
  'POST clients/disconnect': (cluster, body) => {
    const was = cluster.mqtt.disconnect(str(body, 'client_id', true), tenantOf(body), { clean: bool(body, 'clean') ?? true });
    return { disconnected: was };
  },
  'POST clients/publish': (cluster, body) => {
    const qos = int(body, 'qos', { min: 0, max: 2 }) ?? 0;
    const clientId = str(body, 'client_id');
    return answerOf(
      cluster.mqtt.publish({
        tenant: tenantOf(body),
        topic: str(body, 'topic', true),
        payload: str(body, 'payload') ?? '',
        qos: qos as 0 | 1 | 2,
        retain: bool(body, 'retain') ?? false,
        ...(clientId !== undefined ? { clientId } : {}),
      }),
    );
  },
  'POST clients/subscribe': (cluster, body) => {
    const qos = int(body, 'qos', { min: 0, max: 2 }) ?? 0;
    return answerOf(
      cluster.mqtt.subscribe({
        tenant: tenantOf(body),
        clientId: str(body, 'client_id', true),
        path: str(body, 'path', true),
        qos: qos as 0 | 1 | 2,
      }),
    );
  },
  'POST clients/flapping-storm': (cluster, body) => {
    const attempts = int(body, 'attempts', { required: true, min: 1, max: 1_000 })!;
    return flappingStorm(cluster, str(body, 'client_id', true), attempts, tenantOf(body));
  },
  'POST mq9/mailbox/create': (cluster, body) => {
    const ttl = int(body, 'ttl', { min: 0 });
    const box = cluster.mq9.createMailbox({
      tenant: tenantOf(body),
      ...(str(body, 'name') !== undefined ? { name: str(body, 'name') } : {}),
      ...(ttl !== undefined ? { ttl } : {}),
      ...(str(body, 'desc') !== undefined ? { desc: str(body, 'desc') } : {}),
    });
    return { mail_address: box.mail_address, ttl: box.ttl, create_time: box.create_time };
  },
  'POST mq9/agent/register': (cluster, body) => {
    const info = body.agent_info;
    const agentInfo = typeof info === 'string' ? info : info !== undefined && info !== null ? JSON.stringify(info) : '';
    const agent = cluster.mq9.registerAgent({ tenant: tenantOf(body), name: str(body, 'name', true), agent_info: agentInfo });
    return { name: agent.name, create_time: agent.create_time };
  },
  'POST mq9/agent/unregister': (cluster, body) => {
    cluster.mq9.unregisterAgent(tenantOf(body), str(body, 'name', true));
    return 'success';
  },
  'POST mq9/running': (cluster, body) => {
    cluster.mq9.setRunning(bool(body, 'running', true)!);
    return { running: cluster.mq9.isRunning };
  },
  'POST connectors/target-down': (cluster, body) => {
    cluster.connectors.setTargetDown(str(body, 'target', true), bool(body, 'down', true)!);
    return 'success';
  },
  'GET trace': (cluster, _body, query) => {
    const tailText = query.get('tail') ?? '50';
    if (!/^\d+$/.test(tailText)) throw bad(`tail must be a whole number, got ${JSON.stringify(tailText)}`);
    const trace = cluster.engine.trace;
    return { hash: trace.hash, length: trace.length, entries: trace.tail(Math.min(Number(tailText), 10_000)) };
  },
  'GET invariants': (cluster) => {
    const violations = cluster.invariants.checkAll(cluster.now(), cluster.engine.eventsProcessed);
    return { names: cluster.invariants.names(), violations, check_counts: cluster.invariants.checkCounts() };
  },
};

/** The control routes as `METHOD path` (for help texts and docs/serve.md). */
const CONTROL_ROUTES = Object.keys(ROUTES).map((k) => {
  const [method, path] = k.split(' ');
  return `${method} ${CONTROL_PREFIX}${path}`;
});

/**
 * The simulator's control interface: set up states (advance the clock, inject faults, add clients,
 * create mailboxes and agents) and read the trace and invariants. A pure function of the cluster and
 * the request, so tests call it in-process; the HTTP listeners route `/_sim/...` here when `--control`
 * is on. Every state-changing action is recorded in the trace (`control.<route>`), so a replay that
 * repeats the same control calls at the same virtual times gives the same hash.
 */
export function handleControl(
  cluster: Cluster,
  method: string,
  pathAndQuery: string,
  body: unknown,
  envelope: EnvelopeForm = 'A',
): ControlReply {
  const url = new URL(pathAndQuery, 'http://control.local');
  if (!url.pathname.startsWith(CONTROL_PREFIX))
    return { status: 404, body: failureEnvelope(envelope, 404, `not a control path: ${url.pathname}`) };
  const sub = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '');
  const m = method.toUpperCase();
  const route: Route | undefined = ROUTES[`${m} ${sub}`];
  if (!route) {
    const other: Route | undefined = ROUTES[`${m === 'GET' ? 'POST' : 'GET'} ${sub}`];
    if (other !== undefined)
      return {
        status: 405,
        body: failureEnvelope(envelope, 405, `${m} is not allowed on ${url.pathname}; use ${m === 'GET' ? 'POST' : 'GET'}`),
      };
    return {
      status: 404,
      body: failureEnvelope(envelope, 404, `unknown control path ${url.pathname}; known: ${CONTROL_ROUTES.join(', ')}`),
    };
  }
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    return { status: 400, body: failureEnvelope(envelope, 400, 'the request body must be a JSON object') };
  }
  const b = (body ?? {}) as Body;
  try {
    if (m === 'POST') cluster.engine.record(`control.${sub.replace(/\//g, '.')}`, b);
    const data = route(cluster, b, url.searchParams);
    return { status: 200, body: successEnvelope(envelope, data) };
  } catch (e) {
    if (e instanceof BadRequest) return { status: 400, body: failureEnvelope(envelope, 400, e.message) };
    if (e instanceof OperationError)
      return {
        status: e.kind === 'invalid' ? 400 : 200,
        body: failureEnvelope(envelope, e.kind === 'invalid' ? 400 : envelope === 'A' ? 1 : 100, e.message),
      };
    throw e;
  }
}

/** Loopback peers only: the control interface can crash nodes and rewrite time. */
export function isLoopbackPeer(peer: string): boolean {
  return peer === '127.0.0.1' || peer === '::1' || peer === '::ffff:127.0.0.1';
}
