/**
 * Start-up time of the CLI (issue 13): wall time of `mqsim --help` and `mqsim serve --help`, each
 * a fresh Node process, run many times in turns, for
 *   - the installed package: this repository packed and installed from the tarball (compiled dist/,
 *     what `npx mqsim` runs after `npm install mqsim`), its bin run by Node directly;
 *   - this checkout: bin/mqsim.js on the sources through tsx (what a clone runs);
 *   - with `--before-rev REV`: the sources of an earlier revision through tsx (e.g. the commit before
 *     issue 13, where every command module was loaded before --help printed), extracted with
 *     `git archive` into a temporary directory sharing this checkout's node_modules;
 *   - with `--npx`: the installed package through `npx mqsim` (adds npm's own start-up).
 * Prints median and p90 per variant and the ratio of each median to the installed package's.
 *
 *   npm run bench:startup -- [--runs 30] [--before-rev 794a1fa] [--npx] [--installed DIR]
 *
 * `--installed DIR` reuses an install made by an earlier run (a directory with node_modules/mqsim)
 * instead of packing and installing again (≈30 s).
 */
import { execSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argNumber, argText } from './bench/script-args.ts';
import { packAndInstall, REPO_ROOT } from './package/pack-install.ts';

interface Variant {
  name: string;
  command: string;
  args: string[];
  cwd: string;
}

const COMMANDS: { label: string; args: string[] }[] = [
  { label: 'mqsim --help', args: ['--help'] },
  { label: 'mqsim serve --help', args: ['serve', '--help'] },
];

function timeOnce(v: Variant, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(v.command, [...v.args, ...args], { cwd: v.cwd, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${v.name}: ${[v.command, ...v.args, ...args].join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

function main(): void {
  const runs = argNumber('runs', 30, { positive: true });
  const beforeRev = argText('before-rev', '');
  const reuse = argText('installed', '');
  const withNpx = process.argv.includes('--npx');
  const cleanup: string[] = [];
  try {
    let installDir = reuse;
    if (!installDir) {
      const work = mkdtempSync(join(tmpdir(), 'mqsim-bench-startup-'));
      cleanup.push(work);
      process.stderr.write('packing and installing the package (≈30 s)...\n');
      const pkg = packAndInstall(work);
      installDir = pkg.installDir;
      process.stderr.write(
        `tarball ${(pkg.packedBytes / 1024).toFixed(0)} KiB, ${pkg.files.length} files; pack ${(pkg.packMs / 1000).toFixed(1)} s, install ${(pkg.installMs / 1000).toFixed(1)} s\n`,
      );
    }
    const installedBin = join(installDir, 'node_modules', 'mqsim', 'bin', 'mqsim.js');
    const variants: Variant[] = [
      { name: 'installed package (dist/)', command: process.execPath, args: [installedBin], cwd: installDir },
      { name: 'this checkout (sources, tsx)', command: process.execPath, args: [join(REPO_ROOT, 'bin', 'mqsim.js')], cwd: REPO_ROOT },
    ];
    if (beforeRev) {
      const dir = mkdtempSync(join(tmpdir(), 'mqsim-bench-before-'));
      cleanup.push(dir);
      execSync(`git archive ${beforeRev} | tar -x -C ${JSON.stringify(dir)}`, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
      variants.push({
        name: `before: ${beforeRev} (sources, tsx)`,
        command: process.execPath,
        args: [join(dir, 'bin', 'mqsim.js')],
        cwd: dir,
      });
    }
    if (withNpx) variants.push({ name: 'installed package via npx', command: 'npx', args: ['--no-install', 'mqsim'], cwd: installDir });

    const times = new Map<string, number[]>();
    for (const v of variants) for (const c of COMMANDS) timeOnce(v, c.args); // warm the file cache
    for (let i = 0; i < runs; i++) {
      // In turns, so a busy moment of the machine touches every variant alike.
      for (const v of variants) {
        for (const c of COMMANDS) {
          const key = `${c.label}|${v.name}`;
          times.set(key, [...(times.get(key) ?? []), timeOnce(v, c.args)]);
        }
      }
    }
    console.log(`start-up, ${runs} runs each (wall time of a fresh process, ms), Node ${process.version}`);
    for (const c of COMMANDS) {
      const base = quantile(times.get(`${c.label}|${variants[0].name}`)!, 0.5);
      console.log(`\n${c.label}`);
      console.log(`  ${'variant'.padEnd(40)} ${'median'.padStart(8)} ${'p90'.padStart(8)} ${'× installed'.padStart(12)}`);
      for (const v of variants) {
        const xs = times.get(`${c.label}|${v.name}`)!;
        const med = quantile(xs, 0.5);
        console.log(
          `  ${v.name.padEnd(40)} ${med.toFixed(0).padStart(8)} ${quantile(xs, 0.9).toFixed(0).padStart(8)} ${(med / base).toFixed(2).padStart(12)}`,
        );
      }
    }
    console.log('\ntarget: mqsim --help of the installed package ≤ 300 ms');
  } finally {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  }
}

main();
