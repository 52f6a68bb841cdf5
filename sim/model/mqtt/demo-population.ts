import type { MqttBrokerDeps } from './peer-parts.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { ConnectionType, ProtocolVersion, QoS, RetainHandling } from './mqtt-labels.ts';
import { clientKey, type ClientState, type LastWill } from './mqtt-model.ts';
import type {
  ConnectedEvent,
  ConnectInput,
  ConnectResult,
  PublishInput,
  PublishResult,
  SubscribeInput,
  SubscribeResult,
} from './broker-api.ts';

/** One subscription a demo client makes when it (re)connects without a session. */
interface DemoSubscription {
  path: string;
  qos: QoS;
  noLocal?: boolean;
  preserveRetain?: boolean;
  retainHandling?: RetainHandling;
  subscriptionIdentifier?: number;
}

/** A simulated device or application: how it connects, what it subscribes to and publishes. */
export interface DemoClientSpec {
  tenant: string;
  clientId: string;
  username: string;
  ip: string;
  connectionType: ConnectionType;
  protocol: ProtocolVersion;
  cleanStart: boolean;
  sessionExpiry: number;
  keepAlive: number;
  lastWill: LastWill | null;
  subscriptions: DemoSubscription[];
  /** Topics it publishes on, with the kind of payload. */
  publishes: { topic: string; kind: 'temperature' | 'job' | 'alert' | 'status' }[];
  /** Reconnects every few seconds (exercises flapping detection when it is enabled). */
  flappy: boolean;
  /** Disconnected (with a surviving session) after the initial connect. */
  startsOffline: boolean;
}

/** Seconds between life ticks and the publish budget of one tick (a handful of messages per second). */
const TICK_MS = 2_000;
const PUBLISHES_PER_TICK: [number, number] = [4, 10];
const SEVERITIES = ['critical', 'warning', 'info'] as const;
/** Above this many clients the tick samples instead of visiting every client (see `sampledTick`). */
const SAMPLED_TICK_ABOVE = 2_000;
/** Telemetry topics per fleet group (see `resize`). */
const FLEET_CHANNELS = 4;

/** The broker as the demo population drives it: its clients connect, subscribe, publish and drop. */
export interface DemoBroker {
  connect(input: ConnectInput): ConnectResult;
  disconnect(clientId: string, tenant: string, options: { clean: boolean }): boolean;
  subscribe(input: SubscribeInput): SubscribeResult;
  publish(input: PublishInput): PublishResult;
  onConnect(listener: (e: ConnectedEvent) => void): () => void;
  onConnectionClosed(listener: (client: ClientState) => void): () => void;
  clientByKey(key: string): ClientState | undefined;
  readonly connectionCount: number;
}

type SpecFields = Partial<DemoClientSpec> & Pick<DemoClientSpec, 'tenant' | 'clientId'>;
type AddSpec = (s: SpecFields) => void;

/** A demo client: the fields given, the demo's defaults for the rest. */
function demoClient(s: SpecFields): DemoClientSpec {
  return {
    username: s.clientId.split('-')[0],
    ip: '10.0.0.1',
    connectionType: 'Tcp',
    protocol: 5,
    cleanStart: false,
    sessionExpiry: 7_200,
    keepAlive: 60,
    lastWill: null,
    subscriptions: [],
    publishes: [],
    flappy: false,
    startsOffline: false,
    ...s,
  };
}

/**
 * The demo workload of the MQTT side: about 60 clients across the four demo tenants, with sessions,
 * last wills, ~100 subscriptions (some shared), and a life of seeded publishes, reconnects, flappy
 * clients and `$SYS` system topics. Everything is drawn from its own random stream, so the demo does
 * not shift other parts' draws.
 */
export class DemoPopulation {
  private specs: DemoClientSpec[] = [];
  private rng!: SeededRandom;
  /** `--clients N`: population size; undefined keeps the hand-made demo exactly (same trace per seed). */
  private targetSize: number | undefined;
  /** Publishing and flappy clients of a large population, computed once (sampled tick). */
  private publishers: DemoClientSpec[] = [];
  private flappies: DemoClientSpec[] = [];
  /** Spec index of each of `publishers`. */
  private publisherAt = new Int32Array(0);
  /** Per spec index, 1 when flappy (a spec's `flappy` never changes once built). */
  private flappyAt = new Uint8Array(0);
  /** Publishes per tick, scaled with the population (see `setTargetSize`). */
  private publishesPerTick: [number, number] = PUBLISHES_PER_TICK;

