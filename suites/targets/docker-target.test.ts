import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { demuxDockerLogs } from './docker-ready-wait.ts';
import { DockerTarget, dockerEngineStatus, parseDockerTarget } from './docker-target.ts';
import { freePortBlock, portIsFree } from './free-ports.ts';

// Containers for real: scripts/docker/docker-image.test.ts (needs an engine; skipped with the reason without one).
const engine = await dockerEngineStatus(3000);

describe('--target docker:IMAGE[:TAG]', () => {
  it('parses the image, network, admin port, command, credentials, readiness path, startup time and environment', () => {
    expect(parseDockerTarget('docker:robustmq/robustmq:0.2.1')).toEqual({
      image: 'robustmq/robustmq:0.2.1',
      network: 'bridge',
      port: 58080,
      readyPath: '/health/ready',
      startupSeconds: 120,
      env: {},
    });
    expect(
      parseDockerTarget(
        'docker:ghcr.io/acme/broker@sha256:abc?port=8080&user=admin&password=s3cret&ready=/healthz&startup=30&env.RUST_LOG=info',
      ),
    ).toEqual({
      image: 'ghcr.io/acme/broker@sha256:abc',
      network: 'bridge',
      port: 8080,
      username: 'admin',
      password: 's3cret',
      readyPath: '/healthz',
      startupSeconds: 30,
      env: { RUST_LOG: 'info' },
    });
    expect(parseDockerTarget('docker:mqsim?network=host&port=auto&cmd=serve+--port+{port}+--deviation+x-y&env.A={port}')).toEqual({
      image: 'mqsim',
      network: 'host',
      port: 'auto',
      command: ['serve', '--port', '{port}', '--deviation', 'x-y'],
      readyPath: '/health/ready',
      startupSeconds: 120,
      env: { A: '{port}' },
    });
    // %20 spaces too, and a fixed port on the host's network.
    expect(parseDockerTarget('docker:mqsim?network=host&port=9000&cmd=serve%20--port%209000').command).toEqual(['serve', '--port', '9000']);
  });

  it('refuses malformed specs with a message naming the problem', () => {
    expect(() => parseDockerTarget('docker:')).toThrow(/not an image name/);
    expect(() => parseDockerTarget('docker:img?port=0')).toThrow(/port must be a whole number from 1 to 65535, or auto/);
    expect(() => parseDockerTarget('docker:img?user=admin')).toThrow(/user and password go together/);
    expect(() => parseDockerTarget('docker:img?colour=blue')).toThrow(/unknown option "colour" \(known: network, port, cmd,/);
    expect(() => parseDockerTarget('docker:img?network=overlay')).toThrow(/network must be host or bridge/);
    expect(() => parseDockerTarget('docker:img?cmd=+')).toThrow(/cmd is empty/);
    expect(() => parseDockerTarget('docker:img?port=auto&cmd=serve+--port+{port}')).toThrow(/port=auto needs network=host/);
    expect(() => parseDockerTarget('docker:img?network=host&port=auto&cmd=serve')).toThrow(/put \{port\} in cmd/);
    expect(() => parseDockerTarget('http://x')).toThrow(/docker:IMAGE/);
  });

  it.skipIf(engine.ok)('fails at once with "no Docker engine answers" when none does', async () => {
    const started = performance.now();
    await expect(DockerTarget.start('docker:robustmq/robustmq:latest')).rejects.toThrow(
      /^no Docker engine answers: .*--target docker:robustmq/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('Docker log frames', () => {
  it('are joined into the text of stdout and stderr; unframed output is kept as it is', () => {
    const frame = (stream: number, text: string) => {
      const header = Buffer.from([stream, 0, 0, 0, 0, 0, 0, 0]);
      header.writeUInt32BE(Buffer.byteLength(text), 4);
      return Buffer.concat([header, Buffer.from(text)]);
    };
    expect(
      demuxDockerLogs(Buffer.concat([frame(1, 'mqsim serve: starting\n'), frame(2, 'error: --nodes must be an integer from 1 to 9.\n')])),
    ).toBe('mqsim serve: starting\nerror: --nodes must be an integer from 1 to 9.\n');
    expect(demuxDockerLogs(Buffer.from('plain tty output\n'))).toBe('plain tty output\n');
  });
});

describe('free loopback ports for a container on the host network', () => {
  it('a port with a listener is not free; a block has every port free', async () => {
    const base = await freePortBlock(3);
    const server = createServer();
    await new Promise<void>((r) => server.listen({ port: base + 1, host: '127.0.0.1' }, r));
    try {
      expect(await portIsFree(base + 1)).toBe(false);
      // The first candidate is the block around the taken port: it is passed over for the next one.
      const candidates = [(base - 20_000 + 0.5) / (12_000 - 3), 0.5];
      const start = await freePortBlock(3, () => candidates.shift() ?? Math.random());
      expect(start).not.toBe(base);
      for (let p = start; p < start + 3; p++) expect(await portIsFree(p)).toBe(true);
    } finally {
      server.close();
    }
  });
});
