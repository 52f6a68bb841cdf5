// The ONLY file under suites/ that imports sim/: the suites check the simulator exactly as they check
// any other server, through the Target interface; this adapter also gives the simulator's control
// interface (process life, protocol commands, virtual time) that no other target has.
import { Cluster } from '../../sim/model/cluster/cluster.ts';
import { AdminApp } from '../../sim/admin-api/admin-app.ts';
import { startClusterServer } from '../../sim/io/serve/cluster-server.ts';
import type { ServedApi } from '../../sim/admin-api/served-api.ts';
import { resolveDeviations, type SwitchRef } from '../../sim/switches/resolve-switches.ts';
import { InProcessTarget } from './in-process-target.ts';
import { WrappingTarget, type MqttClientSession, type MqttDriver, type MqttOutcome, type Target, type TargetControl } from './target.ts';
import { UrlTarget } from './url-target.ts';

/**
 * How the suites reach the simulator. `in-process` (the default) calls the admin app's request
 * handler directly with the peer address it would see; `loopback` serves the cluster on ephemeral
 * 127.0.0.1 ports and goes through an ordinary URL target. Measured for a full `conform --target sim`
 * run, cold start included, median of 3 on the 2-core machine: in-process 4.3 s, loopback 7.2 s.
 * In-process also runs on a manual clock, so a run with the same seed gives the same report.
 */
export type SimTransport = 'in-process' | 'loopback';

export interface SimTargetOptions {
  seed: number;
  nodes?: number;
  workload?: 'demo' | 'none';
  envelope?: 'A' | 'B';
  timeoutMs?: number;
  rate?: number;
  transport?: SimTransport;
  /**
   * `max_admin_http_uri_rate` of the simulated cluster. Default 0 (no limit): a conformance run sends
   * bursts to one path, which a limit would only slow down with 429 waits; the answer to an excess
   * request is not a rule of the spec, so nothing is lost. Give a number to keep a limit.
   */
  adminRateLimit?: number;
  /**
   * Virtual history the demo workload starts with, in ms (default one hour, as `mqsim serve`).
   * Ten minutes is enough for every check (monitor series, bans) and starts several times faster.
   */
  warmUpMs?: number;
  /** Address `asRemotePeer` requests come from (`--peer-address`; default 127.0.0.2). */
  peerAddress?: string;
  /**
   * Deliberately broken behaviours to switch on (ids of sim/switches/catalogue.ts), for the proof runs;
   * in process, also switches a test defines (CONTRIBUTING.md's walk-throughs).
   */
  deviations?: readonly SwitchRef[];
  /** The endpoints the simulator serves and their handlers (default: the built-in API). */
  api?: ServedApi;
}

/** Admin credentials of the embedded simulator, so a run can log in and check tokens end to end. */
export const SIM_ADMIN = {
  username: 'admin',
  password: 'mqsim-conform-password',
  jwtSecret: 'mqsim-conform-jwt-secret-0123456789abcdef',
} as const;

/** Virtual history a served demo starts with (as `mqsim serve`), so monitor series have points. */
const DEMO_WARM_UP_MS = 3_600_000;

const outcome = (r: { ok: true } | { ok: false; reason: string }): MqttOutcome => (r.ok ? { ok: true } : { ok: false, reason: r.reason });

/** MQTT client actions through the model: what an MQTT client connected to a node would cause. */
function modelMqttDriver(cluster: Cluster, tenant: string): MqttDriver {
  return {
    via: `the simulator's model (tenant ${tenant})`,
    tenant,
    async connect(clientId: string): Promise<MqttClientSession | { ok: false; reason: string }> {
      const r = cluster.mqtt.connect({ tenant, clientId, cleanStart: true, protocol: 5, connectionType: 'Tcp' });
      if (!r.ok) return { ok: false, reason: r.reason };
      return {
        clientId,
        subscribe: async (filter, qos) => outcome(cluster.mqtt.subscribe({ tenant, clientId, path: filter, qos })),
        publish: async (topic, payload, o) =>
          outcome(cluster.mqtt.publish({ tenant, topic, payload, qos: o.qos, retain: o.retain, clientId })),
        close: async () => void cluster.mqtt.disconnect(clientId, tenant, { clean: true }),
      };
    },
  };
}

function controlOf(cluster: Cluster): TargetControl {
  return {
    nodeCount: cluster.options.nodes,
    // Virtual time is moved forward directly in both transports: waiting on the wall clock would only
    // slow the run down, and a served cluster's clock never goes back when wall time catches up.
    advance: async (ms) => void cluster.engine.advance(ms),
    stopNode: (id) => void cluster.nodes.stop(id),
    startNode: (id, options) => void cluster.nodes.startNode(id, options ?? {}),
    setPortsReady: (id, ready) => cluster.nodes.setPortsReady(id, ready),
    setMq9Running: (running) => cluster.mq9.setRunning(running),
    createMailbox: (input) => void cluster.mq9.createMailbox(input),
    registerAgent: (input) => void cluster.mq9.registerAgent(input),
    stopConnector: (tenant, name) => void cluster.connectors.stop(tenant, name),
    resumeConnector: (tenant, name) => void cluster.connectors.resume(tenant, name),
    setConnectorTargetDown: (target, down) => cluster.connectors.setTargetDown(target, down),
    mqtt: (tenant) => modelMqttDriver(cluster, tenant),
  };
}

