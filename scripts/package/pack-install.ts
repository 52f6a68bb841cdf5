/**
 * The package as its users get it: `npm pack` of this repository (which builds dist/ first, through
 * the `prepack` script), then `npm install <tarball>` in an empty directory. Used by the
 * packed-install test and by `npm run bench:startup`.
 *
 * The install takes the dependencies from npm's cache when it has them (`--prefer-offline`: `npm ci`
 * filled it) and runs no install scripts (`--ignore-scripts`: none of the dependencies needs one to
 * work, and npm 10 would otherwise compile optional native add-ons of ssh2, a dependency of
 * testcontainers, on every run).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This repository's root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What `npm pack` made: the tarball and what npm says is in it. */
export interface Packed {
  /** The tarball `npm pack` wrote. */
  tarball: string;
  /** Size of the tarball, bytes. */
  packedBytes: number;
  /** Size of its files unpacked, bytes. */
  unpackedBytes: number;
  /** Paths of the files in the tarball, relative to the package root. */
  files: string[];
  packMs: number;
}

export interface PackedInstall extends Packed {
  /** The directory the package is installed in (its node_modules/mqsim). */
  installDir: string;
  /** `node_modules/.bin/mqsim` of the install: what a shell or npx runs. */
  bin: string;
  installMs: number;
}

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (r.status !== 0)
    throw new Error(`npm ${args.join(' ')} failed in ${cwd} (status ${r.status}):\n${r.stderr}\n${r.stdout}`.slice(0, 8_000));
  return r.stdout;
}

/** `npm pack` of this repository into `destDir` (which builds dist/ first, through `prepack`). */
export function npmPack(destDir: string): Packed {
  mkdirSync(destDir, { recursive: true });
  const t0 = performance.now();
  const out = npm(['pack', '--json', '--pack-destination', destDir], REPO_ROOT);
  // Lifecycle scripts may print before npm's JSON array.
  const packed = JSON.parse(out.slice(out.indexOf('['))) as {
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  const packMs = performance.now() - t0;
  const { filename, size, unpackedSize, files } = packed[0];
  return { tarball: join(destDir, filename), packedBytes: size, unpackedBytes: unpackedSize, files: files.map((f) => f.path), packMs };
}

/** Installs the tarball of `packed` into `workDir/install`, an empty project. */
export function installPacked(packed: Packed, workDir: string): PackedInstall {
  const installDir = join(workDir, 'install');
  mkdirSync(installDir, { recursive: true });
  writeFileSync(
    join(installDir, 'package.json'),
    `${JSON.stringify({ name: 'mqsim-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  const t0 = performance.now();
  npm(['install', packed.tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], installDir);
  const installMs = performance.now() - t0;
  return { ...packed, installDir, bin: join(installDir, 'node_modules', '.bin', 'mqsim'), installMs };
}

/** Packs this repository into `workDir` and installs the tarball into `workDir/install`, an empty project. */
export function packAndInstall(workDir: string): PackedInstall {
  return installPacked(npmPack(workDir), workDir);
}
