// Types only: the module itself is imported lazily (loadTestcontainers), so the CLI starts without it.
import type * as Testcontainers from 'testcontainers';
import { existsSync } from 'node:fs';
import { HttpReadyWait } from './docker-ready-wait.ts';
import { freePortBlock } from './free-ports.ts';
import { WrappingTarget } from './target.ts';
import { UrlTarget } from './url-target.ts';

/**
 * `--target docker:IMAGE[:TAG][?network=host&port=58080|auto&cmd=…&user=admin&password=…&ready=/health/ready&startup=120&env.NAME=V]`:
 * starts the image with testcontainers, waits until the admin port answers the readiness probe with
 * 200, and checks it through an ordinary URL target. The container is stopped when the target closes
 * (and when this process gets SIGINT or SIGTERM meanwhile). Query keys:
 * - `network`: `bridge` (default: Docker's network, the admin port mapped to a host port) or `host`
 *   (the container shares this host's network: the server is reached at 127.0.0.1 on its own port,
 *   as a loopback peer; for engines without a bridge network, and for tests that may only use loopback);
 * - `port`: the server's admin HTTP port (default 58080); `auto` (with `network=host`): a free port P
 *   of this host with P+1 … P+9 free too (one port per node of a cluster image), told to the server
 *   through `{port}` in `cmd` or in an `env.` value;
 * - `cmd`: the container's command, words separated by spaces (`+` in a URL), replacing the image's
 *   CMD (its ENTRYPOINT stays), e.g. `cmd=serve+--port+{port}+--deviation+X`; `{port}` is the admin port;
 * - `user`, `password`: administrator credentials to log in with (on Docker's network requests are
 *   not loopback and need a token);
 * - `ready`: readiness path (default `/health/ready`);
 * - `startup`: seconds to wait for readiness (default 120);
 * - `env.NAME=value`: environment variables of the container (repeatable; `{port}` is replaced too).
 *
 * testcontainers' Ryuk reaper (a helper container that removes leftovers) is switched off unless
 * TESTCONTAINERS_RYUK_DISABLED says otherwise: its image must be pulled from a registry, which an
 * offline engine cannot do, and this target stops its own container.
 */
export interface DockerTargetSpec {
  image: string;
  network: 'bridge' | 'host';
  port: number | 'auto';
  /** The container's command (after the image's ENTRYPOINT), with `{port}` placeholders. */
  command?: string[];
  username?: string;
  password?: string;
  readyPath: string;
  startupSeconds: number;
  env: Record<string, string>;
}

const DEFAULT_ADMIN_PORT = 58080;
/** Ports kept free from an `auto` port on: a cluster image listens on one port per node (mqsim: up to 9). */
const AUTO_PORT_BLOCK = 10;
const PORT_PLACEHOLDER = '{port}';
const KNOWN_KEYS = 'network, port, cmd, user, password, ready, startup, env.NAME';

