import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serviceMissing } from '../../fixtures/testing/required-service.ts';
import { deviationById } from '../../sim/switches/catalogue.ts';
import type { Report } from '../../suites/conform/report-model.ts';
import { DockerTarget, dockerEngineStatus, loadTestcontainers } from '../../suites/targets/docker-target.ts';
import { freePortBlock } from '../../suites/targets/free-ports.ts';
import { runPack } from '../package/run-pack.ts';
import { ensureScratchImage, pruneOldScratchImages, type ScratchImage } from './scratch-image.ts';

/**
 * The image for real, on this machine's Docker engine (`.ci/run` starts one: dockerd without a
 * bridge network, so containers use the host's network and every request goes to 127.0.0.1). The
 * image is the FROM-scratch test image (scratch-image.ts): the Dockerfile's base cannot be pulled here.
 */

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));

async function whyNot(): Promise<string | undefined> {
  const engine = await dockerEngineStatus(3000);
  if (!engine.ok) return `no Docker engine answers here (${engine.reason})`;
  try {
    await run('docker', ['version', '--format', '{{.Server.Version}}']);
  } catch (e) {
    return `the docker CLI, which builds the test image, does not work here: ${(e as Error).message.split('\n')[0]}`;
  }
  return undefined;
}

const WHY_NOT = await whyNot();
/** Why these tests do not run here (locally only: under CI=true a missing engine fails). */
const SKIP = serviceMissing('Docker', WHY_NOT) ? WHY_NOT : undefined;
const title = (name: string) => (SKIP ? `${name} — SKIPPED: ${SKIP}` : name);

const DEVIATION = 'tenant-list-total-count-is-page-length';
const root = mkdtempSync(join(tmpdir(), 'mqsim-docker-'));
const figures: string[] = [];
let image: ScratchImage;
const started = performance.now();

async function docker(...args: string[]): Promise<string> {
  return (await run('docker', args)).stdout.trim();
}

/** Containers of the test image, running or not. */
async function containersOf(tag: string): Promise<string[]> {
  return (await docker('ps', '-a', '--filter', `ancestor=${tag}`, '--format', '{{.ID}}')).split('\n').filter(Boolean);
}

/** `mqsim …` as a user runs it; the exit status instead of a throw. */
async function mqsim(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const t0 = performance.now();
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr, ms: Math.round(performance.now() - t0) };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof x.code === 'number' ? x.code : -1,
      stdout: x.stdout ?? '',
      stderr: x.stderr ?? '',
      ms: Math.round(performance.now() - t0),
    };
  }
}

const must = (r: Report) => r.findings.filter((f) => f.level === 'MUST');

beforeAll(async () => {
  if (SKIP) return;
  // This run's tarball: `npm pack` once, shared with the packed-install test (run-pack.ts).
  image = await ensureScratchImage({ tarball: async () => (await runPack(inject('packRunDir'))).tarball });
  await pruneOldScratchImages(image.tag);
  figures.push(
    `image ${image.tag}: ${(image.sizeBytes / 1e6).toFixed(0)} MB, ${image.built ? `built (npm pack or the wait for this run's ${image.ms.pack} ms, staging ${image.ms.stage} ms, import ${image.ms.build} ms)` : `reused (npm pack or the wait for this run's ${image.ms.pack} ms)`}`,
  );
}, 300_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (!SKIP) console.log(`docker image tests: ${((performance.now() - started) / 1000).toFixed(1)} s in all\n  ${figures.join('\n  ')}`);
});

