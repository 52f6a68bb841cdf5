import { OperationError } from '../errors/operation-error.ts';
import { localTimeString, unixSeconds } from '../api/time-format.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import { fnv1a } from '../engine/fnv1a.ts';
import type { IndexedList, ListVersion } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import {
  clientRecord,
  sessionRecord,
  subscriptionRecord,
  type ClientRecordView,
  type SessionRecordView,
  type SubscriptionRecordView,
} from './client-views.ts';
import type { ConnectionCloseReason, MessageExtras, OutgoingMessage, PendingMessage } from './delivery.ts';
import { DemoPopulation } from './demo-population.ts';
import { FlappingDetector } from './flapping-detector.ts';
import { HeartbeatWheel } from './heartbeat-wheel.ts';
import { MessageCounters } from './message-counters.ts';
import { CONNECTION_TYPES, type ConnectionType, type ProtocolVersion, type QoS } from './mqtt-labels.ts';
import { clientKey, type ClientState, type ConnectParams, type LastWill, type LiveConnection, type Subscription } from './mqtt-model.ts';
import type {
  ConnectInput,
  ConnectRefusal,
  ConnectResult,
  SubscribeInput,
  SubscribeResult,
  PublishInput,
  PublishRefusal,
  PublishResult,
  ConnectedEvent,
  TopicSubscriber,
} from './broker-api.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { SchemaValidation } from './schema-validation.ts';
import { keepUnacknowledged, keepWhileOffline, takePending } from './session-queue.ts';
import { SlowSubscriptions } from './slow-subscriptions.ts';
import { SubscriptionStore } from './subscriptions.ts';
import { SystemAlarms } from './system-alarms.ts';
import {
  parseSubscriptionPath,
  topicFilterProblem,
  topicMatches,
  topicNameProblem,
  type SubscriptionPath,
} from '../topic-filter/topic-filter.ts';

/** A message as routed: what each subscriber's copy is made from. */
interface RoutedMessage {
  topic: string;
  payload: string;
  qos: QoS;
  /** The RETAIN flag as published. */
  retain: boolean;
  extras: MessageExtras | undefined;
  /** Virtual ms (MQTT 5 message expiry); null: never. */
  expiresAt: number | null;
}

/** A connect request with its defaults applied and its node chosen. */
interface NormalizedConnect {
  tenant: string;
  clientId: string;
  username: string;
  ip: string;
  port: number | undefined;
  connectionType: ConnectionType;
  protocol: ProtocolVersion;
  keepAlive: number;
  cleanStart: boolean;
  sessionExpiry: number;
  lastWill: LastWill | null;
  nodeId: number;
}

/** A refusal of a connect request: its kind and the text. */
interface Refused {
  refusal: ConnectRefusal;
  reason: string;
}

const DEFAULT_KEEP_ALIVE = 60;
const HOUSEKEEPING_MS = 5_000;

const asQoS = (q: number | undefined): QoS => (q === 1 || q === 2 ? q : 0);

// Refusals of a connect, at module level: closures made per connect cost a reconnect storm.
function invalid(reason: string): Refused {
  return { refusal: 'invalid', reason };
}
function banned(reason: string): Refused {
  return { refusal: 'banned', reason };
}
function quotaReached(reason: string): Refused {
  return { refusal: 'quota', reason };
}

/** One subscriber's copy of a routed message: QoS downgraded to the subscription's, RETAIN as MQTT says. */
function copyFor(sub: Subscription, message: RoutedMessage, retainedOnSubscribe: boolean): OutgoingMessage {
  return {
    topic: message.topic,
    payload: message.payload,
    ...(message.extras ? { extras: message.extras } : {}),
    qos: Math.min(sub.qos, message.qos) as QoS,
    // Retained messages sent at subscribe keep the flag; otherwise only retain-as-published keeps it (MQTT 5 §3.8.3.1).
    retain: retainedOnSubscribe || (sub.preserveRetain && message.retain),
    subscriptionIdentifier: sub.subscriptionIdentifier,
    expiresAt: message.expiresAt,
  };
}

/**
 * The MQTT side of the cluster: clients and their connections, sessions, subscriptions, message
 * routing with delivery counters, flapping detection, slow subscriptions and system alarms. Other
 * parts reach it through `connect`, `disconnect`, `subscribe`, `unsubscribe`, `publish` and
 * `subscribersOf`; the HTTP handlers read it through the view modules.
 */
export class MqttBroker {
  // Share group ids come from a stream of their own, so naming a group shifts no other draw.
  readonly subscriptions = new SubscriptionStore(() => this.shareGroupIds.uuid(), subscriptionRecord);
  readonly counters = new MessageCounters();
  readonly flapping: FlappingDetector;
  readonly slowSubscriptions: SlowSubscriptions;
  readonly alarms: SystemAlarms;
  readonly demo: DemoPopulation;
  readonly schemaValidation: SchemaValidation;
  /**
   * Changes of anything the client and session lists show (clients come and go, connections,
   * sessions, heartbeat seconds): their list version, so their responses are cached until the next.
   */
  private clientChanges = 0;
  /** Heartbeats in a new second: the client list shows them, the session list does not. */
  private heartbeatSeconds = 0;
  /** Live connections whose client is on the network: its sink's in-flight counts and topic aliases change unseen. */
  private networkSinks = 0;
  /** The session list's version owner (its version counts other changes than the client list's). */
  private readonly sessionsVersionOwner = {};
  /** In arrival order; the client and session lists are read from it (sampled scans). */
  private readonly clients = new RecordIndex<ClientState>({
    viewFields: { tenant: (c) => c.tenant, client_id: (c) => c.clientId },
    otherFieldsFromView: clientRecord,
  });
  /** Live connections per `${nodeId}\0${tenant}`, per node, and in all. */
  private readonly liveByNodeTenant = new Map<string, number>();
  private readonly liveByNode = new Map<number, number>();
  private liveTotal = 0;
  private readonly sessionsByTenant = new Map<string, number>();
  /** Connects and publishes admitted in the current virtual second, for the rate quotas. */
  private rateSecond = -1;
  private connectsThisSecond = new Map<string, number>();
  private connectsThisSecondTotal = 0;
  private publishesThisSecond = new Map<string, number>();
  private nextConnectionId = 1;
  private readonly connectListeners: ((e: ConnectedEvent) => void)[] = [];
  /** Connections by the housekeeping tick of their next keep-alive heartbeat. */
  private readonly heartbeats = new HeartbeatWheel(HOUSEKEEPING_MS);
  private rng!: SeededRandom;
  private latencyRng!: SeededRandom;
  private shareGroupIds!: SeededRandom;

