import { describe, expect, it } from 'vitest';
import { DockerTarget, dockerEngineStatus, parseDockerTarget } from './docker-target.ts';

const engine = await dockerEngineStatus(3000);
const NO_ENGINE = engine.ok ? '' : `no Docker engine answers here (${engine.reason}): the container run is skipped`;
if (!engine.ok) console.log(`docker target: ${NO_ENGINE}`);

describe('--target docker:IMAGE[:TAG]', () => {
  it('parses the image, the admin port, credentials, readiness path, startup time and environment', () => {
    expect(parseDockerTarget('docker:robustmq/robustmq:0.2.1')).toEqual({ image: 'robustmq/robustmq:0.2.1', port: 58080, readyPath: '/health/ready', startupSeconds: 120, env: {} });
    expect(parseDockerTarget('docker:ghcr.io/acme/broker@sha256:abc?port=8080&user=admin&password=s3cret&ready=/healthz&startup=30&env.RUST_LOG=info')).toEqual({
      image: 'ghcr.io/acme/broker@sha256:abc',
      port: 8080,
      username: 'admin',
      password: 's3cret',
      readyPath: '/healthz',
      startupSeconds: 30,
      env: { RUST_LOG: 'info' },
    });
  });

  it('refuses malformed specs with a message naming the problem', () => {
    expect(() => parseDockerTarget('docker:')).toThrow(/not an image name/);
    expect(() => parseDockerTarget('docker:img?port=0')).toThrow(/port must be a whole number from 1 to 65535/);
    expect(() => parseDockerTarget('docker:img?user=admin')).toThrow(/user and password go together/);
    expect(() => parseDockerTarget('docker:img?colour=blue')).toThrow(/unknown option "colour"/);
    expect(() => parseDockerTarget('http://x')).toThrow(/docker:IMAGE/);
  });

  it.skipIf(engine.ok)('fails at once with "no Docker engine answers" when none does', async () => {
    const started = performance.now();
    await expect(DockerTarget.start('docker:robustmq/robustmq:latest')).rejects.toThrow(/^no Docker engine answers: /);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it.skipIf(!engine.ok)(`starts a container, waits for /health/ready and stops it at close${engine.ok ? '' : ` — SKIPPED: ${NO_ENGINE}`}`, async () => {
    // Needs a Docker engine and an image answering /health/ready on its admin port; none runs in CI here.
    const image = process.env.MQSIM_DOCKER_IMAGE;
    if (!image) return;
    const target = await DockerTarget.start(`docker:${image}`);
    try {
      expect((await target.request({ method: 'GET', path: '/health/ready' })).status).toBe(200);
    } finally {
      await target.close();
    }
  }, 180_000);
});
