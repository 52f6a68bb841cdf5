import { existsSync } from 'node:fs';
import { WrappingTarget } from './target.ts';
import { UrlTarget } from './url-target.ts';

/**
 * `--target docker:IMAGE[:TAG][?port=58080&user=admin&password=…&ready=/health/ready&startup=120]`:
 * starts the image with testcontainers, waits until the admin port answers the readiness probe with
 * 200, and checks it through an ordinary URL target at the mapped port. The container is stopped
 * when the target closes. Query keys:
 * - `port`: admin HTTP port inside the container (default 58080);
 * - `user`, `password`: administrator credentials to log in with (requests from the host reach the
 *   container through Docker's network, so they are not loopback and need a token);
 * - `ready`: readiness path (default `/health/ready`);
 * - `startup`: seconds to wait for readiness (default 120);
 * - `env.NAME=value`: environment variables of the container (repeatable).
 */
export interface DockerTargetSpec {
  image: string;
  port: number;
  username?: string;
  password?: string;
  readyPath: string;
  startupSeconds: number;
  env: Record<string, string>;
}

const DEFAULT_ADMIN_PORT = 58080;

/** Parses `docker:IMAGE[:TAG][?…]`; throws a message fit for a usage error. */
export function parseDockerTarget(raw: string): DockerTargetSpec {
  if (!raw.startsWith('docker:')) throw new Error(`a Docker target is written docker:IMAGE[:TAG][?port=…], got ${JSON.stringify(raw)}`);
  const rest = raw.slice('docker:'.length);
  const q = rest.indexOf('?');
  const image = (q === -1 ? rest : rest.slice(0, q)).trim();
  if (!/^[a-z0-9][\w./:@-]*$/i.test(image)) throw new Error(`docker target: ${JSON.stringify(image)} is not an image name (IMAGE[:TAG])`);
  const spec: DockerTargetSpec = { image, port: DEFAULT_ADMIN_PORT, readyPath: '/health/ready', startupSeconds: 120, env: {} };
  const params = new URLSearchParams(q === -1 ? '' : rest.slice(q + 1));
  for (const [key, value] of params) {
    const positive = (name: string) => {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 1 || n > (name === 'port' ? 65_535 : 3600)) throw new Error(`docker target: ${name} must be a whole number ${name === 'port' ? 'from 1 to 65535' : 'of seconds from 1 to 3600'}, got ${JSON.stringify(value)}`);
      return n;
    };
    if (key === 'port') spec.port = positive('port');
    else if (key === 'user' || key === 'username') spec.username = value;
    else if (key === 'password') spec.password = value;
    else if (key === 'ready') spec.readyPath = value.startsWith('/') ? value : `/${value}`;
    else if (key === 'startup') spec.startupSeconds = positive('startup');
    else if (key.startsWith('env.') && key.length > 4) spec.env[key.slice(4)] = value;
    else throw new Error(`docker target: unknown option ${JSON.stringify(key)} (known: port, user, password, ready, startup, env.NAME)`);
  }
  if ((spec.username === undefined) !== (spec.password === undefined)) throw new Error('docker target: user and password go together');
  return spec;
}

/** Does a Docker engine answer? Quick: a missing socket without DOCKER_HOST fails at once. */
export async function dockerEngineStatus(timeoutMs = 5000): Promise<{ ok: true } | { ok: false; reason: string }> {
  // testcontainers tries DOCKER_HOST, ~/.testcontainers.properties and the usual sockets; without any
  // of them it fails within milliseconds, and the timeout bounds an engine that hangs.
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([getContainerRuntimeClient(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    return { ok: true };
  } catch (e) {
    const where = process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : existsSync('/var/run/docker.sock') ? '/var/run/docker.sock' : '/var/run/docker.sock does not exist and DOCKER_HOST is not set';
    return { ok: false, reason: `${(e as Error).message} (${where})` };
  }
}

export interface DockerTargetOptions {
  timeoutMs?: number;
  rate?: number;
  /** Override the credentials of the spec (e.g. from --username/--password). */
  username?: string;
  password?: string;
  /** The server's token signing secret (`--jwt-secret`). */
  signingSecret?: string;
  /** Local address the auth checks send from (`--peer-address`). */
  peerAddress?: string;
}

/** A server image started for the run; requests go through a URL target at the mapped port. */
export class DockerTarget extends WrappingTarget {
  readonly signingSecret?: string;

  private constructor(
    readonly name: string,
    inner: UrlTarget,
    stopContainer: () => Promise<unknown>,
  ) {
    super(inner, stopContainer);
    if (inner.signingSecret !== undefined) this.signingSecret = inner.signingSecret;
  }

  static async start(raw: string, options: DockerTargetOptions = {}): Promise<DockerTarget> {
    const spec = parseDockerTarget(raw);
    const engine = await dockerEngineStatus();
    if (!engine.ok) throw new Error(`no Docker engine answers: ${engine.reason}. Start Docker (or set DOCKER_HOST) to use --target ${raw}`);
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer(spec.image)
      .withExposedPorts(spec.port)
      .withEnvironment(spec.env)
      .withWaitStrategy(Wait.forHttp(spec.readyPath, spec.port).forStatusCode(200))
      .withStartupTimeout(spec.startupSeconds * 1000)
      .start();
    try {
      const username = options.username ?? spec.username;
      const password = options.password ?? spec.password;
      const inner = await UrlTarget.create({
        url: `http://${container.getHost()}:${container.getMappedPort(spec.port)}`,
        name: raw,
        // Requests reach the container through Docker's network: the server never sees them as loopback.
        loopback: false,
        ...(username !== undefined && password !== undefined ? { username, password } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.rate !== undefined ? { rate: options.rate } : {}),
        ...(options.signingSecret !== undefined ? { signingSecret: options.signingSecret } : {}),
        ...(options.peerAddress !== undefined ? { remoteLocalAddress: options.peerAddress } : {}),
      });
      return new DockerTarget(raw, inner, () => container.stop());
    } catch (e) {
      await container.stop().catch(() => {});
      throw e;
    }
  }
}