  constructor(private readonly deps: MqttBrokerDeps) {
    this.flapping = new FlappingDetector(deps);
    this.slowSubscriptions = new SlowSubscriptions(deps);
    this.alarms = new SystemAlarms(deps, (_nodeId, alarm) => {
      this.publish({ tenant: 'default', topic: '$SYS/brokers/alarms/alert', payload: JSON.stringify(alarm), qos: 0, retain: false });
    });
    this.demo = new DemoPopulation(deps, this);
    this.schemaValidation = new SchemaValidation(deps);
  }

  start(): void {
    this.rng = this.deps.engine.random.fork('mqtt');
    this.shareGroupIds = this.deps.engine.random.fork('mqtt.share-groups');
    this.latencyRng = this.deps.engine.random.fork('mqtt.latency');
    this.flapping.start();
    this.alarms.start();
    this.heartbeats.start(this.deps.engine.now());
    this.deps.engine.every(HOUSEKEEPING_MS, 'mqtt.housekeeping', () => this.housekeeping());
  }

  /** Seeds the demo population and schedules its life (only with `--workload demo`). */
  seedDemo(): void {
    this.demo.seed();
    this.demo.startLife();
  }

  // ---------------------------------------------------------------- connections

  private connectRefused(input: ConnectInput, { refusal, reason }: Refused): ConnectResult {
    this.deps.engine.record('mqtt.connect.refused', { tenant: input.tenant, clientId: input.clientId, reason });
    return { ok: false, reason, refusal };
  }

  connect(input: ConnectInput): ConnectResult {
    const req = this.normalizeConnect(input);
    if ('refusal' in req) return this.connectRefused(input, req);
    const key = clientKey(req.tenant, req.clientId);
    const existing = this.clients.get(key);
    const refusal = this.admissionRefusal(req, existing);
    if (refusal) return this.connectRefused(input, refusal);
    const { tenant, clientId, nodeId, connectionType, protocol, cleanStart, sessionExpiry } = req;
    const protocolCfg = this.deps.config.current().MqttProtocol;
    this.connectsThisSecond.set(tenant, (this.connectsThisSecond.get(tenant) ?? 0) + 1);
    this.connectsThisSecondTotal++;
    const now = this.deps.engine.now();
    if (existing?.connection) this.closeConnection(existing, 'takeover');
    const connectionId = this.nextConnectionId++;
    const port = req.port ?? this.rng.int(30_000, 65_000);
    const last: ConnectParams = {
      connectionId,
      username: req.username,
      ip: req.ip,
      port,
      connectionType,
      protocol,
      keepAlive: req.keepAlive,
      cleanStart,
      receiveMaximum: input.receiveMaximum ?? protocolCfg.receive_max,
      maxPacketSize: input.maxPacketSize ?? protocolCfg.max_packet_size,
      topicAliasMax: protocol === 5 ? (input.topicAliasMax ?? protocolCfg.topic_alias_max) : 0,
      requestProblemInfo: protocol === 5 ? 1 : 0,
      nodeId,
      connectedAt: now,
    };
    let client = existing;
    let sessionPresent = false;
    if (!client) {
      client = { tenant, clientId, last, connection: null, session: null, messagesIn: 0, messagesOut: 0, nextPkId: 1, generation: 0 };
      this.clients.set(key, client);
    }
    client.last = last;
    client.generation++;
    if (input.networkClient) client.networkClient = true;
    else if (client.networkClient) client.networkClient = false;
    if (client.session && cleanStart) this.endSession(client, 'clean-start');
    if (client.session) {
      sessionPresent = true;
      client.session.reconnectAt = now;
      client.session.brokerId = nodeId;
      client.session.sessionExpiry = sessionExpiry;
      client.session.lastWill = req.lastWill;
      // The resumed session now lives on this node, and so do its subscriptions.
      this.subscriptions.moveToBroker(tenant, clientId, nodeId);
    } else {
      client.session = { sessionExpiry, createdAt: now, reconnectAt: null, disconnectAt: null, brokerId: nodeId, lastWill: req.lastWill };
      this.sessionsByTenant.set(tenant, (this.sessionsByTenant.get(tenant) ?? 0) + 1);
    }
    if (input.mqtt5Session) client.session.survivesCleanStart = true;
    else if (client.session.survivesCleanStart) client.session.survivesCleanStart = false;
    client.connection = { connectionId, nodeId, lastHeartbeatAt: now, ...(input.sink ? { sink: input.sink } : {}) };
    if (input.sink) this.networkSinks++;
    this.clientChanges++;
    // A network client's heartbeats are its own packets (see touch); only simulated clients get simulated ones.
    if (req.keepAlive > 0 && !input.networkClient)
      this.heartbeats.add({ client, connection: client.connection }, now + req.keepAlive * 1000);
    this.countLive(nodeId, tenant, +1);
    this.deps.engine.record('mqtt.connect', { tenant, clientId, connectionId, nodeId, type: connectionType, protocol, sessionPresent });
    // What the session kept while no connection took it goes out first (MQTT: resend unacknowledged
    // messages on reconnect). Without a sink (a journal being replayed) it is consumed just the same.
    if (client.session.pending) {
      for (const m of takePending(client.session, now, this.deps.config.current().MqttOfflineMessage.expire_ms)) input.sink?.deliver(m);
    }
    const event: ConnectedEvent = { tenant, clientId, username: req.username, ip: req.ip, nodeId, sessionPresent };
    for (const listener of [...this.connectListeners]) listener(event);
    return { ok: true, connectionId, nodeId, sessionPresent };
  }

