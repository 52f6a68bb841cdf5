import type { SeededRandom } from '../engine/seeded-random.ts';
import { fnv1a } from '../engine/fnv1a.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { subscriptionRecord, type ClientRecordView, type SessionRecordView, type SubscriptionRecordView } from './client-views.ts';
import type { PendingMessage } from './delivery.ts';
import { DemoPopulation } from './demo-population.ts';
import { FlappingDetector } from './flapping-detector.ts';
import { MessageCounters } from './message-counters.ts';
import { clientKey, type ClientState } from './mqtt-model.ts';
import type {
  ConnectInput,
  ConnectResult,
  SubscribeInput,
  SubscribeResult,
  PublishInput,
  PublishResult,
  ConnectedEvent,
  TopicSubscriber,
} from './broker-api.ts';
import { ClientRegistry } from './client-registry.ts';
import { Connections } from './connections.ts';
import { MessageRouting } from './message-routing.ts';
import { SubscriberDelivery } from './subscriber-delivery.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { RateWindow } from './rate-window.ts';
import { SchemaValidation } from './schema-validation.ts';
import { keepUnacknowledged } from './session-queue.ts';
import { Sessions } from './sessions.ts';
import { SlowSubscriptions } from './slow-subscriptions.ts';
import { Subscribing } from './subscribing.ts';
import { SubscriptionStore } from './subscriptions.ts';
import { SystemAlarms } from './system-alarms.ts';

/**
 * The MQTT side of the cluster: clients and their connections, sessions, subscriptions, message
 * routing with delivery counters, flapping detection, slow subscriptions and system alarms. Other
 * parts reach it through `connect`, `disconnect`, `subscribe`, `unsubscribe`, `publish` and
 * `subscribersOf`; the HTTP handlers read it through the view modules. It composes the parts that
 * do the work: `Connections` (connect, admission, disconnect), `Sessions` (wills, expiry,
 * housekeeping), `Subscribing` (subscribe, retained messages at subscribe, unsubscribe),
 * `MessageRouting` (a publish's checks, storing, routing) and `SubscriberDelivery` (one subscriber's
 * push and its counters), over the `ClientRegistry` they share.
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
  private readonly clients = new ClientRegistry();
  private readonly sessions: Sessions;
  private readonly connections: Connections;
  private readonly routing: MessageRouting;
  private readonly subscribing: Subscribing;
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
    const rates = new RateWindow(() => deps.engine.clock.nowSeconds());
    const registry = this.clients;
    const subscriptions = this.subscriptions;
    const closeConnection = this.closeConnection.bind(this);
    this.sessions = new Sessions({ deps, registry, subscriptions, publish: (input) => this.publish(input), closeConnection });
    this.connections = new Connections({
      deps,
      registry,
      rates,
      flapping: this.flapping,
      sessions: this.sessions,
      subscriptions,
      rng: () => this.rng,
    });
    const delivery = new SubscriberDelivery({
      deps,
      registry,
      subscriptions,
      counters: this.counters,
      slowSubscriptions: this.slowSubscriptions,
      latencyRng: () => this.latencyRng,
    });
    this.routing = new MessageRouting({
      deps,
      registry,
      subscriptions,
      counters: this.counters,
      rates,
      delivery,
      schemaValidation: this.schemaValidation,
      closeConnection,
    });
    this.subscribing = new Subscribing({ deps, registry, subscriptions, slowSubscriptions: this.slowSubscriptions, delivery });
  }

  start(): void {
    this.rng = this.deps.engine.random.fork('mqtt');
    this.shareGroupIds = this.deps.engine.random.fork('mqtt.share-groups');
    this.latencyRng = this.deps.engine.random.fork('mqtt.latency');
    this.flapping.start();
    this.alarms.start();
    this.sessions.start();
  }

  /** Seeds the demo population and schedules its life (only with `--workload demo`). */
  seedDemo(): void {
    this.demo.seed();
    this.demo.startLife();
  }

  // ---------------------------------------------------------------- connections

  connect(input: ConnectInput): ConnectResult {
    return this.connections.connect(input);
  }

  /**
   * Calls `listener` after every admitted connection, in registration order (e.g. to apply
   * auto-subscribe rules with `subscribe`). Returns a function that removes the listener.
   */
  onConnect(listener: (e: ConnectedEvent) => void): () => void {
    return this.connections.onConnect(listener);
  }

  /**
   * Calls `listener` with the client as each of its connections closes (disconnect, loss, takeover,
   * node offline), so a reader can keep who is connected per change instead of asking per client.
   * Returns a function that removes the listener.
   */
  onConnectionClosed(listener: (client: ClientState) => void): () => void {
    return this.connections.onClose(listener);
  }

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
    return this.connections.disconnect(clientId, tenant, options);
  }

  private closeConnection(client: ClientState, why: Parameters<Connections['closeConnection']>[1]): void {
    this.connections.closeConnection(client, why);
  }

  // ---------------------------------------------------------------- subscriptions

  subscribe(input: SubscribeInput): SubscribeResult {
    return this.subscribing.subscribe(input);
  }

  unsubscribe(input: { tenant: string; clientId: string; path: string }): boolean {
    return this.subscribing.unsubscribe(input);
  }

  /** Subscriptions (shared members included) whose filter matches the topic. */
  subscribersOf(tenant: string, topicName: string): TopicSubscriber[] {
    return this.subscribing.subscribersOf(tenant, topicName);
  }

  /**
   * A topic was deleted (called by the topics part): subscriptions to exactly that topic go, as on
   * the real server (wildcard subscriptions stay), and so do the push counters and slow-subscription
   * records of the topic.
   */
  onTopicDeleted(tenant: string, topicName: string): void {
    this.subscribing.onTopicDeleted(tenant, topicName);
  }

  /** Node leading a share group: drawn from the online nodes by a hash of the group, so it moves only when nodes do. */
  shareLeaderId(tenant: string, group: string): number | undefined {
    const online = this.deps.nodes.online();
    if (online.length === 0) return undefined;
    return online[fnv1a(`${tenant}/${group}`) % online.length].id;
  }

  // ---------------------------------------------------------------- messages

  publish(input: PublishInput): PublishResult {
    return this.routing.publish(input);
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
    if (conn && conn.connectionId === connectionId) this.clients.heartbeatAt(conn, this.deps.engine.now());
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
    return this.clients.clientListing();
  }

  /** The session list (clients with a session), served like the client list. */
  sessionListing(): IndexedList<IndexEntry<ClientState>, SessionRecordView> {
    return this.clients.sessionListing();
  }

  /** The subscription list's records (spec: Subscription record), in subscribe order. */
  subscriptionsList(): SubscriptionRecordView[] {
    return [...this.subscriptions.all()].map(subscriptionRecord);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  get connectionCount(): number {
    return this.clients.liveTotal;
  }

  sessionCount(): number {
    return this.clients.sessionCount();
  }
}
