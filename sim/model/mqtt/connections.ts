import type { SeededRandom } from '../engine/seeded-random.ts';
import type { ConnectedEvent, ConnectInput, ConnectResult } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import { admissionRefusal, normalizeConnect, type AdmissionParts, type NormalizedConnect, type Refused } from './connect-admission.ts';
import type { ConnectionCloseReason, PendingMessage } from './delivery.ts';
import type { FlappingDetector } from './flapping-detector.ts';
import { clientKey, type ClientState, type ConnectParams } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { RateWindow } from './rate-window.ts';
import { takePending } from './session-queue.ts';
import type { Sessions } from './sessions.ts';
import type { SubscriptionStore } from './subscriptions.ts';

/** What the connections part uses of the broker's other parts. */
export interface ConnectionParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'nodes' | 'tenants' | 'blacklist'>;
  registry: ClientRegistry;
  rates: RateWindow;
  flapping: Pick<FlappingDetector, 'isBanned' | 'onConnectAttempt'>;
  sessions: Pick<Sessions, 'afterClose' | 'end' | 'heartbeats'>;
  subscriptions: Pick<SubscriptionStore, 'moveToBroker'>;
  /** The broker's seeded stream (the node and port of a connect), forked at start. */
  rng(): SeededRandom;
}

/** Clients connecting (admission, takeover, session resumption) and their connections closing. */
export class Connections {
  private nextConnectionId = 1;
  private readonly listeners: ((e: ConnectedEvent) => void)[] = [];
  private readonly closeListeners: ((client: ClientState) => void)[] = [];
  private readonly admission: AdmissionParts;

  constructor(private readonly parts: ConnectionParts) {
    this.admission = parts;
  }

  private refused(input: ConnectInput, { refusal, reason }: Refused): ConnectResult {
    this.parts.deps.engine.record('mqtt.connect.refused', { tenant: input.tenant, clientId: input.clientId, reason });
    return { ok: false, reason, refusal };
  }

  connect(input: ConnectInput): ConnectResult {
    const { deps, registry, rates } = this.parts;
    const req = normalizeConnect(input, deps, this.parts.rng());
    if ('refusal' in req) return this.refused(input, req);
    const key = clientKey(req.tenant, req.clientId);
    const existing = registry.get(key);
    const refusal = admissionRefusal(this.admission, req, existing);
    if (refusal) return this.refused(input, refusal);
    const { tenant, clientId, nodeId, connectionType, protocol } = req;
    rates.countConnect(tenant);
    const now = deps.engine.now();
    if (existing?.connection) this.closeConnection(existing, 'takeover');
    const last = this.connectParams(input, req, now);
    let client = existing;
    if (!client) {
      client = { tenant, clientId, last, connection: null, session: null, messagesIn: 0, messagesOut: 0, nextPkId: 1, generation: 0 };
      registry.add(key, client);
    }
    client.last = last;
    client.generation++;
    if (input.networkClient) client.networkClient = true;
    else if (client.networkClient) client.networkClient = false;
    const sessionPresent = this.openSession(client, input, req, now);
    client.connection = { connectionId: last.connectionId, nodeId, lastHeartbeatAt: now, ...(input.sink ? { sink: input.sink } : {}) };
    if (input.sink) registry.networkSinks++;
    registry.changes++;
    // A network client's heartbeats are its own packets (see touch); only simulated clients get simulated ones.
    if (req.keepAlive > 0 && !input.networkClient)
      this.parts.sessions.heartbeats.add(
        { client, connection: client.connection, periodMs: req.keepAlive * 1000 },
        now + req.keepAlive * 1000,
      );
    registry.countLive(nodeId, tenant, +1);
    const connectionId = last.connectionId;
    // Keys in sorted order: the trace's canonical JSON of such a detail is JSON.stringify's, made natively.
    deps.engine.record('mqtt.connect', { clientId, connectionId, nodeId, protocol, sessionPresent, tenant, type: connectionType });
    // What the session kept while no connection took it goes out first (MQTT: resend unacknowledged
    // messages on reconnect). Without a sink (a journal being replayed) it is consumed just the same.
    const session = client.session!;
    if (session.pending) {
      for (const m of takePending(session, now, deps.config.current().MqttOfflineMessage.expire_ms)) input.sink?.deliver(m);
    }
    const event: ConnectedEvent = { tenant, clientId, username: req.username, ip: req.ip, nodeId, sessionPresent };
    for (const listener of [...this.listeners]) listener(event);
    return { ok: true, connectionId, nodeId, sessionPresent };
  }

