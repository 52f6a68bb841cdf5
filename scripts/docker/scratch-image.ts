/**
 * The test image of the Docker tests: mqsim FROM scratch, built from what this machine already has.
 * No registry is reachable here, so `node:20-bookworm-slim` (the Dockerfile's base) cannot be pulled;
 * instead the image holds this host's `node` binary, the shared libraries `ldd` lists for it (and for
 * `/usr/bin/env`, which runs the `#!/usr/bin/env node` line of the `mqsim` bin), minimal
 * /etc/passwd and /etc/group with the user `node`, and the tarball `npm pack` makes of this checkout
 * installed with its production dependencies, exactly as the Dockerfile installs it (`npm install -g`,
 * so `mqsim` is /usr/local/bin/mqsim). The runtime instructions (user, health check, ENTRYPOINT,
 * CMD) are read from the Dockerfile's runtime block, so both images start the same way.
 *
 * The image is made with `docker import` of the staged rootfs (one layer, the runtime block as its
 * configuration): what `docker build` of `FROM scratch` + `COPY rootfs/ /` + that block makes, without
 * a full copy of the rootfs per instruction under `--storage-driver=vfs`. Images are tagged by a hash
 * of their inputs and reused: a rebuild happens only when an input changed.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Bump when the staging changes in a way the hashed inputs do not show. */
const STAGING_VERSION = 2;
const SCRATCH_REPOSITORY = 'mqsim-scratch';
const REPO_DIR = fileURLToPath(new URL('../..', import.meta.url));
/** Instructions the runtime block may hold: those `docker import --change` takes; none runs anything at build time (scratch has no shell). */
const RUNTIME_INSTRUCTIONS = new Set([
  'ENV',
  'USER',
  'WORKDIR',
  'EXPOSE',
  'HEALTHCHECK',
  'ENTRYPOINT',
  'CMD',
  'LABEL',
  'STOPSIGNAL',
  'VOLUME',
]);
const RUNTIME_MARKER = /^# --- runtime\b/;

export interface ScratchImage {
  /** `mqsim-scratch:<hash of the inputs>`. */
  tag: string;
  /** false when an image with this tag already existed. */
  built: boolean;
  /** Bytes of the image, as the engine reports it. */
  sizeBytes: number;
  /** Wall time of `npm pack`, staging and build (0 for the steps skipped). */
  ms: { pack: number; stage: number; build: number };
}

/**
 * The Dockerfile's runtime block: the lines after `# --- runtime` (continuation lines joined), each an
 * instruction that needs nothing at build time. Throws when the block is missing or runs a command.
 */
export function runtimeBlockOf(dockerfile: string): string[] {
  const lines = dockerfile.split('\n');
  const at = lines.findIndex((l) => RUNTIME_MARKER.test(l));
  if (at === -1) throw new Error('the Dockerfile has no "# --- runtime" block for the test image');
  const out: string[] = [];
  let pending = '';
  for (const raw of lines.slice(at + 1)) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    pending += pending ? ` ${line.replace(/\\$/, '').trim()}` : line.replace(/\\$/, '').trim();
    if (line.endsWith('\\')) continue;
    const word = pending.split(/\s+/)[0].toUpperCase();
    if (!RUNTIME_INSTRUCTIONS.has(word))
      throw new Error(`the Dockerfile's runtime block holds ${word}, which a FROM scratch image cannot run: ${pending}`);
    out.push(pending);
    pending = '';
  }
  return out;
}

/** Files `ldd` lists for a binary (the dynamic loader included); none for a static one. */
export async function sharedLibrariesOf(binary: string): Promise<string[]> {
  let stdout: string;
  try {
    ({ stdout } = await run('ldd', [binary]));
  } catch (e) {
    const text = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
    if (/not a dynamic executable|statically linked/.test(text)) return [];
    throw new Error(`ldd ${binary} failed: ${text.trim() || (e as Error).message}`, { cause: e });
  }
  const files: string[] = [];
  for (const line of stdout.split('\n')) {
    if (/not found/.test(line)) throw new Error(`ldd ${binary}: ${line.trim()}`);
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"; the vDSO has no file.
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) files.push(m[1]);
  }
  return files;
}

/** Copies a host file to the same path under `root`, following symbolic links (the file, not the link). */
function copyIn(root: string, file: string, as = file): void {
  const dest = join(root, as);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(realpathSync(file), dest);
  chmodSync(dest, statSync(realpathSync(file)).mode & 0o777);
}

/** `npm pack` of this checkout into `dir`: the tarball's path. */
async function packRepo(dir: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--json', '--silent'], {
    cwd: REPO_DIR,
    maxBuffer: 64 * 1024 * 1024,
  });
  // Lifecycle scripts may print before npm's JSON array.
  const json = JSON.parse(stdout.slice(stdout.indexOf('[')));
  return join(dir, (json as { filename: string }[])[0].filename);
}

