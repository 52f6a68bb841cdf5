import type { Target } from './target.ts';
import { UrlTarget } from './url-target.ts';

/** How to reach a target named by a `--target` value, and how a run would name it again. */
export interface TargetSpecOptions {
  seed: number;
  /** Cluster size of the embedded simulator. */
  nodes?: number;
  username?: string;
  password?: string;
  jwtSecret?: string;
  peerAddress?: string;
  timeoutMs?: number;
  rate?: number;
}

export interface OpenedTarget {
  target: Target;
  /** Flags of `mqsim conform` beyond `--target` that open the same target again (for the replay line). */
  replayFlags: string[];
}

/** The simulator's default cluster size, which the replay line leaves out. */
const DEFAULT_SIM_NODES = 3;

/**
 * Opens the target a `--target` value names: `sim` (the embedded simulator, through its adapter, the
 * one door from suites/ into sim/), `docker:IMAGE` or a URL. The caller owns the target and closes it.
 * The adapters are loaded lazily: testcontainers is only needed for docker targets, the simulator only
 * for `sim`.
 */
export async function openTargetSpec(spec: string, options: TargetSpecOptions): Promise<OpenedTarget> {
  if (spec.startsWith('docker:')) {
    const { DockerTarget } = await import('./docker-target.ts');
    const target = await DockerTarget.start(spec, {
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      ...(options.jwtSecret !== undefined ? { signingSecret: options.jwtSecret } : {}),
      ...(options.peerAddress !== undefined ? { peerAddress: options.peerAddress } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.rate ? { rate: options.rate } : {}),
    });
    return { target, replayFlags: [] };
  }
  if (spec === 'sim') {
    const { SimTarget } = await import('./sim-target.ts');
    const target = await SimTarget.start({
      seed: options.seed,
      ...(options.nodes ? { nodes: options.nodes } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.rate ? { rate: options.rate } : {}),
      ...(options.peerAddress !== undefined ? { peerAddress: options.peerAddress } : {}),
    });
    const nodes = options.nodes ?? DEFAULT_SIM_NODES;
    return { target, replayFlags: nodes !== DEFAULT_SIM_NODES ? ['--nodes', String(nodes)] : [] };
  }
  const target = await UrlTarget.create({
    url: spec,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.jwtSecret !== undefined ? { signingSecret: options.jwtSecret } : {}),
    ...(options.peerAddress !== undefined ? { remoteLocalAddress: options.peerAddress } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.rate ? { rate: options.rate } : {}),
  });
  return { target, replayFlags: [] };
}