  /**
   * Calls `listener` after every admitted connection, in registration order (e.g. to apply
   * auto-subscribe rules with `subscribe`). Returns a function that removes the listener.
   */
  onConnect(listener: (e: ConnectedEvent) => void): () => void {
    this.connectListeners.push(listener);
    return () => {
      const i = this.connectListeners.indexOf(listener);
      if (i >= 0) this.connectListeners.splice(i, 1);
    };
  }

  /** The connect request with its defaults applied and the node chosen, or why it is malformed. */
  private normalizeConnect(input: ConnectInput): NormalizedConnect | Refused {
    const { tenant, clientId } = input;
    if (!tenant) return invalid('tenant must not be empty');
    if (!clientId) return { refusal: 'invalid-client-id', reason: 'client id must not be empty' };
    const connectionType = input.connectionType ?? 'Tcp';
    if (!CONNECTION_TYPES.includes(connectionType)) return invalid(`unknown connection type ${JSON.stringify(connectionType)}`);
    const protocol = input.protocol ?? 5;
    if (protocol !== 3 && protocol !== 4 && protocol !== 5) return invalid(`unknown MQTT protocol level ${JSON.stringify(protocol)}`);
    const keepAlive = input.keepAlive ?? DEFAULT_KEEP_ALIVE;
    if (!Number.isInteger(keepAlive) || keepAlive < 0 || keepAlive > 65_535)
      return invalid(`keep alive must be 0-65535 seconds, got ${keepAlive}`);
    const protocolCfg = this.deps.config.current().MqttProtocol;
    const sessionExpiry = Math.min(
      input.sessionExpiry ?? protocolCfg.default_session_expiry_interval,
      protocolCfg.max_session_expiry_interval,
    );
    if (!Number.isInteger(sessionExpiry) || sessionExpiry < 0)
      return invalid(`session expiry must be a non-negative integer, got ${input.sessionExpiry}`);
    const online = this.deps.nodes.online();
    if (online.length === 0) return { refusal: 'unavailable', reason: 'no broker node is online' };
    if (input.nodeId !== undefined && !online.some((n) => n.id === input.nodeId))
      return { refusal: 'unavailable', reason: `node ${input.nodeId} is not online` };
    const nodeId = input.nodeId ?? this.rng.pick(online).id;
    return {
      tenant,
      clientId,
      username: input.username ?? '',
      ip: input.ip ?? '127.0.0.1',
      port: input.port,
      connectionType,
      protocol,
      keepAlive,
      cleanStart: input.cleanStart ?? false,
      sessionExpiry,
      lastWill: input.lastWill ?? null,
      nodeId,
    };
  }

  /**
   * Why a well-formed connect is refused, in the broker's order: blacklist, flapping ban, flapping
   * detection (this attempt counts), connection rates, connection limits, session quota.
   */
  private admissionRefusal(req: NormalizedConnect, existing: ClientState | undefined): Refused | undefined {
    const { tenant, clientId, nodeId } = req;
    const blocking = this.deps.blacklist.blocking({ tenant, clientId, username: req.username || undefined, ip: req.ip });
    if (blocking) return banned(`refused by blacklist entry ${blocking.name} (${blocking.blacklist_type} ${blocking.resource_name})`);
    if (this.flapping.isBanned(tenant, clientId)) return banned(`client ${clientId} is banned for connection flapping`);
    const verdict = this.flapping.onConnectAttempt(tenant, clientId);
    if (verdict.banned)
      return banned(
        `client ${clientId} connected more than max_client_connections times within window_time: banned for flapping until ${localTimeString(verdict.untilMs)}`,
      );

    const quota = this.deps.tenants.quota(tenant);
    const limits = this.deps.config.current();
    this.rollRateSecond();
    if ((this.connectsThisSecond.get(tenant) ?? 0) >= quota.max_create_connection_rate_per_second) {
      return {
        refusal: 'rate',
        reason: `tenant ${tenant} reached max_create_connection_rate_per_second (${quota.max_create_connection_rate_per_second})`,
      };
    }
    if (this.connectsThisSecondTotal >= limits.ClusterLimit.max_network_connection_rate)
      return {
        refusal: 'rate',
        reason: `cluster reached max_network_connection_rate (${limits.ClusterLimit.max_network_connection_rate})`,
      };
    // A takeover frees the old connection's slot, so the limits count without it.
    const sameSlot = existing?.connection ? 1 : 0;
    const sameSlotOnNode = existing?.connection?.nodeId === nodeId ? 1 : 0;
    const tenantOnNode = (this.liveByNodeTenant.get(`${nodeId}\u0000${tenant}`) ?? 0) - sameSlotOnNode;
    if (tenantOnNode >= quota.max_connections_per_node)
      return quotaReached(`tenant ${tenant} reached max_connections_per_node (${quota.max_connections_per_node}) on node ${nodeId}`);
    const onNode = (this.liveByNode.get(nodeId) ?? 0) - sameSlotOnNode;
    if (onNode >= limits.MqttLimit.cluster.max_connections_per_node)
      return quotaReached(
        `node ${nodeId} reached the cluster's max_connections_per_node (${limits.MqttLimit.cluster.max_connections_per_node})`,
      );
    if (this.liveTotal - sameSlot >= limits.ClusterLimit.max_network_connection)
      return quotaReached(`cluster reached max_network_connection (${limits.ClusterLimit.max_network_connection})`);
    // A clean start replaces an existing session one for one; only a client without one adds a session.
    if (!existing?.session && (this.sessionsByTenant.get(tenant) ?? 0) >= quota.max_sessions)
      return quotaReached(`tenant ${tenant} reached max_sessions (${quota.max_sessions})`);
    return undefined;
  }

