import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBlockOf, sharedLibrariesOf } from './scratch-image.ts';

const run = promisify(execFile);
const DOCKERFILE = readFileSync(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
const HEALTHCHECK = fileURLToPath(new URL('../../docker/healthcheck.mjs', import.meta.url));

describe("the Dockerfile's runtime block (the test image is configured with it)", () => {
  it('is read as whole instructions: user, health check, entrypoint mqsim, command serve on every interface', () => {
    const block = runtimeBlockOf(DOCKERFILE);
    expect(block).toContain('USER node');
    expect(block).toContain('ENTRYPOINT ["mqsim"]');
    expect(block).toContain('CMD ["serve", "--host", "0.0.0.0"]');
    expect(block.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/CMD \["node", "\/usr\/local\/lib\/mqsim-healthcheck\.mjs"\]$/);
  });

  it('joins continued lines, and refuses a block that runs a command or is missing', () => {
    expect(runtimeBlockOf('FROM x\n# --- runtime\n# note\nENV A=1 \\\n    B=2\nCMD ["a"]\n')).toEqual(['ENV A=1 B=2', 'CMD ["a"]']);
    expect(() => runtimeBlockOf('FROM x\n# --- runtime\nRUN rm -rf /\n')).toThrow(/holds RUN, which a FROM scratch image cannot run/);
    expect(() => runtimeBlockOf('FROM x\nCMD ["a"]\n')).toThrow(/no "# --- runtime" block/);
  });
});

describe('ldd', () => {
  it('lists the files node needs: libraries by path and the dynamic loader, all present on this host', async () => {
    const libs = await sharedLibrariesOf(process.execPath);
    // A static node needs none; a dynamic one at least libc and its loader.
    if (libs.length > 0) {
      expect(libs.some((l) => /\/libc\.so/.test(l))).toBe(true);
      expect(libs.some((l) => /\/ld-linux/.test(l))).toBe(true);
    }
    for (const l of libs) expect(existsSync(l), l).toBe(true);
  });
});

describe('docker/healthcheck.mjs', () => {
  let server: Server;
  let port = 0;
  let ready = true;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/health/ready' && ready ? 200 : 503;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1' }, r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const check = async (...args: string[]) => {
    try {
      await run(process.execPath, [HEALTHCHECK, ...args]);
      return { code: 0, stderr: '' };
    } catch (e) {
      const x = e as { code: number; stderr: string };
      return { code: x.code, stderr: x.stderr };
    }
  };

  it('exits 0 when /health/ready answers 200 at the given port (--port N, --port=N, a 0.0.0.0 host means loopback)', async () => {
    expect(await check('--port', String(port))).toEqual({ code: 0, stderr: '' });
    expect(await check(`--port=${port}`, '--host', '0.0.0.0')).toEqual({ code: 0, stderr: '' });
    expect(await check('serve', '--host', '127.0.0.1', '--port', String(port))).toEqual({ code: 0, stderr: '' });
  });

  it('exits 1 saying why: not ready (503), nothing listening, no fixed port', async () => {
    ready = false;
    try {
      expect(await check('--port', String(port))).toEqual({
        code: 1,
        stderr: expect.stringMatching(/^unhealthy: http:\/\/127\.0\.0\.1:\d+\/health\/ready answered 503/),
      });
    } finally {
      ready = true;
    }
    const closed = createServer();
    await new Promise<void>((r) => closed.listen({ port: 0, host: '127.0.0.1' }, r));
    const gone = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await check('--port', String(gone))).toEqual({ code: 1, stderr: expect.stringContaining('ECONNREFUSED') });
    expect(await check('--port', '0')).toEqual({ code: 1, stderr: expect.stringContaining('no fixed admin port to check (--port 0)') });
  });
});
