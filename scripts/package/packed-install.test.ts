import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installPacked, REPO_ROOT, type PackedInstall } from './pack-install.ts';
import { runPack } from './run-pack.ts';

/**
 * The package as a broker team or a dashboard developer gets it: packed, installed from the tarball
 * into an empty project, used through `npx mqsim …` and `import … from 'mqsim'`, with no file of
 * this repository and no TypeScript tooling at run time. The heaviest test of the suite (~45 s: the
 * build, the install from npm's cache, a full conformance run).
 */

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let pkg: PackedInstall;

/** npm's own warnings (e.g. about this machine's npm configuration) are not the package's output. */
const withoutNpmWarnings = (text: string): string =>
  text
    .split('\n')
    .filter((l) => !l.startsWith('npm warn'))
    .join('\n')
    .trim();

function npx(args: string[], timeout = 60_000): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npx', ['--no-install', 'mqsim', ...args], {
    cwd: pkg.installDir,
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: withoutNpmWarnings(r.stderr) };
}

describe('the packed package, installed in an empty project', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mqsim-pack-'));
    // This run's tarball: `npm pack` once, shared with the Docker image test (run-pack.ts).
    pkg = installPacked(await runPack(inject('packRunDir')), work);
  }, 300_000);
  // The install's node_modules: on a loaded machine its removal alone has taken over 30 s.
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('ships the compiled JavaScript, its declarations and the bin, and no sources, tests or fixtures', () => {
    expect(pkg.files).toContain('bin/mqsim.js');
    expect(pkg.files).toContain('dist/lib/index.js');
    expect(pkg.files).toContain('dist/lib/index.d.ts');
    expect(pkg.files).toContain('dist/scripts/cli/main.js');
    expect(pkg.files).toContain('dist/scripts/cli/chaos-sweep-worker.js');
    // Loaded by URL (a serve checkpoint bundles it), so only tsconfig.build.json's entry list brings them in.
    expect(pkg.files).toContain('dist/scripts/cli/checkpoint-entry.js');
    expect(pkg.files).toContain('dist/scripts/cli/checkpoint-restored.js');
    const unexpected = pkg.files.filter(
      (f) => !['bin/mqsim.js', 'package.json', 'README.md'].includes(f) && !/^dist\/.+\.(js|d\.ts)$/.test(f),
    );
    expect(unexpected).toEqual([]);
    expect(pkg.files.filter((f) => /\.test\.|testing\/|test-harness|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    // No TypeScript tooling is installed with it: the CLI and the library run compiled code.
    expect(existsSync(join(pkg.installDir, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(pkg.installDir, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(pkg.installDir, 'node_modules', 'mqsim', 'scripts'))).toBe(false);
  });

  it('npx mqsim --help and --version', () => {
    const help = npx(['--help']);
    expect(help.status).toBe(0);
    for (const cmd of ['serve', 'conform', 'openapi', 'report', 'chaos', 'replay', 'scenario']) expect(help.stdout).toContain(cmd);
    expect(npx(['--version']).stdout.trim()).toBe(VERSION);
    expect(npx(['serve', '--help']).stdout).toContain('--dialect');
  });

  it('npx mqsim conform --target sim: a full run passes and writes its reports', () => {
    const r = npx(['conform', '--target', 'sim', '--quiet'], 120_000);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^PASS — 0 findings/);
    const report = JSON.parse(readFileSync(join(pkg.installDir, 'reports', 'latest', 'report.json'), 'utf8')) as {
      tool: { version: string };
      summary: { checks: number };
    };
    expect(report.tool.version).toBe(VERSION);
    expect(report.summary.checks).toBeGreaterThan(2_000);
  }, 120_000);

  it('npx mqsim serve: serves until its job is terminated', async () => {
    // npm exec does not pass a SIGTERM on to the command it runs: end the whole process group, as a
    // shell or a CI runner ends a job.
    const child = spawn('npx', ['--no-install', 'mqsim', 'serve', '--port', '0', '--nodes', '2', '--workload', 'none'], {
      cwd: pkg.installDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${out}`)), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('http://'));
        if (line) {
          clearTimeout(timer);
          resolve(line.trim());
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    const res = await fetch(`${url}/`);
    expect(await res.text()).toBe(`mqsim ${VERSION}`);
    const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    process.kill(-child.pid!, 'SIGTERM');
    await exit;
    await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/mqsim serve: stopped/);
    await expect(fetch(`${url}/`)).rejects.toThrow();
  }, 60_000);

  it('npx mqsim chaos --seeds: the sweep runs on worker threads of compiled JavaScript', () => {
    const r = npx(['chaos', '--seeds', '1..2', '--steps', '100', '--faults', 'crash', '--workers', '2', '--json', '--out-dir', 'chaos']);
    expect(r.stderr).not.toMatch(/Error/);
    expect(JSON.parse(r.stdout)).toMatchObject({ seeds_run: 2, workers: 2 });
  }, 60_000);

  it('a TypeScript consumer of the public API type-checks against the declarations and runs', () => {
    const dir = pkg.installDir;
    copyFileSync(join(REPO_ROOT, 'scripts', 'package', 'consumer.ts'), join(dir, 'consumer.ts'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          // Check the package's declarations too, not only the consumer.
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
          outDir: 'out',
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    const run = spawnSync(process.execPath, [join(dir, 'out', 'consumer.js')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const line = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(line).toMatchObject({ version: VERSION, listedCode: 0, served: 1, verdict: 'pass', findings: 0 });
    expect(line.newLeader).not.toBe(line.leader);
    expect(line.refused).toMatch(/nodes\/crash: .*already stopped/);
    expect(line.checks).toBeGreaterThan(20);
  }, 180_000);
});