  /**
   * Ends a client's connection. `clean`: a normal DISCONNECT, which discards the last will; otherwise
   * the connection was lost and the will is published (after its delay). Returns false when the
   * client was not connected.
   */
  /**
   * Ends a client's connection. `clean`: a normal DISCONNECT, which discards the last will; otherwise
   * the connection was lost and the will is published (after its delay). Returns false when the
   * client was not connected (or, with `connectionId`, is connected through another connection).
   * Network clients also give: the session expiry their MQTT 5 DISCONNECT sets, and the QoS 1/2
   * messages still unacknowledged (`keep`), which a surviving session keeps for the next connection.
   */
  disconnect(
    clientId: string,
    tenant: string,
    options: { clean: boolean; connectionId?: number; sessionExpiry?: number; keep?: readonly PendingMessage[] } = { clean: true },
  ): boolean {
    const client = this.clients.get(clientKey(tenant, clientId));
    if (!client?.connection) return false;
    if (options.connectionId !== undefined && client.connection.connectionId !== options.connectionId) return false;
    if (options.sessionExpiry !== undefined && client.session) {
      client.session.sessionExpiry = Math.min(options.sessionExpiry, this.deps.config.current().MqttProtocol.max_session_expiry_interval);
      this.clientChanges++;
    }
    this.closeConnection(client, options.clean ? 'disconnect' : 'connection-lost', options.keep);
    return true;
  }

  private closeConnection(client: ClientState, why: ConnectionCloseReason, keep?: readonly PendingMessage[]): void {
    const conn = client.connection!;
    const now = this.deps.engine.now();
    client.connection = null;
    client.generation++;
    this.clientChanges++;
    if (conn.sink) this.networkSinks--;
    this.countLive(conn.nodeId, client.tenant, -1);
    this.deps.engine.record('mqtt.disconnect', {
      tenant: client.tenant,
      clientId: client.clientId,
      connectionId: conn.connectionId,
      why,
    });
    conn.sink?.closed(why);
    if (why === 'takeover') return; // the new connection takes the session over at once
    const session = client.session!;
    session.disconnectAt = now;
    const will = session.lastWill;
    session.lastWill = null;
    if (will && why !== 'disconnect') this.scheduleWill(client, will);
    if ((client.last.cleanStart && !session.survivesCleanStart) || session.sessionExpiry === 0) {
      this.endSession(client, 'disconnect');
      this.forgetIfIdle(client);
      return;
    }
    if (keep) keepUnacknowledged(session, keep);
    const generation = client.generation;
    this.deps.engine.after(session.sessionExpiry * 1000, 'mqtt.session.expire', () => {
      if (client.generation !== generation || client.connection || this.clients.get(clientKey(client.tenant, client.clientId)) !== client)
        return;
      this.endSession(client, 'expired');
      this.forgetIfIdle(client);
    });
  }

  private scheduleWill(client: ClientState, will: LastWill): void {
    const delayS = Math.min(will.properties?.delay_interval ?? 0, client.session?.sessionExpiry ?? 0);
    const generation = client.generation;
    const fire = (): void => {
      // A reconnect within the delay cancels the will (MQTT 5 §3.1.3.2.2).
      if (delayS > 0 && (client.generation !== generation || client.connection)) return;
      this.deps.engine.record('mqtt.will', { tenant: client.tenant, clientId: client.clientId, topic: will.topic });
      this.publish({
        tenant: client.tenant,
        topic: will.topic,
        payload: will.message,
        qos: will.qos,
        retain: will.retain,
        ...(will.extras ? { extras: will.extras } : {}),
      });
    };
    if (delayS === 0) fire();
    else this.deps.engine.after(delayS * 1000, 'mqtt.will', fire);
  }

  private endSession(client: ClientState, why: string): void {
    if (!client.session) return;
    client.session = null;
    this.clientChanges++;
    const removed = this.subscriptions.removeClient(client.tenant, client.clientId);
    const n = (this.sessionsByTenant.get(client.tenant) ?? 1) - 1;
    if (n > 0) this.sessionsByTenant.set(client.tenant, n);
    else this.sessionsByTenant.delete(client.tenant);
    this.deps.engine.record('mqtt.session.end', { tenant: client.tenant, clientId: client.clientId, why, subscriptions: removed });
  }

  private forgetIfIdle(client: ClientState): void {
    if (!client.connection && !client.session && this.clients.delete(clientKey(client.tenant, client.clientId))) this.clientChanges++;
  }

