import { fileURLToPath } from 'node:url';
import { sha256 } from './checkpoint-files.ts';

/** The checkpoint script bundled: its code and the sha256 that names that code in a checkpoint. */
export interface CheckpointBundle {
  code: string;
  sha256: string;
}

let cached: Promise<CheckpointBundle> | undefined;

/**
 * `node --build-snapshot` runs one CommonJS script that requires only Node's own modules, so the
 * model's code (checkpoint-entry.ts and everything it imports, the I/O layer it loads after a restore
 * included) is bundled with esbuild, in memory, once per process. The same code is bundled by a
 * start that looks for a checkpoint, to tell whether the checkpoint was made by the code that runs
 * now (its sha256). From a checkout the TypeScript sources are bundled; from the package, dist/.
 */
export function checkpointBundle(): Promise<CheckpointBundle> {
  cached ??= bundle();
  return cached;
}

/**
 * A process restored from a checkpoint is itself that bundle (and esbuild cannot run from inside a
 * bundle): the serve that started it hands it the code, for the checkpoints it builds in turn.
 */
export function presetCheckpointBundle(b: CheckpointBundle): void {
  cached = Promise.resolve(b);
}

async function bundle(): Promise<CheckpointBundle> {
  const { build } = await import('esbuild');
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const entry = new URL(`./checkpoint-entry${ext}`, import.meta.url);
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    external: ['esbuild'],
    // The package's version is read by walking up from the module (fixtures/package-version.ts).
    define: { 'import.meta.url': JSON.stringify(entry.href) },
  });
  const code = result.outputFiles[0].text;
  return { code, sha256: sha256(code) };
}