  constructor(
    private readonly deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'nodes'>,
    private readonly broker: DemoBroker,
  ) {}

  /** The demo's client specs (for tests and tools). */
  clients(): readonly DemoClientSpec[] {
    return this.specs;
  }

  /**
   * Sizes the population (call before the cluster starts). Fewer than the hand-made demo keeps its
   * first N clients; more adds generated fleet clients spread over the demo tenants. The publish
   * budget grows with the square root of the size, so 10,000 clients publish ~45 messages per second
   * instead of ~600 and a virtual hour stays cheap.
   */
  setTargetSize(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new Error(`--clients must be a whole number >= 0, got ${n}`);
    this.targetSize = n;
    const scale = Math.sqrt(Math.max(n, 1) / 60);
    this.publishesPerTick = [
      Math.max(1, Math.round(PUBLISHES_PER_TICK[0] * scale)),
      Math.max(1, Math.round(PUBLISHES_PER_TICK[1] * scale)),
    ];
  }

  seed(): void {
    this.rng = this.deps.engine.random.fork('mqtt.demo');
    this.specs = this.buildSpecs();
    if (this.targetSize !== undefined) this.specs = this.resize(this.specs, this.targetSize);
    this.specs.forEach((spec, i) => {
      this.indexOf.set(spec, i);
      let ofTenant = this.indexByTenant.get(spec.tenant);
      if (!ofTenant) this.indexByTenant.set(spec.tenant, (ofTenant = new Map()));
      ofTenant.set(spec.clientId, i);
    });
    this.keepOnlineFlags();
    for (const spec of this.specs) {
      if (this.connect(spec) && spec.startsOffline) this.broker.disconnect(spec.clientId, spec.tenant, { clean: true });
    }
    // A first reading of every sensor, so topics and retained values exist from the start.
    for (const spec of this.specs) for (const p of spec.publishes) this.publishFrom(spec, p.topic, p.kind);
  }

  /** Schedules the life of the population (only called with the demo workload). */
  startLife(): void {
    this.deps.engine.every(TICK_MS, 'mqtt.demo.tick', () => this.tick());
    const sysTopics = (): void => {
      this.publishSystemTopics();
      this.deps.engine.after(
        Math.max(1_000, this.deps.config.current().MqttSystemMonitor.system_topic_interval_ms),
        'mqtt.demo.sys',
        sysTopics,
      );
    };
    this.deps.engine.after(
      Math.max(1_000, this.deps.config.current().MqttSystemMonitor.system_topic_interval_ms),
      'mqtt.demo.sys',
      sysTopics,
    );
  }

  private ip(tenantIndex: number): string {
    return `10.${10 + tenantIndex}.${this.rng.int(0, 255)}.${this.rng.int(1, 254)}`;
  }

  private will(clientId: string, protocol: ProtocolVersion, delay: number): LastWill {
    return {
      topic: `status/${clientId}`,
      message: JSON.stringify({ online: false, client: clientId }),
      qos: 1,
      retain: true,
      properties:
        protocol === 5
          ? {
              delay_interval: delay,
              payload_format_indicator: 1,
              message_expiry_interval: 3600,
              content_type: 'application/json',
              response_topic: '',
              correlation_data: '',
              user_properties: [{ key: 'reason', value: 'connection-lost' }],
            }
          : null,
    };
  }

  private buildSpecs(): DemoClientSpec[] {
    const specs: DemoClientSpec[] = [];
    const add: AddSpec = (s) => specs.push(demoClient(s));
    // In this order: the specs draw from the seeded rng.
    this.addAcme(add);
    this.addGlobex(add);
    this.addInitech(add);
    this.addDefault(add);
    return specs;
  }

  /** Whether a client starts offline (for the clients that may). */
  private offline(): boolean {
    return this.rng.chance(0.45);
  }