  private countLive(nodeId: number, tenant: string, delta: number): void {
    const k = `${nodeId}\u0000${tenant}`;
    this.liveByNodeTenant.set(k, (this.liveByNodeTenant.get(k) ?? 0) + delta);
    this.liveByNode.set(nodeId, (this.liveByNode.get(nodeId) ?? 0) + delta);
    this.liveTotal += delta;
  }

  private rollRateSecond(): void {
    const second = this.deps.engine.clock.nowSeconds();
    if (second === this.rateSecond) return;
    this.rateSecond = second;
    this.connectsThisSecond = new Map();
    this.connectsThisSecondTotal = 0;
    this.publishesThisSecond = new Map();
  }

  /**
   * Heartbeats of idle clients (a PINGREQ every keep-alive) and the connections of nodes that went
   * offline. Only the connections whose heartbeat falls due at this tick are looked at (a connection
   * that published since is put back at its new due time); all clients are scanned only while a node
   * holding connections is offline.
   */
  private housekeeping(): void {
    const now = this.deps.engine.now();
    const nodes = this.deps.nodes;
    const lost: ClientState[] = [];
    let nodeDown = false;
    for (const [nodeId, live] of this.liveByNode) if (live > 0 && !nodes.get(nodeId)?.online) nodeDown = true;
    if (nodeDown) {
      for (const client of this.clients) {
        if (client.connection && !nodes.get(client.connection.nodeId)?.online) lost.push(client);
      }
    }
    let heartbeats = 0;
    for (const entry of this.heartbeats.take(this.heartbeats.tickAt(now))) {
      const conn = entry.connection;
      if (entry.client.connection !== conn) continue; // closed since: its entry is stale
      if (!nodes.get(conn.nodeId)?.online) continue; // lost: closed below
      const periodMs = entry.client.last.keepAlive * 1000;
      if (now - conn.lastHeartbeatAt >= periodMs) {
        this.heartbeatAt(conn, now);
        heartbeats++;
      }
      this.heartbeats.add(entry, conn.lastHeartbeatAt + periodMs);
    }
    for (const client of lost) this.closeConnection(client, 'node-offline');
    if (heartbeats > 0) this.deps.engine.record('mqtt.heartbeats', { count: heartbeats });
  }

  // ---------------------------------------------------------------- subscriptions

  subscribe(input: SubscribeInput): SubscribeResult {
    const client = this.clients.get(clientKey(input.tenant, input.clientId));
    if (!client?.connection || !client.session)
      return { ok: false, reason: `client ${input.clientId} of tenant ${input.tenant} is not connected`, refusal: 'not-connected' };
    let parsed: SubscriptionPath;
    let rewritePath: string | null = null;
    try {
      parsed = parseSubscriptionPath(input.path);
      // Topic rewrite rules of action Subscribe (or All) turn the filter into another (EMQX semantics):
      // the subscription keeps the path as subscribed and routes by the rewritten filter.
      const rewritten = this.deps.rewriteRules.rewrite(input.tenant, parsed.filter, 'Subscribe');
      if (rewritten !== parsed.filter) {
        const problem = topicFilterProblem(rewritten);
        if (problem) throw new Error(`the topic rewrite rules turn ${parsed.filter} into ${rewritten}: ${problem}`);
        parsed = { ...parsed, filter: rewritten };
        rewritePath = parsed.shared ? `$share/${parsed.group}/${rewritten}` : rewritten;
      }
    } catch (e) {
      return { ok: false, reason: (e as Error).message, refusal: 'invalid-filter' };
    }
    const v5 = client.last.protocol === 5;
    const noLocal = v5 ? (input.noLocal ?? false) : false;
    if (parsed.shared && noLocal)
      return { ok: false, reason: 'no_local must not be set on a shared subscription (MQTT 5 §3.8.3.1)', refusal: 'invalid' };
    const qos = input.qos ?? 0;
    if (qos !== 0 && qos !== 1 && qos !== 2) return { ok: false, reason: `qos must be 0, 1 or 2, got ${qos}`, refusal: 'invalid' };
    const aclDenial = this.aclDenial(client, parsed.filter, 'Subscribe');
    if (aclDenial) {
      this.deps.engine.record('mqtt.subscribe.refused', {
        tenant: input.tenant,
        clientId: input.clientId,
        path: input.path,
        reason: 'acl',
      });
      return { ok: false, reason: aclDenial, refusal: 'not-authorized' };
    }
    const pkId = client.nextPkId;
    client.nextPkId = (client.nextPkId % 65_535) + 1;
    const sub: Subscription = {
      tenant: input.tenant,
      clientId: input.clientId,
      path: input.path,
      filter: parsed.filter,
      group: parsed.shared ? parsed.group : null,
      qos,
      noLocal,
      preserveRetain: v5 ? (input.preserveRetain ?? false) : false,
      retainHandling: v5 ? (input.retainHandling ?? 0) : 0,
      subscriptionIdentifier: v5 ? (input.subscriptionIdentifier ?? null) : null,
      ...(rewritePath !== null ? { rewritePath } : {}),
      userProperties: v5 ? (input.userProperties ?? []) : [],
      protocol: client.last.protocol,
      brokerId: client.connection.nodeId,
      pkId,
      createdAt: this.deps.engine.now(),
      push: new Map(),
      successTotal: 0,
      failureTotal: 0,
    };
    const { created, subscription } = this.subscriptions.put(sub);
    const retained = this.sendRetained(subscription, created);
    this.deps.engine.record('mqtt.subscribe', {
      tenant: input.tenant,
      clientId: input.clientId,
      path: input.path,
      qos,
      created,
      retained,
    });
    return { ok: true, created, pkId };
  }

