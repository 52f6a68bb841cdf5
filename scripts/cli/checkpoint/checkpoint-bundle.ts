import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';

/** The checkpoint script bundled: its code, the files it was made from, and the sha256 of those. */
export interface CheckpointBundle {
  code: string;
  /** The sources bundled, relative to the package root (esbuild's metafile). */
  inputs: string[];
  /** sha256 of every input's path and bytes: names the code a checkpoint was built from. */
  sha256: string;
}

let cached: Promise<CheckpointBundle> | undefined;

/** The script bundled: scripts/cli/checkpoint-entry.ts, beside serve-run.ts (a restored process serves through runServe). */
const entry = new URL(`../checkpoint-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
/** The package root: scripts/cli/checkpoint/ is three levels down (dist/ adds one, which the inputs then name). */
const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * `node --build-snapshot` runs one CommonJS script that requires only Node's own modules, so the
 * model's code (checkpoint-entry.ts and everything it imports, the I/O layer it loads after a restore
 * included) is bundled with esbuild, in memory, once per process. From a checkout the TypeScript
 * sources are bundled; from the package, dist/.
 */
export function checkpointBundle(): Promise<CheckpointBundle> {
  cached ??= bundle();
  return cached;
}

/**
 * sha256 of the files a checkpoint's code was bundled from, as they are now: equal to the one in its
 * description when the code that runs now is the code it was built from. Reading the files is much
 * cheaper than bundling again, so a restart does not run esbuild.
 */
export async function codeSha256(inputs: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  // Read together (about a thousand files, most of them in node_modules), hashed in order.
  const contents = await Promise.all(inputs.map((input) => readFile(join(root, input)).catch(() => Buffer.from('\0missing\0'))));
  inputs.forEach((input, i) => hash.update(`${input}\0`).update(contents[i]).update('\0'));
  return hash.digest('hex');
}

async function bundle(): Promise<CheckpointBundle> {
  // Through require: a process restored from a checkpoint builds the next one too, and a snapshot's
  // code has no dynamic import() of packages; createRequire works there.
  const { build } = createRequire(fileURLToPath(entry))('esbuild') as typeof Esbuild;
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['esbuild'],
    // Every module of the bundle sees this file's URL as import.meta.url, so the paths derived from it
    // above (the entry, the package root) still hold when a restored process bundles the next
    // checkpoint, and the package's version is found walking up from it (fixtures/package-version.ts).
    define: { 'import.meta.url': JSON.stringify(import.meta.url) },
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  return { code: result.outputFiles[0].text, inputs, sha256: await codeSha256(inputs) };
}