describe.skipIf(SKIP !== undefined)('the mqsim image on a Docker engine (host network, loopback only)', () => {
  it(
    title(
      "`docker run -e MQSIM_ADMIN_PASSWORD -e MQSIM_JWT_SECRET IMAGE serve --host 0.0.0.0 --port P` answers on the host network, turns healthy by the image's own HEALTHCHECK, and exits 0 on docker stop",
    ),
    async () => {
      const t0 = performance.now();
      const { GenericContainer, Wait } = await loadTestcontainers();
      const port = await freePortBlock(3);
      // The image's own health check command; only the interval is shortened (Docker waits one interval before the first check).
      const health = JSON.parse(await docker('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image.tag)) as {
        Test: ['CMD', ...string[]];
      };
      expect(health.Test).toEqual(['CMD', 'node', '/usr/local/lib/mqsim-healthcheck.mjs']);
      expect(JSON.parse(await docker('image', 'inspect', '--format', '{{json .Config.Entrypoint}}', image.tag))).toEqual(['mqsim']);
      const container = await new GenericContainer(image.tag)
        .withNetworkMode('host')
        .withCommand(['serve', '--host', '0.0.0.0', '--port', String(port)])
        // Beyond loopback, serve refuses the built-in secrets: given as an operator would, by environment.
        .withEnvironment({ MQSIM_ADMIN_PASSWORD: 'docker-test-admin-pw', MQSIM_JWT_SECRET: 'docker-test-signing-secret-0123456789' })
        .withHealthCheck({ test: health.Test, interval: 1000, timeout: 5000, retries: 3, startPeriod: 30_000 })
        .withWaitStrategy(Wait.forHealthCheck())
        .withStartupTimeout(60_000)
        .start();
      const healthyMs = Math.round(performance.now() - t0);
      try {
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
        expect(ready.status).toBe(200);
        // Every node of the cluster listens: node 3 on P+2.
        const tenants = (await (await fetch(`http://127.0.0.1:${port + 2}/api/cluster/tenant/list`)).json()) as { code: number };
        expect(tenants.code).toBe(0);
        const log = JSON.parse(await docker('inspect', '--format', '{{json .State.Health}}', container.getId())) as {
          Status: string;
          Log: { ExitCode: number }[];
        };
        expect(log.Status).toBe('healthy');
        expect(log.Log.at(-1)?.ExitCode).toBe(0);
      } finally {
        await container.stop({ remove: false, timeout: 10_000 });
      }
      // mqsim handles SIGTERM as PID 1: a clean exit, not the kill after the grace period.
      const state = JSON.parse(await docker('inspect', '--format', '{{json .State}}', container.getId())) as {
        ExitCode: number;
        OOMKilled: boolean;
      };
      await docker('rm', container.getId());
      expect(state.ExitCode).toBe(0);
      figures.push(`serve: healthy after ${healthyMs} ms (start + first health check at a 1 s interval)`);
    },
    120_000,
  );

  it(
    title(
      "`mqsim conform --target docker:IMAGE?network=host… --no-properties` passes every endpoint's checks: 0 MUST findings, and the container is gone afterwards",
    ),
    async () => {
      const before = await containersOf(image.tag);
      const dir = join(root, 'clean');
      const r = await mqsim([
        'conform',
        '--target',
        `docker:${image.tag}?network=host&port=auto&cmd=serve+--port+{port}+--host+127.0.0.1`,
        // Every endpoint's checks run against the image; the property suites (random request
        // sequences on the same endpoints, a quarter of the run) do not. They are proven over HTTP
        // against the server `mqsim serve` starts by scripts/deviations/deviations-caught.test.ts (the
        // unbroken simulator, whole contract, property suites included), and from the packed package,
        // compiled, by scripts/package/packed-install.test.ts (`npx mqsim conform --target sim`).
        '--no-properties',
        '--report-dir',
        dir,
        '--quiet',
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      expect(report.vacuous).toBe(false);
      expect(must(report).map((f) => f.title)).toEqual([]);
      expect(report.summary.passed).toBeGreaterThan(1000);
      expect(report.summary.untested).toBe(0);
      expect(await containersOf(image.tag)).toEqual(before);
      figures.push(
        `conform (every endpoint's checks, no property suites): exit 0 in ${r.ms} ms: ${report.summary.checks} checks, ${report.summary.passed} passed, ${report.summary.failed} failed, ${report.summary.skipped} skipped, findings MUST ${must(report).length} / all ${report.findings.length}`,
      );
    },
    180_000,
  );

  it(
    title(`an image started with --deviation ${DEVIATION} fails conform on that endpoint`),
    async () => {
      const d = deviationById(DEVIATION)!;
      const dir = join(root, 'deviation');
      const r = await mqsim([
        'conform',
        '--target',
        `docker:${image.tag}?network=host&port=auto&cmd=serve+--port+{port}+--host+127.0.0.1+--deviation+${DEVIATION}`,
        '--only',
        'tenants,cluster-status',
        '--no-properties',
        '--report-dir',
        dir,
        '--quiet',
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(1);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      const endpoint = report.endpoints.find((e) => e.id === d.endpoint)!;
      const failed = endpoint.checks.filter((c) => c.status === 'fail').map((c) => c.id);
      expect(failed).toEqual(expect.arrayContaining([...d.checks]));
      expect(must(report).some((f) => f.endpoints.includes(`${endpoint.method} ${endpoint.path}`))).toBe(true);
      figures.push(
        `conform --only tenants,cluster-status against --deviation ${DEVIATION}: exit 1 in ${r.ms} ms, failed on ${endpoint.method} ${endpoint.path}: ${failed.join(', ')}`,
      );
    },
    120_000,
  );

  it(
    title('a container that exits before it is ready is reported at once with its output, and removed'),
    async () => {
      const before = await containersOf(image.tag);
      const t0 = performance.now();
      await expect(DockerTarget.start(`docker:${image.tag}?network=host&port=auto&cmd=serve+--port+{port}+--nodes+99`)).rejects.toThrow(
        /exited \(code 2\) before http:\/\/127\.0\.0\.1:\d+\/health\/ready answered 200; its last output:\n.*--nodes/s,
      );
      expect(performance.now() - t0).toBeLessThan(30_000);
      expect(await containersOf(image.tag)).toEqual(before);
    },
    60_000,
  );
});