  /**
   * Retained messages of the topics a new subscription matches, as its retain_handling asks: 0 on
   * every subscribe, 1 only when the subscription is new, 2 never. Shared subscriptions get none
   * (MQTT 5 §4.8.2). Returns how many were sent.
   */
  private sendRetained(sub: Subscription, created: boolean): number {
    if (sub.group !== null || sub.retainHandling === 2 || (sub.retainHandling === 1 && !created)) return 0;
    const now = this.deps.engine.now();
    let sent = 0;
    // Only the tenant's topics holding a retained message, in name order (as the full topic list had them).
    for (const t of this.deps.topics.retainedTopics(sub.tenant)) {
      const r = t.retained;
      if (t.tenant !== sub.tenant || !t.topic_name || !r || (r.expiresAt != null && r.expiresAt <= now)) continue;
      if (!topicMatches(sub.filter, t.topic_name)) continue;
      const message: RoutedMessage = {
        topic: t.topic_name,
        payload: r.payload,
        qos: asQoS(r.qos),
        retain: true,
        extras: r.extras,
        expiresAt: r.expiresAt ?? null,
      };
      if (this.deliver(sub, message, true)) sent++;
    }
    return sent;
  }

  unsubscribe(input: { tenant: string; clientId: string; path: string }): boolean {
    const removed = this.subscriptions.remove(input.tenant, input.clientId, input.path);
    if (removed) this.deps.engine.record('mqtt.unsubscribe', { tenant: input.tenant, clientId: input.clientId, path: input.path });
    return removed !== undefined;
  }

  /** Subscriptions (shared members included) whose filter matches the topic. */
  subscribersOf(tenant: string, topicName: string): TopicSubscriber[] {
    const routes = this.subscriptions.routes(tenant, topicName);
    const out: TopicSubscriber[] = routes.exclusive.map((s) => ({ client_id: s.clientId, path: s.path }));
    for (const g of routes.groups) for (const m of g.members) out.push({ client_id: m.clientId, path: m.path });
    return out;
  }

  /**
   * A topic was deleted (called by the topics part): subscriptions to exactly that topic go, as on
   * the real server (wildcard subscriptions stay), and so do the push counters and slow-subscription
   * records of the topic.
   */
  onTopicDeleted(tenant: string, topicName: string): void {
    let removed = 0;
    for (const sub of [...this.subscriptions.all()]) {
      if (sub.tenant !== tenant) continue;
      if (sub.filter === topicName) {
        this.subscriptions.remove(tenant, sub.clientId, sub.path);
        removed++;
      } else {
        sub.push.delete(topicName);
      }
    }
    this.slowSubscriptions.forgetTopic(tenant, topicName);
    this.deps.engine.record('mqtt.topic-deleted', { tenant, topic: topicName, subscriptions: removed });
  }

  /** Node leading a share group: drawn from the online nodes by a hash of the group, so it moves only when nodes do. */
  shareLeaderId(tenant: string, group: string): number | undefined {
    const online = this.deps.nodes.online();
    if (online.length === 0) return undefined;
    return online[fnv1a(`${tenant}/${group}`) % online.length].id;
  }

  // ---------------------------------------------------------------- messages

  /** A publish refused: traced, answered with the reason. (A method, not a closure made per publish: this is the hot path.) */
  private publishRefused(tenant: string, topic: string, reason: string, refusal: PublishRefusal): PublishResult {
    this.deps.engine.record('mqtt.publish.refused', { tenant, topic, reason });
    return { ok: false, reason, refusal };
  }

