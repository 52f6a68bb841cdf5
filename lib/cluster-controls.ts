/**
 * The simulator's control interface (sim/io/control/control-api.ts, served as `/_sim/` by
 * `mqsim serve --control`) with typed methods. Every method is one control route, called
 * in-process: the same validation, the same model calls and the same `control.*` trace entries as
 * over HTTP, so a session driven from a test and one driven with curl give the same trace.
 */
import type { Cluster } from '../sim/model/cluster/cluster.ts';
import { handleControl } from '../sim/io/control/control-api.ts';

/** A control action the simulator refused: a bad argument (status 400) or a refusal of the model (e.g. crashing a node that is already down). */
export class ControlError extends Error {
  constructor(
    message: string,
    /** HTTP status the control interface answers it with (400 for a bad argument, 200 for a refusal of the model). */
    readonly status: number,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

/** Runs one control route and returns its `data`, or throws a {@link ControlError}. */
export function control<T>(cluster: Cluster, method: 'GET' | 'POST', route: string, body?: Record<string, unknown>): T {
  const reply = handleControl(cluster, method, `/_sim/${route}`, body, 'A');
  const envelope = reply.body as { code: number; message?: string; data?: unknown };
  if (reply.status !== 200 || envelope.code !== 0)
    throw new ControlError(`${route}: ${envelope.message ?? `status ${reply.status}`}`, reply.status);
  return envelope.data as T;
}

/** Only the keys whose value is defined (the control routes treat a key given as null as absent, but read clearer without). */
function defined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/** One node of the simulated cluster. */
export interface NodeState {
  /** Node id, 1..n (node N's listener is port + N - 1). */
  id: number;
  /** Running (false after a crash or a stop, until it is restarted or started). */
  online: boolean;
  /** Removed from the cluster by node leave. */
  removed: boolean;
}

/** Node lifecycle: crash, stop, restart and start nodes, see who leads. */
export interface NodeControls {
  /** Every node, by id. */
  list(): NodeState[];
  /** The node leading a consensus group (`meta`, `mqtt`, `offset`, `data`, ...), or null while it has no leader. */
  leader(group?: string): number | null;
  /** Crashes a node: it loses its memory and keeps its Raft term, vote and log (its leaderships fail over). */
  crash(nodeId: number): void;
  /** Restarts a crashed or stopped node. */
  restart(nodeId: number): void;
  /** Stops a node gracefully. */
  stop(nodeId: number): void;
  /** Starts a stopped node; `wiped`: with its disk erased. */
  start(nodeId: number, options?: { wiped?: boolean }): void;
}

export function nodeControls(cluster: Cluster): NodeControls {
  const lifecycle =
    (action: string) =>
    (nodeId: number, body: Record<string, unknown> = {}) =>
      void control(cluster, 'POST', `nodes/${action}`, { node_id: nodeId, ...body });
  return {
    list: () => cluster.nodes.all().map((n) => ({ id: n.id, online: n.online, removed: n.removed })),
    leader: (group = 'meta') => {
      const g = cluster.raft.get(group);
      if (!g) throw new ControlError(`no consensus group ${JSON.stringify(group)}; the groups are ${cluster.raft.names().join(', ')}`, 400);
      return g.leaderId;
    },
    crash: (id) => lifecycle('crash')(id),
    restart: (id) => lifecycle('restart')(id),
    stop: (id) => lifecycle('stop')(id),
    start: (id, options = {}) => lifecycle('start')(id, defined({ wiped: options.wiped })),
  };
}

/** Link settings of the simulated network between nodes. */
export interface LinkSettings {
  /** Share of messages lost, 0..1. */
  loss?: number;
  /** Share of messages delivered twice, 0..1. */
  duplicate?: number;
  /** Extra random delay per message, ms (reorders messages). */
  jitterMs?: number;
}

/** The simulated network between nodes (Raft RPCs, replica fetches). */
export interface NetworkControls {
  /** Cuts every link between the two sides (`oneWay`: only from `sideA` to `sideB`). */
  partition(sideA: readonly number[], sideB: readonly number[], options?: { oneWay?: boolean }): void;
  /** Restores every link; `resetFaults` (default true) also clears loss, duplication and jitter. */
  heal(options?: { resetFaults?: boolean }): void;
  /** Sets loss, duplication or jitter on every link, or on the directed link `from` → `to`. */
  configure(settings: LinkSettings & { from?: number; to?: number }): void;
}

export function networkControls(cluster: Cluster): NetworkControls {
  return {
    partition: (sideA, sideB, options = {}) =>
      void control(cluster, 'POST', 'network/partition', defined({ side_a: [...sideA], side_b: [...sideB], one_way: options.oneWay })),
    heal: (options = {}) => void control(cluster, 'POST', 'network/heal', defined({ reset_faults: options.resetFaults })),
    configure: (s) =>
      void control(
        cluster,
        'POST',
        'network/configure',
        defined({ loss: s.loss, duplicate: s.duplicate, jitter_ms: s.jitterMs, from: s.from, to: s.to }),
      ),
  };
}

/** Connector sinks: make a connector's target fail, so its failure strategy (retries, dead letters) runs. */
export interface ConnectorControls {
  /**
   * Marks a sink target down (`failing` true, the default) or up again. `target` is what the
   * connectors deliver to: a webhook URL, a `host:port`, a file path, as in the connector's config.
   */
  failSink(target: string, failing?: boolean): void;
}

export function connectorControls(cluster: Cluster): ConnectorControls {
  return { failSink: (target, failing = true) => void control(cluster, 'POST', 'connectors/target-down', { target, down: failing }) };
}

/** Outcome of an MQTT client action of the model: done, or refused with the broker's reason. */
export type MqttOutcome = { ok: true } | { ok: false; reason: string };

/** A client connection, as an MQTT client's CONNECT would open it. */
export interface MqttConnect {
  clientId: string;
  /** Default `default`. */
  tenant?: string;
  username?: string;
  /** The client's address as the broker sees it (blacklists, ACL). */
  ip?: string;
  /** 3 (MQTT 3.1), 4 (3.1.1) or 5. */
  protocol?: 3 | 4 | 5;
  cleanStart?: boolean;
  /** Session expiry interval, s. */
  sessionExpiry?: number;
  /** Keep-alive, s. */
  keepAlive?: number;
  /** Node the client connects to. */
  nodeId?: number;
}

/** MQTT clients acting on the broker model (no socket): connect, subscribe, publish, storms. */
export interface MqttControls {
  /** Connects a client (CONNECT); refused with the broker's reason (bad credentials, blacklist, flapping ban, limits). */
  connect(client: MqttConnect): MqttOutcome;
  /** `clean` (default true): a normal DISCONNECT; false: the connection is lost (wills go out). */
  disconnect(clientId: string, options?: { tenant?: string; clean?: boolean }): boolean;
  /** Subscribes a connected client to a topic filter (`a/+/c`, `a/#`, `$share/group/a/#`). */
  subscribe(subscription: { clientId: string; filter: string; qos?: 0 | 1 | 2; tenant?: string }): MqttOutcome;
  /** Publishes a message (from `clientId` when given, else from the broker's own publisher): stored, routed to subscribers and connectors. */
  publish(message: { topic: string; payload?: string; qos?: 0 | 1 | 2; retain?: boolean; clientId?: string; tenant?: string }): MqttOutcome;
  /**
   * A flapping client: `attempts` connects in a row at one instant, each admitted one disconnected at
   * once. With flapping detection on (config `MqttFlappingDetect`, `enable: true`), more than
   * `max_client_connections` of them within `window_time` ban the client for `ban_time` seconds.
   */
  flappingStorm(clientId: string, attempts: number, options?: { tenant?: string }): { admitted: number; refused: number };
}

const outcomeOf = (r: { ok: boolean; reason?: string }): MqttOutcome =>
  r.ok ? { ok: true } : { ok: false, reason: r.reason ?? 'refused' };

export function mqttControls(cluster: Cluster): MqttControls {
  return {
    connect: (c) =>
      outcomeOf(
        control(
          cluster,
          'POST',
          'clients/connect',
          defined({
            client_id: c.clientId,
            tenant: c.tenant,
            username: c.username,
            ip: c.ip,
            protocol: c.protocol,
            clean_start: c.cleanStart,
            session_expiry: c.sessionExpiry,
            keep_alive: c.keepAlive,
            node_id: c.nodeId,
          }),
        ),
      ),
    disconnect: (clientId, o = {}) =>
      control<{ disconnected: boolean }>(
        cluster,
        'POST',
        'clients/disconnect',
        defined({ client_id: clientId, tenant: o.tenant, clean: o.clean }),
      ).disconnected,
    subscribe: (s) =>
      outcomeOf(
        control(cluster, 'POST', 'clients/subscribe', defined({ client_id: s.clientId, path: s.filter, qos: s.qos, tenant: s.tenant })),
      ),
    publish: (m) =>
      outcomeOf(
        control(
          cluster,
          'POST',
          'clients/publish',
          defined({ topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain, client_id: m.clientId, tenant: m.tenant }),
        ),
      ),
    flappingStorm: (clientId, attempts, o = {}) =>
      control(cluster, 'POST', 'clients/flapping-storm', defined({ client_id: clientId, attempts, tenant: o.tenant })),
  };
}

/** mq9 (AI agent mailboxes): create mailboxes and agents, switch the component off. */
export interface Mq9Controls {
  /** Creates a mailbox (`ttl` s, 0: never expires); returns its address. */
  createMailbox(mailbox?: { name?: string; ttl?: number; desc?: string; tenant?: string }): {
    mailAddress: string;
    ttl: number;
    createTime: number;
  };
  /** Registers an agent with its card (`agentInfo`: JSON text or an object). */
  registerAgent(agent: { name: string; agentInfo: string | Record<string, unknown>; tenant?: string }): void;
  /** Removes an agent. */
  unregisterAgent(name: string, options?: { tenant?: string }): void;
  /** false: the mq9 endpoints answer "component not running". */
  setRunning(running: boolean): void;
}

export function mq9Controls(cluster: Cluster): Mq9Controls {
  return {
    createMailbox: (m = {}) => {
      const box = control<{ mail_address: string; ttl: number; create_time: number }>(
        cluster,
        'POST',
        'mq9/mailbox/create',
        defined({ name: m.name, ttl: m.ttl, desc: m.desc, tenant: m.tenant }),
      );
      return { mailAddress: box.mail_address, ttl: box.ttl, createTime: box.create_time };
    },
    registerAgent: (a) =>
      void control(cluster, 'POST', 'mq9/agent/register', defined({ name: a.name, agent_info: a.agentInfo, tenant: a.tenant })),
    unregisterAgent: (name, o = {}) => void control(cluster, 'POST', 'mq9/agent/unregister', defined({ name, tenant: o.tenant })),
    setRunning: (running) => void control(cluster, 'POST', 'mq9/running', { running }),
  };
}