/** Parses `docker:IMAGE[:TAG][?…]`; throws a message fit for a usage error. */
export function parseDockerTarget(raw: string): DockerTargetSpec {
  if (!raw.startsWith('docker:')) throw new Error(`a Docker target is written docker:IMAGE[:TAG][?port=…], got ${JSON.stringify(raw)}`);
  const rest = raw.slice('docker:'.length);
  const q = rest.indexOf('?');
  const image = (q === -1 ? rest : rest.slice(0, q)).trim();
  if (!/^[a-z0-9][\w./:@-]*$/i.test(image)) throw new Error(`docker target: ${JSON.stringify(image)} is not an image name (IMAGE[:TAG])`);
  const spec: DockerTargetSpec = {
    image,
    network: 'bridge',
    port: DEFAULT_ADMIN_PORT,
    readyPath: '/health/ready',
    startupSeconds: 120,
    env: {},
  };
  const params = new URLSearchParams(q === -1 ? '' : rest.slice(q + 1));
  for (const [key, value] of params) {
    const positive = (name: string) => {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 1 || n > (name === 'port' ? 65_535 : 3600))
        throw new Error(
          `docker target: ${name} must be ${name === 'port' ? 'a whole number from 1 to 65535, or auto' : 'a whole number of seconds from 1 to 3600'}, got ${JSON.stringify(value)}`,
        );
      return n;
    };
    if (key === 'port') spec.port = value === 'auto' ? 'auto' : positive('port');
    else if (key === 'network') {
      if (value !== 'host' && value !== 'bridge')
        throw new Error(`docker target: network must be host or bridge, got ${JSON.stringify(value)}`);
      spec.network = value;
    } else if (key === 'cmd') {
      const words = value.split(/\s+/).filter((w) => w !== '');
      if (words.length === 0) throw new Error("docker target: cmd is empty (leave it out to run the image's own command)");
      spec.command = words;
    } else if (key === 'user' || key === 'username') spec.username = value;
    else if (key === 'password') spec.password = value;
    else if (key === 'ready') spec.readyPath = value.startsWith('/') ? value : `/${value}`;
    else if (key === 'startup') spec.startupSeconds = positive('startup');
    else if (key.startsWith('env.') && key.length > 4) spec.env[key.slice(4)] = value;
    else throw new Error(`docker target: unknown option ${JSON.stringify(key)} (known: ${KNOWN_KEYS})`);
  }
  if ((spec.username === undefined) !== (spec.password === undefined)) throw new Error('docker target: user and password go together');
  if (spec.port === 'auto') {
    // On Docker's own network the container has every port to itself: a fixed one is mapped anyway.
    if (spec.network !== 'host')
      throw new Error("docker target: port=auto needs network=host (on Docker's network give the port the image listens on)");
    const told = [...(spec.command ?? []), ...Object.values(spec.env)].some((w) => w.includes(PORT_PLACEHOLDER));
    if (!told)
      throw new Error(
        `docker target: port=auto picks a port the server must be told: put ${PORT_PLACEHOLDER} in cmd (e.g. cmd=serve+--port+${PORT_PLACEHOLDER}) or in an env. value`,
      );
  }
  return spec;
}