  /** acme: factory lines publish temperatures; dashboards watch them; workers share a job queue. */
  private addAcme(add: AddSpec): void {
    for (let line = 1; line <= 4; line++) {
      add({
        tenant: 'acme',
        clientId: `acme-line${line}-plc`,
        username: 'acme-plc',
        ip: this.ip(1),
        protocol: 4,
        keepAlive: 30,
        lastWill: this.will(`acme-line${line}-plc`, 4, 0),
        subscriptions: [{ path: `factory/line${line}/setpoint`, qos: 1 }],
        publishes: [{ topic: `factory/line${line}/temperature`, kind: 'temperature' }],
      });
    }
    for (let n = 1; n <= 3; n++) {
      add({
        tenant: 'acme',
        clientId: `acme-dashboard-${n}`,
        username: 'acme-ui',
        ip: this.ip(1),
        connectionType: 'Websockets',
        startsOffline: n === 3,
        subscriptions: [
          { path: 'factory/+/temperature', qos: 0, subscriptionIdentifier: n },
          { path: 'alerts/#', qos: 1, retainHandling: 1 },
          { path: 'status/#', qos: 1, retainHandling: 0 },
        ],
      });
    }
    for (let n = 1; n <= 6; n++) {
      add({
        tenant: 'acme',
        clientId: `acme-worker-${n}`,
        username: 'acme-worker',
        ip: this.ip(1),
        keepAlive: 20,
        startsOffline: this.offline(),
        subscriptions: [
          { path: '$share/workers/jobs/#', qos: 1 },
          { path: `jobs/results/${n}`, qos: 1, noLocal: true },
        ],
      });
    }
    add({
      tenant: 'acme',
      clientId: 'acme-scheduler',
      username: 'acme-ops',
      ip: this.ip(1),
      publishes: [
        { topic: 'jobs/1', kind: 'job' },
        { topic: 'jobs/2', kind: 'job' },
        { topic: 'jobs/3', kind: 'job' },
      ],
    });
    add({
      tenant: 'acme',
      clientId: 'acme-monitor',
      username: 'acme-ops',
      ip: this.ip(1),
      connectionType: 'Tls',
      publishes: SEVERITIES.map((s) => ({ topic: `alerts/${s}`, kind: 'alert' as const })),
    });
    // Blacklisted by the demo blacklist (ClientId entry of tenant acme): never gets in.
    add({
      tenant: 'acme',
      clientId: 'sensor-rogue-01',
      username: 'acme-plc',
      ip: this.ip(1),
      publishes: [{ topic: 'factory/line9/temperature', kind: 'temperature' }],
    });
  }

  /** globex: battery sensors over QUIC and TLS, collectors consuming them, partly through a share group. */
  private addGlobex(add: AddSpec): void {
    for (let i = 1; i <= 14; i++) {
      const id = `s${String(i).padStart(2, '0')}`;
      add({
        tenant: 'globex',
        clientId: `globex-sensor-${id}`,
        username: 'globex-sensor',
        ip: this.ip(2),
        connectionType: i % 3 === 0 ? 'Tls' : 'Quic',
        protocol: i % 4 === 0 ? 4 : 5,
        keepAlive: 120,
        sessionExpiry: 86_400,
        startsOffline: this.offline(),
        lastWill: i % 2 === 0 ? this.will(`globex-sensor-${id}`, i % 4 === 0 ? 4 : 5, 10) : null,
        subscriptions: [{ path: `sensors/${id}/config`, qos: 1 }],
        publishes: [{ topic: `sensors/${id}/temperature`, kind: 'temperature' }],
      });
    }
    for (let n = 1; n <= 4; n++) {
      add({
        tenant: 'globex',
        clientId: `globex-collector-${n}`,
        username: 'globex-backend',
        ip: this.ip(2),
        subscriptions: [
          { path: '$share/collectors/sensors/+/temperature', qos: 1 },
          { path: 'sensors/+/config', qos: 0 },
          { path: 'status/#', qos: 0, retainHandling: 2 },
        ],
      });
    }
    add({
      tenant: 'globex',
      clientId: 'globex-archiver',
      username: 'globex-backend',
      ip: this.ip(2),
      cleanStart: true,
      subscriptions: [{ path: 'sensors/#', qos: 2, preserveRetain: true }],
    });
  }

  /** initech: a staging app on plain websockets and MQTT 3.1, jobs and alerts. */
  private addInitech(add: AddSpec): void {
    for (let n = 1; n <= 6; n++) {
      add({
        tenant: 'initech',
        clientId: `initech-app-${n}`,
        username: 'initech',
        ip: this.ip(3),
        connectionType: 'Websocket',
        protocol: 3,
        keepAlive: 45,
        cleanStart: n % 3 === 0,
        startsOffline: n % 3 !== 0 && this.offline(),
        subscriptions: [
          { path: `jobs/${n}`, qos: 1 },
          { path: 'alerts/critical', qos: 1 },
          { path: 'jobs/#', qos: 0 },
        ],
        publishes: [{ topic: `jobs/${n + 3}`, kind: 'job' }],
      });
    }
    add({
      tenant: 'initech',
      clientId: 'initech-pager',
      username: 'initech',
      ip: this.ip(3),
      connectionType: 'Tls',
      publishes: SEVERITIES.map((s) => ({ topic: `alerts/${s}`, kind: 'alert' as const })),
      subscriptions: [{ path: 'alerts/+', qos: 2 }],
    });
  }

