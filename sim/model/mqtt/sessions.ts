import type { PublishInput } from './broker-api.ts';
import type { ClientRegistry } from './client-registry.ts';
import type { ConnectionCloseReason, PendingMessage } from './delivery.ts';
import { HeartbeatWheel } from './heartbeat-wheel.ts';
import { clientKey, type ClientState, type LastWill } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { keepUnacknowledged } from './session-queue.ts';
import type { SubscriptionStore } from './subscriptions.ts';

const HOUSEKEEPING_MS = 5_000;

/** What the sessions part uses of the broker's other parts. */
export interface SessionParts {
  deps: Pick<MqttBrokerDeps, 'engine' | 'nodes'>;
  registry: ClientRegistry;
  subscriptions: Pick<SubscriptionStore, 'removeClient'>;
  /** Publishes a last will. */
  publish(input: PublishInput): unknown;
  /** Closes a client's connection (housekeeping closes those of offline nodes). */
  closeConnection(client: ClientState, why: ConnectionCloseReason): void;
}

/**
 * Sessions after their connection: the last will, the session's end (clean start, expiry), and the
 * housekeeping tick (simulated keep-alive heartbeats, connections of nodes gone offline).
 */
export class Sessions {
  /** Connections by the housekeeping tick of their next keep-alive heartbeat. */
  readonly heartbeats = new HeartbeatWheel(HOUSEKEEPING_MS);

  constructor(private readonly parts: SessionParts) {}

  start(): void {
    const engine = this.parts.deps.engine;
    this.heartbeats.start(engine.now());
    engine.every(HOUSEKEEPING_MS, 'mqtt.housekeeping', () => this.housekeeping());
  }

  /**
   * The session's side of a closed connection (not a takeover): the will goes out unless the client
   * disconnected normally; the session ends now, or keeps the unacknowledged messages until it expires.
   */
  afterClose(client: ClientState, why: ConnectionCloseReason, keep?: readonly PendingMessage[]): void {
    const session = client.session!;
    session.disconnectAt = this.parts.deps.engine.now();
    const will = session.lastWill;
    session.lastWill = null;
    if (will && why !== 'disconnect') this.scheduleWill(client, will);
    if ((client.last.cleanStart && !session.survivesCleanStart) || session.sessionExpiry === 0) {
      this.end(client, 'disconnect');
      this.parts.registry.forgetIfIdle(client);
      return;
    }
    if (keep) keepUnacknowledged(session, keep);
    const generation = client.generation;
    this.parts.deps.engine.after(session.sessionExpiry * 1000, 'mqtt.session.expire', () => {
      if (
        client.generation !== generation ||
        client.connection ||
        this.parts.registry.get(clientKey(client.tenant, client.clientId)) !== client
      )
        return;
      this.end(client, 'expired');
      this.parts.registry.forgetIfIdle(client);
    });
  }

  private scheduleWill(client: ClientState, will: LastWill): void {
    const delayS = Math.min(will.properties?.delay_interval ?? 0, client.session?.sessionExpiry ?? 0);
    const generation = client.generation;
    const engine = this.parts.deps.engine;
    const fire = (): void => {
      // A reconnect within the delay cancels the will (MQTT 5 §3.1.3.2.2).
      if (delayS > 0 && (client.generation !== generation || client.connection)) return;
      engine.record('mqtt.will', { tenant: client.tenant, clientId: client.clientId, topic: will.topic });
      this.parts.publish({
        tenant: client.tenant,
        topic: will.topic,
        payload: will.message,
        qos: will.qos,
        retain: will.retain,
        ...(will.extras ? { extras: will.extras } : {}),
      });
    };
    if (delayS === 0) fire();
    else engine.after(delayS * 1000, 'mqtt.will', fire);
  }

  /** Ends a client's session with its subscriptions. */
  end(client: ClientState, why: string): void {
    if (!client.session) return;
    const registry = this.parts.registry;
    client.session = null;
    registry.changes++;
    const removed = this.parts.subscriptions.removeClient(client.tenant, client.clientId);
    registry.countSession(client.tenant, -1);
    this.parts.deps.engine.record('mqtt.session.end', { clientId: client.clientId, subscriptions: removed, tenant: client.tenant, why }); // keys sorted
  }

  /**
   * Heartbeats of idle clients (a PINGREQ every keep-alive) and the connections of nodes that went
   * offline. Only the connections whose heartbeat falls due at this tick are looked at (a connection
   * that published since is put back at its new due time); all clients are scanned only while a node
   * holding connections is offline.
   */
  private housekeeping(): void {
    const { deps, registry } = this.parts;
    const now = deps.engine.now();
    const nodes = deps.nodes;
    const lost: ClientState[] = [];
    let nodeDown = false;
    for (const [nodeId, live] of registry.liveByNode) if (live > 0 && !nodes.get(nodeId)?.online) nodeDown = true;
    if (nodeDown) {
      for (const client of registry) {
        if (client.connection && !nodes.get(client.connection.nodeId)?.online) lost.push(client);
      }
    }
    let heartbeats = 0;
    for (const entry of this.heartbeats.take(this.heartbeats.tickAt(now))) {
      const conn = entry.connection;
      if (conn.closed) continue; // closed since: its entry is stale (heartbeatEntryStale, read from the connection alone)
      if (!nodes.get(conn.nodeId)?.online) continue; // lost: closed below
      const periodMs = entry.periodMs; // the client's last.keepAlive: a later connect makes this entry stale
      if (now - conn.lastHeartbeatAt >= periodMs) {
        registry.heartbeatAt(conn, now);
        heartbeats++;
      }
      this.heartbeats.add(entry, conn.lastHeartbeatAt + periodMs);
    }
    for (const client of lost) this.parts.closeConnection(client, 'node-offline');
    if (heartbeats > 0) deps.engine.record('mqtt.heartbeats', { count: heartbeats });
  }
}
