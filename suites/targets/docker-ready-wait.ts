import type { BoundPorts, WaitStrategy } from 'testcontainers';
import { request } from 'undici';

/** The container handle testcontainers hands a wait strategy (dockerode's). */
type ContainerHandle = Parameters<WaitStrategy['waitUntilReady']>[0];

/** How often readiness is asked, and how long one answer may take. */
const POLL_MS = 250;
const ANSWER_TIMEOUT_MS = 2_000;
/** Lines of the container's output quoted when it exits before it is ready. */
const LOG_TAIL = 20;

/**
 * Splits the body of `GET /containers/ID/logs` for a container without a TTY: frames of an 8-byte
 * header (stream, 0, 0, 0, big-endian length) and that many bytes of stdout or stderr.
 */
export function demuxDockerLogs(raw: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= raw.length && raw[at] <= 2 && raw[at + 1] === 0 && raw[at + 2] === 0 && raw[at + 3] === 0) {
    const size = raw.readUInt32BE(at + 4);
    parts.push(raw.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  // Not framed (a TTY container): the bytes are the text.
  return at === 0 ? raw.toString('utf8') : Buffer.concat(parts).toString('utf8');
}

/**
 * Waits until `GET url` answers 200, asked from this host: for a container on the host's network the
 * URL is 127.0.0.1 at the server's own port (testcontainers' HTTP strategy only knows mapped ports).
 * Fails at once, quoting the container's last lines, when the container exits first (a taken port, a
 * bad argument): waiting out the whole startup time would hide the reason.
 */
export class HttpReadyWait implements WaitStrategy {
  private startupTimeoutMs = 60_000;
  private timeoutSet = false;

  /** `urlOf` gets the container's bound ports: the URL may depend on a mapped port. */
  constructor(private readonly urlOf: (boundPorts: BoundPorts) => string) {}

  withStartupTimeout(ms: number): this {
    this.startupTimeoutMs = ms;
    this.timeoutSet = true;
    return this;
  }

  isStartupTimeoutSet(): boolean {
    return this.timeoutSet;
  }

  getStartupTimeout(): number {
    return this.startupTimeoutMs;
  }

  async waitUntilReady(container: ContainerHandle, boundPorts: BoundPorts): Promise<void> {
    const url = this.urlOf(boundPorts);
    const deadline = performance.now() + this.startupTimeoutMs;
    let last: string;
    for (;;) {
      const state = (await container.inspect()).State;
      if (!state.Running) {
        const output = demuxDockerLogs(await container.logs({ stdout: true, stderr: true, tail: LOG_TAIL, follow: false })).trim();
        throw new Error(
          `the container exited (code ${state.ExitCode}) before ${url} answered 200${output ? `; its last output:\n${output}` : ' (it printed nothing)'}`,
        );
      }
      try {
        const res = await request(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
        await res.body.dump();
        if (res.statusCode === 200) return;
        last = `HTTP ${res.statusCode}`;
      } catch (e) {
        last = (e as Error).message;
      }
      if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${this.startupTimeoutMs} ms (last: ${last})`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