  /** default: mixed devices, a $SYS watcher, flappy clients and a client from the blocked scanner net. (One flappy client is of acme.) */
  private addDefault(add: AddSpec): void {
    const rng = this.rng;
    const types: ConnectionType[] = ['Tcp', 'Tls', 'Websocket', 'Websockets', 'Quic'];
    for (let n = 1; n <= 10; n++) {
      const protocol = rng.pick([3, 4, 5] as const);
      add({
        tenant: 'default',
        clientId: `device-${String(n).padStart(3, '0')}`,
        username: 'device',
        ip: this.ip(0),
        connectionType: types[n % types.length],
        protocol,
        keepAlive: rng.pick([30, 60, 90]),
        cleanStart: n % 4 === 0,
        startsOffline: n % 4 !== 0 && this.offline(),
        lastWill: n % 3 === 0 ? this.will(`device-${String(n).padStart(3, '0')}`, protocol, 5) : null,
        subscriptions: [
          { path: `devices/${n}/commands`, qos: 1 },
          { path: 'devices/broadcast', qos: 0 },
        ],
        publishes: [{ topic: `devices/${n}/status`, kind: 'status' }],
      });
    }
    add({ tenant: 'default', clientId: 'sys-watcher', username: 'admin', ip: '127.0.0.1', subscriptions: [{ path: '$SYS/#', qos: 0 }] });
    for (const id of ['flappy-01', 'flappy-02'])
      add({
        tenant: 'default',
        clientId: id,
        username: 'device',
        ip: this.ip(0),
        protocol: 4,
        keepAlive: 15,
        flappy: true,
        subscriptions: [{ path: `devices/${id}/commands`, qos: 1 }],
      });
    add({
      tenant: 'acme',
      clientId: 'acme-flappy-gw',
      username: 'acme-plc',
      ip: this.ip(1),
      flappy: true,
      subscriptions: [{ path: 'factory/line1/setpoint', qos: 0 }],
    });
    add({ tenant: 'default', clientId: 'scanner-01', username: 'guest', ip: '203.0.113.7' });
  }

  /**
   * Generated fleet clients beyond the hand-made demo: device-like clients spread round-robin over
   * the demo tenants, ~30% starting offline (so ~70% are connected, as the tick's churn keeps it),
   * with 1-2 subscriptions each (~1.5 on average) and one telemetry channel to publish on (QoS 0, not
   * retained). Fleet clients share a few hundred telemetry topics (50 groups x 4 channels) rather than
   * one topic each: routing is cached per topic, so 10,000 distinct topics would cost a scan of every
   * subscription per topic and make a virtual hour of 10,000 clients slow.
   */
  private resize(base: DemoClientSpec[], n: number): DemoClientSpec[] {
    if (n <= base.length) return base.slice(0, n);
    const rng = this.rng.fork('fleet');
    const tenants = ['default', 'acme', 'globex', 'initech'];
    const types: ConnectionType[] = ['Tcp', 'Tls', 'Websocket', 'Websockets', 'Quic'];
    const out = base.slice();
    for (let i = 1; out.length < n; i++) {
      const t = (i - 1) % tenants.length;
      const tenant = tenants[t];
      const clientId = `${tenant}-fleet-${String(i).padStart(6, '0')}`;
      const protocol = rng.pick([3, 4, 5, 5] as const);
      const group = `g${i % 50}`;
      const subscriptions: DemoSubscription[] = [{ path: `fleet/${group}/${i}/commands`, qos: 1 }];
      if (rng.chance(0.5))
        subscriptions.push(
          rng.chance(0.3)
            ? { path: `$share/fleet-${group}/fleet/${group}/telemetry/+`, qos: 1 }
            : { path: `fleet/${group}/broadcast`, qos: 0 },
        );
      out.push({
        tenant,
        clientId,
        username: `${tenant}-fleet`,
        ip: `10.${100 + t}.${(i >> 8) & 255}.${i & 255 || 1}`,
        connectionType: types[i % types.length],
        protocol,
        cleanStart: i % 5 === 0,
        sessionExpiry: 3_600,
        keepAlive: rng.pick([30, 60, 120]),
        lastWill: null,
        subscriptions,
        publishes: [{ topic: `fleet/${group}/telemetry/${i % FLEET_CHANNELS}`, kind: 'temperature' }],
        flappy: false,
        startsOffline: i % 5 !== 0 && rng.chance(0.3),
      });
    }
    return out;
  }