function limitAdminRate(cluster: Cluster, rate: number): void {
  cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: rate });
}

/**
 * The embedded simulator as a target: in-process (default) or served on loopback. Either way the
 * run logs in with SIM_ADMIN and has the control interface. Closing the target stops the cluster.
 */
export class SimTarget extends WrappingTarget {
  readonly name: string;
  readonly signingSecret: string;

  private constructor(
    inner: Target,
    stop: () => Promise<void>,
    readonly control: TargetControl,
    readonly transport: SimTransport,
    /** Base URL of every node when served on loopback; empty in-process. */
    readonly nodeUrls: readonly string[],
    signingSecret: string = SIM_ADMIN.jwtSecret,
  ) {
    super(inner, stop);
    this.name = inner.name;
    this.signingSecret = signingSecret;
  }

  /**
   * A cluster built elsewhere (the library's `createCluster`) as an in-process target: the run logs
   * in as the cluster's administrator, uses its configuration (a 429 of its admin rate limit is
   * waited out on virtual time), and acts through its control interface, moving its virtual time.
   * Closing the target leaves the cluster as the run left it.
   */
  static attach(cluster: Cluster, app: AdminApp, options: { name: string; peerAddress?: string }): SimTarget {
    const control = controlOf(cluster);
    const { username, password, jwtSecret } = cluster.options.admin;
    // Clusters built by createCluster always hold it; only mqsim serve keeps nothing but its hash.
    if (password === undefined) throw new Error('SimTarget.attach needs the admin password in clear; this cluster keeps only its hash');
    const inner = new InProcessTarget({
      name: options.name,
      baseUrl: `http://${cluster.options.host}:${cluster.nodes.get(1)!.ports.http}`,
      credentials: { username, password },
      control,
      wait: (ms) => control.advance(ms),
      ...(options.peerAddress !== undefined ? { remotePeer: options.peerAddress } : {}),
      handle: async (req) =>
        app.handle({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          peer: req.peer,
          nodeId: 1,
        }),
    });
    return new SimTarget(inner, async () => inner.close(), control, 'in-process', [], jwtSecret);
  }

  static async start(options: SimTargetOptions): Promise<SimTarget> {
    return (options.transport ?? 'in-process') === 'in-process' ? SimTarget.inProcess(options) : SimTarget.loopback(options);
  }

  private static async inProcess(options: SimTargetOptions): Promise<SimTarget> {
    const workload = options.workload ?? 'demo';
    const cluster = new Cluster({
      seed: options.seed,
      nodes: options.nodes ?? 3,
      workload,
      host: '127.0.0.1',
      warmUpMs: workload === 'demo' ? (options.warmUpMs ?? DEMO_WARM_UP_MS) : 0,
      admin: { ...SIM_ADMIN },
    }).start();
    limitAdminRate(cluster, options.adminRateLimit ?? 0);
    // Manual clock: virtual time moves only through the control interface, so a run is repeatable.
    const app = new AdminApp(cluster, {
      clock: 'manual',
      ...(options.envelope ? { envelope: options.envelope } : {}),
      ...(options.deviations ? { deviations: resolveDeviations(options.deviations) } : {}),
      ...(options.api ? { api: options.api } : {}),
    });
    const control = controlOf(cluster);
    const inner = new InProcessTarget({
      name: 'sim',
      baseUrl: `http://127.0.0.1:${cluster.nodes.get(1)!.ports.http}`,
      credentials: { username: SIM_ADMIN.username, password: SIM_ADMIN.password },
      control,
      wait: (ms) => control.advance(ms),
      ...(options.peerAddress !== undefined ? { remotePeer: options.peerAddress } : {}),
      handle: async (req) =>
        app.handle({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          peer: req.peer,
          nodeId: 1,
        }),
    });
    return new SimTarget(inner, async () => inner.close(), control, 'in-process', []);
  }

  private static async loopback(options: SimTargetOptions): Promise<SimTarget> {
    const deviations = options.deviations?.map((d) => {
      if (typeof d === 'string') return d;
      throw new Error(`switch ${d.id} is not catalogued: a switch defined outside sim/switches/catalogue.ts is served in process only`);
    });
    const running = await startClusterServer({
      seed: options.seed,
      nodes: options.nodes ?? 3,
      workload: options.workload ?? 'demo',
      host: '127.0.0.1',
      port: 0,
      ...(options.envelope ? { envelope: options.envelope } : {}),
      ...(options.warmUpMs !== undefined ? { warmUpMs: options.warmUpMs } : {}),
      ...(deviations ? { deviations } : {}),
      ...(options.api ? { api: options.api } : {}),
      admin: { ...SIM_ADMIN },
    });
    try {
      limitAdminRate(running.cluster, options.adminRateLimit ?? 0);
      const inner = await UrlTarget.create({
        url: running.baseUrl,
        name: 'sim',
        username: SIM_ADMIN.username,
        password: SIM_ADMIN.password,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.rate !== undefined ? { rate: options.rate } : {}),
        ...(options.peerAddress !== undefined ? { remoteLocalAddress: options.peerAddress } : {}),
      });
      return new SimTarget(inner, () => running.close(), controlOf(running.cluster), 'loopback', running.nodeUrls);
    } catch (e) {
      await running.close();
      throw e;
    }
  }
}
