#!/usr/bin/env node
// Entry point of the `mqsim` CLI, in two layouts:
// - a checkout (the TypeScript sources are next to this file): the sources run through tsx's loader,
//   so a fresh clone needs no build step (`npm ci && npx mqsim --help`) and this repository's tests,
//   which spawn this file, always run the code they test, never an older dist/ left by a build;
// - the installed package (`files` ships dist/ and not the sources): the compiled JavaScript in
//   dist/, with no TypeScript tooling at run time.
// Which one runs depends only on whether the sources are there, never on dist/ being fresh.
import { existsSync } from 'node:fs';

const sources = new URL('../scripts/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const tsx = await import('tsx/esm/api').catch(() => undefined);
  if (!tsx) {
    process.stderr.write(
      'mqsim: this is a checkout of mqsim (TypeScript sources) without its development dependencies: run `npm ci` here, or install the package (`npm pack`, then `npm install mqsim-<version>.tgz`)\n',
    );
    process.exit(2);
  }
  tsx.register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/scripts/cli/main.js'));
}
await main(process.argv);