  publish(input: PublishInput): PublishResult {
    const { tenant, payload } = input;
    // Topic rewrite rules apply before anything else sees the topic (EMQX semantics).
    const topic = this.deps.rewriteRules.rewrite(tenant, input.topic, 'Publish');
    const problem = topicNameProblem(topic);
    if (problem) return this.publishRefused(tenant, topic, problem, 'invalid-topic');
    if (input.qos !== 0 && input.qos !== 1 && input.qos !== 2)
      return this.publishRefused(tenant, topic, `qos must be 0, 1 or 2, got ${input.qos}`, 'invalid');
    let publisher: ClientState | undefined;
    if (input.clientId !== undefined) {
      publisher = this.clients.get(clientKey(tenant, input.clientId));
      if (!publisher?.connection)
        return this.publishRefused(tenant, topic, `client ${input.clientId} of tenant ${tenant} is not connected`, 'not-connected');
      const aclDenial = this.aclDenial(publisher, topic, 'Publish');
      if (aclDenial) {
        this.counters.countDropped(tenant, 1);
        return this.publishRefused(tenant, topic, aclDenial, 'not-authorized');
      }
    }
    const schemaRefusal = this.schemaRefusal(tenant, topic, payload, publisher);
    if (schemaRefusal) return this.publishRefused(tenant, topic, schemaRefusal, 'payload-format');
    this.rollRateSecond();
    const rate = this.deps.tenants.quota(tenant).max_publish_rate;
    if ((this.publishesThisSecond.get(tenant) ?? 0) >= rate)
      return this.publishRefused(tenant, topic, `tenant ${tenant} reached max_publish_rate (${rate} messages per second)`, 'quota');
    const topics = this.deps.topics;
    const storage = this.deps.storage;
    const connectors = this.deps.connectors;
    const now = this.deps.engine.now();
    const message: RoutedMessage = {
      topic,
      payload,
      qos: input.qos,
      retain: input.retain,
      extras: input.extras,
      expiresAt: this.expiryOf(input.extras, now),
    };
    let offset: number | null = null;
    try {
      topics.ensure(tenant, topic);
      const appended = storage.appendToTopic(tenant, topic, {
        ...(input.key !== undefined ? { key: input.key } : {}),
        payload,
        timestamp: now,
      });
      if (typeof appended === 'number') offset = appended;
      if (input.retain) {
        const kept = input.extras ? { extras: input.extras, expiresAt: message.expiresAt } : {};
        topics.setRetained(tenant, topic, payload === '' ? null : { payload, qos: input.qos, retainedAt: now, ...kept });
      }
    } catch (e) {
      // A quota or storage refusal of the topics part is the publish's refusal, not a crash.
      if (e instanceof OperationError) return this.publishRefused(tenant, topic, e.message, 'rejected');
      throw e;
    }
    this.publishesThisSecond.set(tenant, (this.publishesThisSecond.get(tenant) ?? 0) + 1);
    this.counters.countIn(tenant, topic);
    if (publisher) {
      publisher.messagesIn++;
      this.heartbeatAt(publisher.connection!, now);
    }

    let delivered = 0;
    let dropped = 0;
    const routes = this.subscriptions.routes(tenant, topic);
    for (const sub of routes.exclusive) {
      if (sub.noLocal && sub.clientId === input.clientId) continue;
      if (this.deliver(sub, message)) delivered++;
      else dropped++;
    }
    for (const g of routes.groups) {
      // One member per group: the next online member in round-robin order; dropped when none is online.
      const n = g.members.length;
      let chosen: Subscription | undefined;
      for (let i = 0; i < n; i++) {
        const m = g.members[(g.cursor + i) % n];
        if (this.clients.get(clientKey(m.tenant, m.clientId))?.connection) {
          chosen = m;
          g.cursor = (g.cursor + i + 1) % n;
          break;
        }
      }
      if (chosen) {
        this.deliver(chosen, message);
        delivered++;
      } else {
        this.recordFailure(g.members[g.cursor % n], topic);
        dropped++;
      }
    }
    // Nobody to deliver to: the message is dropped (it is still stored and forwarded to connectors).
    if (routes.exclusive.length === 0 && routes.groups.length === 0) dropped++;
    if (dropped > 0) this.counters.countDropped(tenant, dropped);
    connectors.onMessage(tenant, topic, { payload, timestamp: now });
    this.deps.engine.record('mqtt.publish', { tenant, topic, qos: input.qos, retain: input.retain, delivered, dropped });
    return { ok: true, delivered, dropped, offset };
  }

  /**
   * ACL check of a client's publish or subscribe: a Deny decision refuses it (no rule, or Allow,
   * lets it through). Superusers of the tenant bypass ACL, as on the real server.
   */
  private aclDenial(client: ClientState, topic: string, action: 'Publish' | 'Subscribe'): string | undefined {
    const username = client.last.username;
    if (username && this.deps.users.get(client.tenant, username)?.is_superuser) return undefined;
    const decision = this.deps.acl.decide({
      tenant: client.tenant,
      clientId: client.clientId,
      ...(username ? { username } : {}),
      ip: client.last.ip,
      topic,
      action,
    });
    if (decision !== 'Deny') return undefined;
    return `${action.toLowerCase()} to ${topic} denied by ACL (decision Deny for client ${client.clientId} of tenant ${client.tenant})`;
  }

  /**
   * Schema validation per the MqttSchema config (off unless `enable`). A payload failing the bound
   * schemas (Strict: must match ALL, Forward: ANY) is delivered anyway with `failed_operation`
   * Ignore (traced), or refused with Disconnect, which also disconnects the publishing client.
   * Returns the refusal text, or undefined when the publish goes on.
   */
  private schemaRefusal(tenant: string, topic: string, payload: string, publisher: ClientState | undefined): string | undefined {
    const cfg = this.deps.config.current().MqttSchema;
    if (!cfg.enable) return undefined;
    const verdict = this.schemaValidation.validate(tenant, topic, payload, cfg.strategy);
    if (verdict.ok) return undefined;
    const clientId = publisher?.clientId;
    this.deps.engine.record('mqtt.schema.invalid', {
      tenant,
      topic,
      clientId: clientId ?? null,
      action: cfg.failed_operation,
      problems: verdict.problems.length,
    });
    if (cfg.failed_operation === 'Ignore') return undefined;
    this.counters.countDropped(tenant, 1);
    if (publisher?.connection) this.closeConnection(publisher, 'connection-lost');
    return `message does not match the schema(s) bound to ${topic} (strategy ${cfg.strategy}): ${verdict.problems.join('; ')}${clientId ? `; client ${clientId} disconnected` : ''}`;
  }

  /** A push that could not be made: the subscriber (or every member of its share group) is offline. */
  private recordFailure(sub: Subscription, topic: string): void {
    const stats = this.subscriptions.pushStats(sub, topic, this.deps.engine.now());
    stats.lastRunAt = this.deps.engine.now();
    stats.failure++;
    sub.failureTotal++;
  }

