import type { KnipConfig } from 'knip';

// Dead code check (`npm run knip`, run by `npm test` before vitest): every export imported somewhere,
// every file reached from an entry, every dependency used. Knip finds the npm scripts' files
// (package.json), the CLI (the "bin" field), the tests and the vitest configs by itself.
const config: KnipConfig = {
  entry: [
    // bin/mqsim.js loads the CLI through tsx's loader, by URL, which knip cannot follow.
    'scripts/cli/main.ts',
    // The library's public API (package.json "exports"): its exports are for the package's users.
    'lib/index.ts!',
    // Programs: the npm scripts' files and the ones docs/ tells to run by hand (`npx tsx scripts/<file>.ts`).
    'scripts/*.ts',
    // Started as child processes by path (`node --import tsx <file>`) from benches and tests, or run by
    // hand as their comments say.
    'scripts/bench/bare-server.ts',
    'scripts/bench/list-sim-server.ts',
    'scripts/docker/build-scratch-image.ts',
    'scripts/package/consumer.ts',
    // Bundled by esbuild, by URL, into the script a checkpoint build runs (checkpoint-bundle.ts).
    'scripts/cli/checkpoint-entry.ts',
    'examples/**/*.ts',
  ],
  project: [
    'lib/**/*.ts',
    'contract/**/*.ts',
    'sim/**/*.ts',
    'suites/**/*.ts',
    'fixtures/**/*.ts',
    'scripts/**/*.ts',
    'examples/**/*.ts',
    'bin/*.js',
  ],
  // An export nothing imports is not part of the module's interface, even when the module uses the
  // name itself: it is reported, and left unexported.
  ignoreExportsUsedInFile: false,
  // Run as programs by path (node_modules/.bin/prism in suites/targets/spawned-target.ts,
  // node_modules/.bin/spectral in contract/to-openapi.spectral.test.ts), never imported.
  ignoreDependencies: ['@stoplight/prism-cli', '@stoplight/spectral-cli'],
  // The packed-install test runs the `mqsim` binary of the package it installs in a scratch directory.
  ignoreBinaries: ['mqsim'],
};

export default config;