/** Does a Docker engine answer? Quick: a missing socket without DOCKER_HOST fails at once. */
export async function dockerEngineStatus(timeoutMs = 5000): Promise<{ ok: true } | { ok: false; reason: string }> {
  // testcontainers tries DOCKER_HOST, ~/.testcontainers.properties and the usual sockets; without any
  // of them it fails within milliseconds, and the timeout bounds an engine that hangs.
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([containerRuntimeClient(), timeout]);
    return { ok: true };
  } catch (e) {
    const where = process.env.DOCKER_HOST
      ? `DOCKER_HOST=${process.env.DOCKER_HOST}`
      : existsSync('/var/run/docker.sock')
        ? '/var/run/docker.sock'
        : '/var/run/docker.sock does not exist and DOCKER_HOST is not set';
    return { ok: false, reason: `${(e as Error).message} (${where})` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * testcontainers, with its Ryuk reaper off unless the environment says otherwise. Ryuk is a container
 * pulled from Docker Hub that removes a session's containers when the process dies; an engine with no
 * registry cannot pull it, and every container this target starts is stopped by the target itself.
 */
export async function loadTestcontainers(): Promise<typeof Testcontainers> {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  return import('testcontainers');
}

/**
 * testcontainers' client of the engine. Inside a container (/.dockerenv) testcontainers finds the
 * engine's host through the gateway of its `bridge` network, and gives up when the engine has none
 * (`dockerd --bridge=none`, as `.ci/run` starts it). There, only the host's network exists, where the
 * host is this machine: it is asked again with TESTCONTAINERS_HOST_OVERRIDE=localhost, what
 * testcontainers answers outside a container. A value the user set is left alone.
 */
async function containerRuntimeClient(): Promise<Awaited<ReturnType<typeof Testcontainers.getContainerRuntimeClient>>> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  try {
    return await getContainerRuntimeClient();
  } catch (e) {
    if (process.env.TESTCONTAINERS_HOST_OVERRIDE !== undefined || !existsSync('/.dockerenv')) throw e;
    process.env.TESTCONTAINERS_HOST_OVERRIDE = 'localhost';
    try {
      return await getContainerRuntimeClient();
    } catch {
      delete process.env.TESTCONTAINERS_HOST_OVERRIDE;
      throw e;
    }
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

/**
 * Calls `stop()` when this process is told to end while a container runs: without Ryuk nothing else
 * would, and a container on the host's network keeps its ports. Once it is stopped the signal is
 * raised again, so the process ends as it would have. (Other listeners, e.g. signal-exit's, which
 * testcontainers' file lock installs and which ends the process when it is the last one, see it again.)
 * Returns the remover.
 */
function stopOnSignals(stop: () => Promise<unknown>): () => void {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const handler = (signal: NodeJS.Signals): void => {
    remove();
    void stop()
      .catch(() => {})
      .finally(() => process.kill(process.pid, signal));
  };
  const remove = (): void => {
    for (const s of signals) process.off(s, handler);
  };
  for (const s of signals) process.on(s, handler);
  return remove;
}

const fillPort = (text: string, port: number): string => text.split(PORT_PLACEHOLDER).join(String(port));

/** A server image started for the run; requests go through a URL target at the server's port. */
export class DockerTarget extends WrappingTarget {
  readonly signingSecret?: string;

  private constructor(
    readonly name: string,
    inner: UrlTarget,
    /** The container's id (for `docker logs`, `docker inspect`). */
    readonly containerId: string,
    /** The server's admin port (on the host's network: this host's port). */
    readonly port: number,
    stopContainer: () => Promise<unknown>,
  ) {
    super(inner, stopContainer);
    if (inner.signingSecret !== undefined) this.signingSecret = inner.signingSecret;
  }

  static async start(raw: string, options: DockerTargetOptions = {}): Promise<DockerTarget> {
    const spec = parseDockerTarget(raw);
    const engine = await dockerEngineStatus();
    if (!engine.ok) throw new Error(`no Docker engine answers: ${engine.reason}. Start Docker (or set DOCKER_HOST) to use --target ${raw}`);
    const { GenericContainer } = await loadTestcontainers();
    const host = spec.network === 'host';
    const port = spec.port === 'auto' ? await freePortBlock(AUTO_PORT_BLOCK) : spec.port;
    const runtimeHost = (await containerRuntimeClient()).info.containerRuntime.host;
    const wait = new HttpReadyWait((bound) =>
      host ? `http://127.0.0.1:${port}${spec.readyPath}` : `http://${runtimeHost}:${bound.getBinding(port)}${spec.readyPath}`,
    );
    let container = new GenericContainer(spec.image)
      .withEnvironment(Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, fillPort(v, port)])))
      .withWaitStrategy(wait)
      .withStartupTimeout(spec.startupSeconds * 1000);
    container = host ? container.withNetworkMode('host') : container.withExposedPorts(port);
    if (spec.command) container = container.withCommand(spec.command.map((w) => fillPort(w, port)));
    let started;
    try {
      // testcontainers stops and removes a container that never got ready.
      started = await container.start();
    } catch (e) {
      throw new Error(`--target ${raw}: ${(e as Error).message}`, { cause: e });
    }
    // Stopped with a grace period (a server that saves state on SIGTERM gets to do it), or at once
    // when this process is interrupted: the run goes on meanwhile, against a server that is going.
    let stopping: Promise<unknown> | undefined;
    const stop = (timeout = 10_000) => (stopping ??= started.stop({ timeout }));
    const unhook = stopOnSignals(() => stop(0));
    try {
      const username = options.username ?? spec.username;
      const password = options.password ?? spec.password;
      const inner = await UrlTarget.create({
        url: host ? `http://127.0.0.1:${port}` : `http://${started.getHost()}:${started.getMappedPort(port)}`,
        name: raw,
        // On Docker's network requests reach the container from its gateway, never as loopback; on
        // the host's network they come from 127.0.0.1, as to any local server.
        loopback: host,
        ...(username !== undefined && password !== undefined ? { username, password } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.rate !== undefined ? { rate: options.rate } : {}),
        ...(options.signingSecret !== undefined ? { signingSecret: options.signingSecret } : {}),
        ...(options.peerAddress !== undefined ? { remoteLocalAddress: options.peerAddress } : {}),
      });
      return new DockerTarget(raw, inner, started.getId(), port, async () => {
        unhook();
        await stop();
      });
    } catch (e) {
      unhook();
      await stop().catch(() => {});
      throw e;
    }
  }
}