  /** Connects a spec and (re)creates its subscriptions when it has no session; false when refused. */
  private connect(spec: DemoClientSpec): boolean {
    const res = this.broker.connect({
      tenant: spec.tenant,
      clientId: spec.clientId,
      username: spec.username,
      ip: spec.ip,
      connectionType: spec.connectionType,
      protocol: spec.protocol,
      cleanStart: spec.cleanStart,
      sessionExpiry: spec.sessionExpiry,
      keepAlive: spec.keepAlive,
      lastWill: spec.lastWill,
    });
    if (!res.ok) return false;
    if (!res.sessionPresent) {
      for (const s of spec.subscriptions) this.broker.subscribe({ tenant: spec.tenant, clientId: spec.clientId, ...s });
    }
    return true;
  }

  /** Per spec index, 1 while its client is connected (see `keepOnlineFlags`). */
  private onlineFlags = new Uint8Array(0);
  private readonly indexOf = new Map<DemoClientSpec, number>();
  /**
   * Spec index by tenant, then client id, to hear of the connections of the specs' clients. Two maps
   * rather than one by clientKey: the ids given back are the specs' own strings, whose hashes V8 keeps,
   * where a built key is a new string to flatten, hash and compare per connect and close.
   */
  private readonly indexByTenant = new Map<string, Map<string, number>>();

  /**
   * Keeps whether each spec's client is connected as the broker's connections open and close. The
   * sampled tick asks this for 10,000 clients every 2 s: a flag per spec is one read of a compact
   * array, where asking the broker reads a client object scattered over a heap of a gigabyte (and
   * builds its key). Every connection opens in an admitted connect and closes in the broker's
   * closeConnection, and both are heard here, by anyone's connect or disconnect; `onlineByBroker` is
   * the obvious answer beside it, and the demo's differential test compares the two.
   */
  private keepOnlineFlags(): void {
    this.onlineFlags = Uint8Array.from(this.specs, (_, i) => (this.onlineByBroker(i) ? 1 : 0));
    const flag = (tenant: string, clientId: string, value: 0 | 1): void => {
      const i = this.indexByTenant.get(tenant)?.get(clientId);
      if (i !== undefined) this.onlineFlags[i] = value;
    };
    this.broker.onConnect((e) => flag(e.tenant, e.clientId, 1));
    this.broker.onConnectionClosed((c) => flag(c.tenant, c.clientId, 0));
  }

  private online(spec: DemoClientSpec): boolean {
    return this.onlineFlags[this.indexOf.get(spec)!] === 1;
  }

  /** Whether the client of spec `i` is connected, asked of the broker (what the kept flags must say). */
  private onlineByBroker(i: number): boolean {
    const spec = this.specs[i];
    return this.broker.clientByKey(clientKey(spec.tenant, spec.clientId))?.connection != null;
  }

