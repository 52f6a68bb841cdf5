/**
 * One `npm pack` of this checkout per test run, shared by the tests that need the tarball (the
 * packed-install test and the Docker image test). Each `npm pack` rebuilds dist/ through `prepack`
 * (≈17 s of tsc on a two-core machine), and two of them at once in two workers would also remove and
 * rewrite the same dist/ under each other.
 *
 * The run's directory comes from vitest's globalSetup (this file's default export, named in
 * vitest.config.ts): a fresh temporary directory per `vitest run`, removed at its end, so a tarball is
 * never reused from an earlier run or an older checkout. The first test to ask takes the lock (an
 * atomic mkdir) and packs; the others wait for its result file, which appears whole (atomic rename).
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestProject } from 'vitest/node';
import { npmPack, type Packed } from './pack-install.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's directory for its one `npm pack` (run-pack.ts). */
    packRunDir: string;
  }
}

/** globalSetup: the run's pack directory, provided to the tests; removed when the run ends. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'mqsim-run-pack-'));
  project.provide('packRunDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

type Outcome = { ok: true; packed: Packed } | { ok: false; error: string };

function write(runDir: string, outcome: Outcome): void {
  const partial = join(runDir, `result.${process.pid}.partial`);
  writeFileSync(partial, JSON.stringify(outcome));
  renameSync(partial, join(runDir, 'result.json'));
}

function read(runDir: string): Outcome | undefined {
  try {
    return JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as Outcome;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The run's tarball: packed by the first caller, waited for by the others (up to `timeoutMs`). A
 * failed pack fails every caller with npm's message. `packMs` is the pack's own time for the one that
 * packed, the wait for the others.
 */
export async function runPack(runDir: string, timeoutMs = 240_000): Promise<Packed> {
  const t0 = performance.now();
  let packer = true;
  try {
    mkdirSync(join(runDir, 'lock'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    packer = false;
  }
  if (packer) {
    try {
      const packed = npmPack(join(runDir, 'out'));
      write(runDir, { ok: true, packed });
      return packed;
    } catch (e) {
      write(runDir, { ok: false, error: (e as Error).message });
      throw e;
    }
  }
  for (;;) {
    const outcome = read(runDir);
    if (outcome?.ok) return { ...outcome.packed, packMs: performance.now() - t0 };
    if (outcome) throw new Error(`npm pack, run by another test of this run, failed: ${outcome.error}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`no tarball in ${runDir} after ${timeoutMs} ms (another test is packing)`);
    await sleep(250);
  }
}
