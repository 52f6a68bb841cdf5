// The ONLY file under suites/ that imports sim/: the suites check the simulator exactly as they check
// any other server, over HTTP, through this adapter.
import { startClusterServer } from '../../sim/http/cluster-server.ts';
import type { Target, TargetRequest, TargetResponse } from './target.ts';
import { UrlTarget } from './url-target.ts';

export interface SimTargetOptions {
  seed: number;
  nodes?: number;
  workload?: 'demo' | 'none';
  envelope?: 'A' | 'B';
  timeoutMs?: number;
  rate?: number;
}

/** Admin credentials of the embedded simulator, so a run can log in and check tokens end to end. */
export const SIM_ADMIN = { username: 'admin', password: 'mqsim-conform-password', jwtSecret: 'mqsim-conform-jwt-secret-0123456789abcdef' } as const;

/**
 * The embedded simulator as a target: a cluster served on ephemeral loopback ports, checked through
 * an ordinary URL target at node 1. Closing the target stops the cluster.
 */
export class SimTarget implements Target {
  readonly name = 'sim';

  private constructor(
    private readonly inner: UrlTarget,
    private readonly stop: () => Promise<void>,
    readonly nodeUrls: readonly string[],
  ) {}

  static async start(options: SimTargetOptions): Promise<SimTarget> {
    const running = await startClusterServer({
      seed: options.seed,
      nodes: options.nodes ?? 3,
      workload: options.workload ?? 'demo',
      host: '127.0.0.1',
      port: 0,
      ...(options.envelope ? { envelope: options.envelope } : {}),
      admin: { ...SIM_ADMIN },
    });
    try {
      const inner = await UrlTarget.create({
        url: running.baseUrl,
        name: 'sim',
        username: SIM_ADMIN.username,
        password: SIM_ADMIN.password,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.rate !== undefined ? { rate: options.rate } : {}),
      });
      return new SimTarget(inner, () => running.close(), running.nodeUrls);
    } catch (e) {
      await running.close();
      throw e;
    }
  }

  get baseUrl(): string {
    return this.inner.baseUrl;
  }

  get capabilities() {
    return this.inner.capabilities;
  }

  get credentials() {
    return this.inner.credentials;
  }

  get token() {
    return this.inner.token;
  }

  login(): Promise<TargetResponse> {
    return this.inner.login();
  }

  request(req: TargetRequest): Promise<TargetResponse> {
    return this.inner.request(req);
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.stop();
  }
}