  /** Spec indexes whose kept flag disagrees with the broker (none, unless a connection change went unheard): for tests. */
  onlineFlagMismatches(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.specs.length; i++) if ((this.onlineFlags[i] === 1) !== this.onlineByBroker(i)) out.push(i);
    return out;
  }

  private payload(kind: DemoClientSpec['publishes'][number]['kind'], clientId: string): string {
    const rng = this.rng;
    switch (kind) {
      case 'temperature':
        return JSON.stringify({ value: Math.round((18 + rng.next() * 12) * 10) / 10, unit: 'C' });
      case 'job':
        return JSON.stringify({ job: rng.id().slice(0, 8), by: clientId });
      case 'alert':
        return JSON.stringify({ code: rng.int(100, 999), source: clientId });
      case 'status':
        return JSON.stringify({ battery: rng.int(5, 100), rssi: -rng.int(40, 90) });
    }
  }

  /** `at`: the spec's index, when the caller knows it (the sampled tick), saving the look-up by spec. */
  private publishFrom(spec: DemoClientSpec, topic: string, kind: DemoClientSpec['publishes'][number]['kind'], at?: number): void {
    if (at === undefined ? !this.online(spec) : this.onlineFlags[at] !== 1) return;
    this.broker.publish({
      tenant: spec.tenant,
      topic,
      payload: this.payload(kind, spec.clientId),
      qos: kind === 'temperature' ? 0 : 1,
      retain: kind === 'status',
      clientId: spec.clientId,
    });
  }

  private tick(): void {
    if (this.targetSize !== undefined && this.specs.length > SAMPLED_TICK_ABOVE) {
      this.sampledTick();
      return;
    }
    const rng = this.rng;
    const connectedPublishers = this.specs.filter((s) => s.publishes.length > 0 && this.online(s));
    if (connectedPublishers.length > 0) {
      const n = rng.int(this.publishesPerTick[0], this.publishesPerTick[1]);
      for (let i = 0; i < n; i++) {
        const spec = rng.pick(connectedPublishers);
        const p = rng.pick(spec.publishes);
        // Alerts are rare; a picked alert source mostly stays quiet.
        if (p.kind === 'alert' && !rng.chance(0.1)) continue;
        this.publishFrom(spec, p.topic, p.kind);
      }
    }
    // Steady clients come and go so that about 70% are connected at any time: a connected one
    // leaves with p = 0.004 per tick, a disconnected one comes back with p = 0.01 (0.01 / 0.014 ≈ 0.7).
    for (const s of this.specs) {
      if (s.flappy) {
        if (!rng.chance(0.15)) continue;
        if (this.online(s)) this.broker.disconnect(s.clientId, s.tenant, { clean: false });
        this.connect(s);
      } else if (this.online(s)) {
        if (rng.chance(0.004)) this.broker.disconnect(s.clientId, s.tenant, { clean: rng.chance(0.6) });
      } else if (rng.chance(0.01)) {
        this.connect(s);
      }
    }
  }

  /**
   * The tick of a large population (`--clients` above SAMPLED_TICK_ABOVE): instead of visiting every
   * client, it samples. Publishers are drawn from all publishing clients and offline draws stay
   * quiet; churn visits a random tenth of the clients with ten times the probabilities, which keeps
   * the same expected leave/return rates (and so ~70% connected) at a tenth of the cost.
   */
  private sampledTick(): void {
    const rng = this.rng;
    if (this.publishers.length === 0) {
      this.publishers = this.specs.filter((s) => s.publishes.length > 0);
      this.publisherAt = Int32Array.from(this.publishers, (s) => this.indexOf.get(s)!);
      this.flappies = this.specs.filter((s) => s.flappy);
      this.flappyAt = Uint8Array.from(this.specs, (s) => (s.flappy ? 1 : 0));
    }
    const n = rng.int(this.publishesPerTick[0], this.publishesPerTick[1]);
    for (let i = 0; i < n && this.publishers.length > 0; i++) {
      const k = rng.int(0, this.publishers.length - 1); // the same draw as rng.pick(this.publishers)
      const spec = this.publishers[k];
      const p = rng.pick(spec.publishes);
      if (p.kind === 'alert' && !rng.chance(0.1)) continue;
      this.publishFrom(spec, p.topic, p.kind, this.publisherAt[k]);
    }
    for (const s of this.flappies) {
      if (!rng.chance(0.15)) continue;
      if (this.online(s)) this.broker.disconnect(s.clientId, s.tenant, { clean: false });
      this.connect(s);
    }
    const visits = Math.ceil(this.specs.length / 10);
    const last = this.specs.length - 1;
    for (let v = 0; v < visits; v++) {
      const i = rng.int(0, last); // the same draw as rng.pick(this.specs)
      if (this.flappyAt[i] === 1) continue; // spec.flappy, read without touching the spec
      // The spec is read only when its client moves (about one visit in twenty): most visits touch
      // only the compact flag arrays, not the array of 100,000 specs.
      if (this.onlineFlags[i] === 1) {
        if (rng.chance(0.04)) {
          const s = this.specs[i];
          this.broker.disconnect(s.clientId, s.tenant, { clean: rng.chance(0.6) });
        }
      } else if (rng.chance(0.1)) {
        this.connect(this.specs[i]);
      }
    }
  }

  /** `$SYS/brokers/<node>/...` topics of the default tenant, as brokers publish them. */
  private publishSystemTopics(): void {
    const now = this.deps.engine.now();
    for (const node of this.deps.nodes.online()) {
      const base = `$SYS/brokers/${node.id}`;
      const uptime = String(Math.floor((now - node.startTime) / 1000));
      this.broker.publish({ tenant: 'default', topic: `${base}/uptime`, payload: uptime, qos: 0, retain: true });
      this.broker.publish({
        tenant: 'default',
        topic: `${base}/clients/connected`,
        payload: String(this.broker.connectionCount),
        qos: 0,
        retain: true,
      });
    }
  }
}
