/**
 * The sources of an earlier revision beside this checkout, for benchmarks that measure a baseline in
 * the same run: `git archive REV` extracted into a temporary directory that shares this checkout's
 * node_modules (so both run on the same dependencies). The caller removes it with `remove()`.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's root (where package.json is). */
export const CHECKOUT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BeforeCheckout {
  /** Root of the extracted sources. */
  dir: string;
  rev: string;
  remove(): void;
}

/** Extracts revision `rev` (a commit, branch or tag of this repository). */
export function checkoutBefore(rev: string): BeforeCheckout {
  const dir = mkdtempSync(join(tmpdir(), 'mqsim-bench-before-'));
  try {
    execSync(`git archive ${JSON.stringify(rev)} | tar -x -C ${JSON.stringify(dir)}`, {
      cwd: CHECKOUT_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    symlinkSync(join(CHECKOUT_ROOT, 'node_modules'), join(dir, 'node_modules'));
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { dir, rev, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