  /**
   * One delivery attempt; fails when the subscriber is offline, unless it is a network client whose
   * session keeps the message (MqttOfflineMessage). Online deliveries have a seeded latency, and a
   * network client's connection gets the message itself. `retainedOnSubscribe`: a retained message
   * sent because of a subscribe, which keeps its RETAIN flag (MQTT 3.1.1 §3.3.1.3).
   */
  private deliver(sub: Subscription, message: RoutedMessage, retainedOnSubscribe = false): boolean {
    const now = this.deps.engine.now();
    const topic = message.topic;
    const client = this.clients.get(clientKey(sub.tenant, sub.clientId));
    if (!client?.connection) {
      // A network client's session keeps QoS 1/2 messages for it (MqttOfflineMessage); a simulated one's never does.
      if (
        client?.networkClient &&
        client.session &&
        keepWhileOffline(client.session, copyFor(sub, message, false), this.deps.config.current().MqttOfflineMessage, now)
      ) {
        this.countPush(sub, client, topic, now);
        return true;
      }
      this.recordFailure(sub, topic);
      return false;
    }
    this.countPush(sub, client, topic, now);
    // Most pushes take a few ms; a few queue behind a busy client or a slow link.
    const internalMs = this.latencyRng.chance(0.02) ? this.latencyRng.int(300, 3_000) : this.latencyRng.int(0, 15);
    const sendMs = this.latencyRng.chance(0.01) ? this.latencyRng.int(500, 4_000) : this.latencyRng.int(1, 40);
    this.slowSubscriptions.observe({
      tenant: sub.tenant,
      clientId: sub.clientId,
      topic,
      path: sub.path,
      nodeId: client.connection.nodeId,
      internalMs,
      sendMs,
    });
    client.connection.sink?.deliver(copyFor(sub, message, retainedOnSubscribe));
    return true;
  }

  private countPush(sub: Subscription, client: ClientState, topic: string, now: number): void {
    const stats = this.subscriptions.pushStats(sub, topic, now);
    stats.lastRunAt = now;
    stats.success++;
    stats.lastPushAt = now;
    sub.successTotal++;
    client.messagesOut++;
    this.counters.countOut(sub.tenant, topic);
  }

  /**
   * Messages a network client's connection still held unacknowledged when the broker closed it
   * (takeover, node offline): resent on the client's current connection, kept by its session while
   * it is offline, dropped when the session ended. Returns how many were taken.
   */
  requeue(tenant: string, clientId: string, messages: readonly PendingMessage[]): number {
    const client = this.clients.get(clientKey(tenant, clientId));
    if (!client?.session || messages.length === 0) return 0;
    if (client.connection) {
      for (const m of messages) client.connection.sink?.deliver(m);
    } else {
      keepUnacknowledged(client.session, messages);
    }
    return messages.length;
  }

  /**
   * A packet arrived on a network client's connection (its heartbeat, shown as last_heartbeat_time).
   * Not journaled: nothing later depends on it, and the connection does not outlive a restart.
   */
  touch(tenant: string, clientId: string, connectionId: number): void {
    const conn = this.clients.get(clientKey(tenant, clientId))?.connection;
    if (conn && conn.connectionId === connectionId) this.heartbeatAt(conn, this.deps.engine.now());
  }

  /** A connection's last heartbeat; the lists show it in seconds, so a new second is a change of them. */
  private heartbeatAt(conn: LiveConnection, now: number): void {
    if (unixSeconds(now) !== unixSeconds(conn.lastHeartbeatAt)) this.heartbeatSeconds++;
    conn.lastHeartbeatAt = now;
  }

  /**
   * The client and session lists' versions. The client list shows a network client's in-flight counts
   * and topic aliases, read from its connection as they are: no version while one is connected.
   */
  private clientsListVersion(list: 'client' | 'session'): ListVersion | undefined {
    if (list === 'session') return { owner: this.sessionsVersionOwner, version: this.clientChanges };
    return this.networkSinks > 0 ? undefined : { owner: this.clients, version: this.clientChanges + this.heartbeatSeconds };
  }

  /** Virtual ms a network client's message expires at: its MQTT 5 expiry, capped by max_message_expiry_interval. */
  private expiryOf(extras: MessageExtras | undefined, now: number): number | null {
    const seconds = extras?.properties?.messageExpiryInterval;
    if (seconds === undefined) return null;
    return now + Math.min(seconds, this.deps.config.current().MqttProtocol.max_message_expiry_interval) * 1000;
  }

  // ---------------------------------------------------------------- reading

  client(tenant: string, clientId: string): ClientState | undefined {
    return this.clients.get(clientKey(tenant, clientId));
  }

  /** The client with this `clientKey(tenant, clientId)`. */
  clientByKey(key: string): ClientState | undefined {
    return this.clients.get(key);
  }

  isConnected(tenant: string, clientId: string): boolean {
    return this.clients.get(clientKey(tenant, clientId))?.connection != null;
  }

  /** Every known client (connected, or disconnected with a live session), in first-connect order. */
  allClients(): IterableIterator<ClientState> {
    return this.clients[Symbol.iterator]();
  }

  /** Calls `visit` with every known client in the order of `allClients()`. */
  forEachClient(visit: (client: ClientState) => void): void {
    this.clients.forEachRecord(visit);
  }

  /** The client list, served from the index (its query scans it once and views only the sample). */
  clientListing(): IndexedList<IndexEntry<ClientState>, ClientRecordView> {
    return this.clients.listing(clientRecord, { listVersion: this.clientsListVersion('client') });
  }

  /** The session list (clients with a session), served like the client list. */
  sessionListing(): IndexedList<IndexEntry<ClientState>, SessionRecordView> {
    return this.clients.listing(sessionRecord, {
      where: (c) => c.session !== null,
      fieldsFromView: sessionRecord,
      listVersion: this.clientsListVersion('session'),
    });
  }

  /** The subscription list's records (spec: Subscription record), in subscribe order. */
  subscriptionsList(): SubscriptionRecordView[] {
    return [...this.subscriptions.all()].map(subscriptionRecord);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  get connectionCount(): number {
    return this.liveTotal;
  }

  sessionCount(): number {
    let n = 0;
    for (const count of this.sessionsByTenant.values()) n += count;
    return n;
  }
}