async function docker(args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function imageSize(tag: string): Promise<number | undefined> {
  try {
    return Number(await docker(['image', 'inspect', '--format', '{{.Size}}', tag]));
  } catch {
    return undefined;
  }
}

/**
 * Lays out the image's root filesystem in `root`: node and its libraries, /usr/bin/env, the users,
 * /tmp and the home directory, the health check script, and mqsim installed globally from `tarball`.
 */
async function stageRootfs(root: string, tarball: string): Promise<void> {
  const node = realpathSync(process.execPath);
  copyIn(root, node, '/usr/local/bin/node');
  // Its symbol table is not needed to run (this one's is 13 of its 99 MB), and under vfs every
  // container starts with two full copies of the image: a smaller image starts faster.
  await run('strip', [join(root, 'usr/local/bin/node')]).catch(() => {});
  copyIn(root, '/usr/bin/env');
  for (const binary of [node, '/usr/bin/env']) for (const lib of await sharedLibrariesOf(binary)) copyIn(root, lib);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000::/home/node:/sbin/nologin\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
  // COPY makes every file root's; world-writable (sticky) directories let the user `node` write here.
  for (const dir of ['tmp', 'home/node']) {
    mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, dir), 0o1777);
  }
  copyIn(root, join(REPO_DIR, 'docker/healthcheck.mjs'), '/usr/local/lib/mqsim-healthcheck.mjs');
  // As the Dockerfile does: the packed package and its production dependencies, from npm's cache
  // when `npm ci` filled it (the registry otherwise).
  await run(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      join(root, 'usr/local'),
      tarball,
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--silent',
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
}

/**
 * `tar -c ROOTFS | docker import --change … - TAG`: the image FROM scratch with the rootfs as its one
 * layer and the runtime block as its configuration. The same result as `docker build` of
 * `FROM scratch` + `COPY rootfs/ /` + those instructions, without the builder's intermediate container
 * per instruction: with `--storage-driver=vfs` each of them copies the whole rootfs (measured: 60 s
 * for the build against a few seconds for the import).
 */
function importRootfs(rootfs: string, tag: string, changes: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // Owned by root, as COPY would make it; links stay links.
    const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '--owner=0', '--group=0', '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const imp = spawn('docker', ['import', ...changes.flatMap((c) => ['--change', c]), '-', tag], { stdio: ['pipe', 'ignore', 'pipe'] });
    tar.stdout.pipe(imp.stdin);
    let errors = '';
    tar.stderr.on('data', (d) => (errors += d));
    imp.stderr.on('data', (d) => (errors += d));
    let tarCode: number | null = null;
    tar.on('error', reject);
    imp.on('error', reject);
    tar.on('close', (code) => (tarCode = code));
    imp.on('close', (code) =>
      code === 0 && tarCode === 0
        ? resolve()
        : reject(new Error(`docker import of ${tag} failed (tar ${tarCode}, docker ${code}): ${errors.trim()}`)),
    );
  });
}

export interface ScratchImageOptions {
  /** Log a line per step (default: nothing). */
  log?: (line: string) => void;
  /** A tarball `npm pack` made of this checkout already (default: pack it here). */
  tarball?: () => Promise<string>;
}

/** Builds the test image, or finds it built already for the same inputs. Needs `docker`, `npm` and `ldd`. */
export async function ensureScratchImage(options: ScratchImageOptions = {}): Promise<ScratchImage> {
  const log = options.log ?? (() => {});
  const work = mkdtempSync(join(tmpdir(), 'mqsim-scratch-'));
  try {
    let t = performance.now();
    const tarball = await (options.tarball ?? (() => packRepo(work)))();
    const pack = Math.round(performance.now() - t);
    const dockerfileText = readFileSync(join(REPO_DIR, 'Dockerfile'), 'utf8');
    const runtime = runtimeBlockOf(dockerfileText);
    const hash = createHash('sha256')
      .update(`v${STAGING_VERSION}\0${process.version}\0${realpathSync(process.execPath)}\0${statSync(process.execPath).size}\0`)
      .update(readFileSync(tarball))
      .update(readFileSync(join(REPO_DIR, 'docker/healthcheck.mjs')))
      .update(runtime.join('\n'))
      .digest('hex')
      .slice(0, 16);
    const tag = `${SCRATCH_REPOSITORY}:${hash}`;
    const existing = await imageSize(tag);
    if (existing !== undefined) {
      log(`${tag} exists (${(existing / 1e6).toFixed(0)} MB): reused`);
      return { tag, built: false, sizeBytes: existing, ms: { pack, stage: 0, build: 0 } };
    }
    t = performance.now();
    const rootfs = join(work, 'rootfs');
    await stageRootfs(rootfs, tarball);
    const stage = Math.round(performance.now() - t);
    t = performance.now();
    log(`importing ${tag}`);
    await importRootfs(rootfs, tag, [
      // The node image sets PATH; scratch has none.
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `LABEL org.mqsim.test-image="${hash}"`,
      ...runtime,
    ]);
    const build = Math.round(performance.now() - t);
    const sizeBytes = (await imageSize(tag)) ?? 0;
    log(`built ${tag}: ${(sizeBytes / 1e6).toFixed(0)} MB, pack ${pack} ms, stage ${stage} ms, build ${build} ms`);
    return { tag, built: true, sizeBytes, ms: { pack, stage, build } };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Removes test images of other inputs that are over an hour old and used by no container: with vfs
 * each holds its full size on disk. Younger ones are kept, as another run may be about to use one.
 */
export async function pruneOldScratchImages(keep: string): Promise<string[]> {
  const removed: string[] = [];
  const tags = (await docker(['image', 'ls', SCRATCH_REPOSITORY, '--format', '{{.Repository}}:{{.Tag}}'])).split('\n').filter(Boolean);
  for (const tag of tags) {
    if (tag === keep) continue;
    const created = Date.parse(await docker(['image', 'inspect', '--format', '{{.Created}}', tag]).catch(() => ''));
    if (!(Date.now() - created > 3_600_000)) continue;
    try {
      await docker(['image', 'rm', tag]);
      removed.push(tag);
    } catch {
      // In use by a container, or already gone: left alone.
    }
  }
  return removed;
}