  /** The parameters of a new connection: the request's, or the protocol config's defaults. */
  private connectParams(input: ConnectInput, req: NormalizedConnect, now: number): ConnectParams {
    const protocolCfg = this.parts.deps.config.current().MqttProtocol;
    const connectionId = this.nextConnectionId++;
    const port = req.port ?? this.parts.rng().int(30_000, 65_000);
    const { protocol } = req;
    return {
      connectionId,
      username: req.username,
      ip: req.ip,
      port,
      connectionType: req.connectionType,
      protocol,
      keepAlive: req.keepAlive,
      cleanStart: req.cleanStart,
      receiveMaximum: input.receiveMaximum ?? protocolCfg.receive_max,
      maxPacketSize: input.maxPacketSize ?? protocolCfg.max_packet_size,
      topicAliasMax: protocol === 5 ? (input.topicAliasMax ?? protocolCfg.topic_alias_max) : 0,
      requestProblemInfo: protocol === 5 ? 1 : 0,
      nodeId: req.nodeId,
      connectedAt: now,
    };
  }

  /** Resumes the client's session on the new node (unless a clean start ends it), or opens one. Returns whether one was resumed. */
  private openSession(client: ClientState, input: ConnectInput, req: NormalizedConnect, now: number): boolean {
    const { tenant, clientId, nodeId, sessionExpiry } = req;
    let sessionPresent = false;
    if (client.session && req.cleanStart) this.parts.sessions.end(client, 'clean-start');
    if (client.session) {
      sessionPresent = true;
      client.session.reconnectAt = now;
      client.session.brokerId = nodeId;
      client.session.sessionExpiry = sessionExpiry;
      client.session.lastWill = req.lastWill;
      // The resumed session now lives on this node, and so do its subscriptions.
      this.parts.subscriptions.moveToBroker(tenant, clientId, nodeId);
    } else {
      client.session = { sessionExpiry, createdAt: now, reconnectAt: null, disconnectAt: null, brokerId: nodeId, lastWill: req.lastWill };
      this.parts.registry.countSession(tenant, +1);
    }
    if (input.mqtt5Session) client.session.survivesCleanStart = true;
    else if (client.session.survivesCleanStart) client.session.survivesCleanStart = false;
    return sessionPresent;
  }

  /**
   * Calls `listener` after every admitted connection, in registration order. Returns a function that
   * removes the listener.
   */
  onConnect(listener: (e: ConnectedEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Calls `listener` with the client whenever one of its connections closes (a takeover included). */
  onClose(listener: (client: ClientState) => void): () => void {
    this.closeListeners.push(listener);
    return () => {
      const i = this.closeListeners.indexOf(listener);
      if (i >= 0) this.closeListeners.splice(i, 1);
    };
  }

  /** See `MqttBroker.disconnect`. */
  disconnect(
    clientId: string,
    tenant: string,
    options: { clean: boolean; connectionId?: number; sessionExpiry?: number; keep?: readonly PendingMessage[] },
  ): boolean {
    const client = this.parts.registry.get(clientKey(tenant, clientId));
    if (!client?.connection) return false;
    if (options.connectionId !== undefined && client.connection.connectionId !== options.connectionId) return false;
    if (options.sessionExpiry !== undefined && client.session) {
      client.session.sessionExpiry = Math.min(
        options.sessionExpiry,
        this.parts.deps.config.current().MqttProtocol.max_session_expiry_interval,
      );
      this.parts.registry.changes++;
    }
    this.closeConnection(client, options.clean ? 'disconnect' : 'connection-lost', options.keep);
    return true;
  }

  closeConnection(client: ClientState, why: ConnectionCloseReason, keep?: readonly PendingMessage[]): void {
    const { deps, registry } = this.parts;
    const conn = client.connection!;
    client.connection = null;
    conn.closed = true;
    client.generation++;
    registry.changes++;
    for (const listener of this.closeListeners) listener(client);
    if (conn.sink) registry.networkSinks--;
    registry.countLive(conn.nodeId, client.tenant, -1);
    deps.engine.record('mqtt.disconnect', { clientId: client.clientId, connectionId: conn.connectionId, tenant: client.tenant, why }); // keys sorted
    conn.sink?.closed(why);
    if (why === 'takeover') return; // the new connection takes the session over at once
    this.parts.sessions.afterClose(client, why, keep);
  }
}
